"""Each passkey keeps the relying party it was made for (``passkeys.rp_id``): a sign-in is
checked against the relying party the node is configured with (``NYUMBA_PUBLIC_URL``), never
the request's ``Host``. Passkeys made before have none (NULL): their assertions are still
checked against the configured relying party's hash, and the first accepted one records it.

Revision ID: a002
Revises: a001
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "a002"
down_revision = "a001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("passkeys", sa.Column("rp_id", sa.String(253), nullable=True))
