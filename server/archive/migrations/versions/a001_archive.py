"""The archive's first tables: players, sessions, passkeys, challenges, games, their seats,
ratings and analyses.

Revision ID: a001
Revises:
Create Date: 2026-11-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "a001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player",
            sa.String(24),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("sessions_player", "sessions", ["player"])
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(1400), primary_key=True),
        sa.Column(
            "player",
            sa.String(24),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("transports", sa.JSON, nullable=True),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("used_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("passkeys_player", "passkeys", ["player"])
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("challenge", sa.LargeBinary, nullable=False),
        sa.Column("player", sa.String(24), nullable=True),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("adjudication", sa.String(64), nullable=True),
        sa.Column("outcome", sa.JSON, nullable=False),
        sa.Column("plies", sa.Integer, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("clock", sa.JSON, nullable=True),
        sa.Column("started_ms", sa.BigInteger, nullable=False),
        sa.Column("ended_ms", sa.BigInteger, nullable=False),
        sa.Column("archived_ms", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("room", "game_no", name="games_room_game_no"),
    )
    op.create_index("games_ended", "games", ["ended_ms"])
    op.create_table(
        "game_seats",
        sa.Column(
            "game",
            sa.String(24),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("side", sa.Integer, primary_key=True),
        sa.Column(
            "player",
            sa.String(24),
            sa.ForeignKey("players.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("holder", sa.String(16), nullable=False),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("ended_ms", sa.BigInteger, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
    )
    op.create_index("game_seats_player", "game_seats", ["player", "ended_ms"])
    op.create_table(
        "ratings",
        sa.Column(
            "player",
            sa.String(24),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ratings_board", "ratings", ["game", "rating"])
    op.create_table(
        "analyses",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("analysis", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "analyses",
        "ratings",
        "game_seats",
        "games",
        "challenges",
        "passkeys",
        "sessions",
        "players",
    ):
        op.drop_table(table)
