"""Each rated seat keeps the deviation its rating had after the game (``game_seats
.deviation_after``), so a game's page can mark a rating that was provisional then, as the
player's page and the lobby mark one that is provisional now. Seats archived before have none
(NULL): their page shows the rating unmarked, as it always did.

Revision ID: a003
Revises: a002
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "a003"
down_revision = "a002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_seats", sa.Column("deviation_after", sa.Float, nullable=True))
