"""Arenas (issue 50): each archived game keeps the arena it was played in (``games.arena``,
indexed: an arena's games are read by it) and each side's berserk (``games.berserk``); a
finished arena keeps its spec (``arenas``) and its final standings (``arena_rows``).

Both new columns of ``games`` are nullable with no default, so a node of the release before,
whose inserts name only the columns it knows, writes games into the migrated table as it
always did (their ``arena`` is NULL, as every game archived before has); and the new tables
are nobody else's.

It adds only what is missing, so it runs again on a database rolled back to a003 by setting
``alembic_version`` back (deploy/README.md), with a004's columns and tables left in place.

Revision ID: a004
Revises: a003
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "a004"
down_revision = "a003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # All of it or none is there: a migration is one transaction (DDL included, on both).
    if "arenas" in sa.inspect(op.get_bind()).get_table_names():  # rolled back, now again
        return
    op.add_column("games", sa.Column("arena", sa.String(16), nullable=True))
    op.add_column("games", sa.Column("berserk", sa.JSON, nullable=True))
    op.create_index("games_arena", "games", ["arena", "ended_ms"])
    op.create_table(
        "arenas",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("spec", sa.JSON, nullable=False),
        sa.Column("starts_ms", sa.BigInteger, nullable=False),
        sa.Column("ends_ms", sa.BigInteger, nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
    )
    op.create_index("arenas_finished", "arenas", ["finished_ms"])
    op.create_table(
        "arena_rows",
        sa.Column(
            "arena",
            sa.String(16),
            sa.ForeignKey("arenas.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("player", sa.String(24), primary_key=True),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("berserks", sa.Integer, nullable=False),
        sa.Column("fire", sa.Boolean, nullable=False),
        sa.Column("sheet", sa.JSON, nullable=False),
        sa.Column("doubled", sa.JSON, nullable=False),
        sa.Column("paused", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Integer, nullable=True),
    )
    op.create_index("arena_rows_rank", "arena_rows", ["arena", "rank"])
