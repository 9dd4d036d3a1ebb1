"""The grammar of ``DATABASE_URL`` (pure parsing; ``server/archive/db.py`` opens what it names).

    sqlite:///relative/path.sqlite3   sqlite:////absolute/path.sqlite3   (the embedded default:
                                      DATA_DIR/archive.sqlite3 when no URL is given)
    postgresql://user:password@host:5432/db[?search_path=schema&ssl=require]   (postgres:// too)

A URL is turned into SQLAlchemy's for the asyncio drivers (``sqlite+aiosqlite``,
``postgresql+asyncpg``) and the keyword arguments for the driver's connect: ``search_path``
becomes the session's schema search path (a deployment, or a test, may keep the archive in a
schema of its own); any other query parameter goes to asyncpg as it is (``ssl``). Settings
check it at start (``server/ops/variables.py``), so a malformed URL exits 2 with one line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

PATTERN = r"^(sqlite|postgres|postgresql)(\+(aiosqlite|asyncpg|psycopg2?|pysqlite))?://\S*$"
SCHEMA = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
DEFAULT_FILE = "archive.sqlite3"


class BadDatabaseURL(ValueError):
    pass


def default_url(data_dir: Path) -> str:
    """The embedded archive: SQLite in the data directory."""
    return f"sqlite:///{(data_dir / DEFAULT_FILE).resolve()}"


def parse(text: str) -> tuple[URL, dict[str, Any]]:
    """(SQLAlchemy's asyncio URL, the driver's connect arguments); ``BadDatabaseURL``."""
    if not re.match(PATTERN, text):
        raise BadDatabaseURL("a sqlite:///path or postgresql://user@host:port/db URL")
    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise BadDatabaseURL(str(exc)) from None
    connect: dict[str, Any] = {}
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:":
            raise BadDatabaseURL("a SQLite URL names a file: sqlite:///path/archive.sqlite3")
        if url.query:
            raise BadDatabaseURL("a SQLite URL takes no parameters")
        return url.set(drivername="sqlite+aiosqlite"), connect
    if not url.host and not url.query.get("host"):
        raise BadDatabaseURL("a PostgreSQL URL names its host: postgresql://user@host:5432/db")
    if not url.database:
        raise BadDatabaseURL("a PostgreSQL URL names its database: postgresql://host:5432/db")
    query = dict(url.query)
    schema = query.pop("search_path", None)
    if schema is not None:
        if not isinstance(schema, str) or not SCHEMA.match(schema):
            raise BadDatabaseURL("search_path is one schema name (letters, digits, _)")
        connect["server_settings"] = {"search_path": schema}
    return url.set(drivername="postgresql+asyncpg", query=query), connect


def schema_of(connect: dict[str, Any]) -> str | None:
    """The schema a URL's ``search_path`` names, if any."""
    settings = connect.get("server_settings") or {}
    return settings.get("search_path")


def shown(url: URL) -> str:
    """The URL for a log line: its password hidden."""
    return url.render_as_string(hide_password=True)
