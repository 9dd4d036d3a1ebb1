"""Alembic's environment for the archive: migrations run on the connection nyumba hands over
(``server/archive/db.py`` ``migrate``), inside the transaction it opened, never from a URL of
their own; ``alembic`` on the command line is not needed to run nyumba."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
