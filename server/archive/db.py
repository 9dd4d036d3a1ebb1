"""The archive's database: opened from ``DATABASE_URL`` (or the embedded SQLite file in the
data directory), migrated on start, and its outages told once each.

SQLite (``aiosqlite``) runs in WAL mode, so the processes of ``--workers`` share one file:
readers never wait for the writer, and writers queue for ``BUSY_TIMEOUT_MS``. A write
transaction begins ``IMMEDIATE`` (it takes the write lock at once: a transaction that read
first and then wrote could otherwise fail when another process wrote in between, which
``busy_timeout`` does not retry); reads begin deferred. PostgreSQL (``asyncpg``) is the same
code: the archive's statements are SQLAlchemy Core, and where the dialects differ (an insert
that does nothing on conflict, a row lock) ``insert`` and ``locked`` choose.

Migrations (Alembic, ``server/archive/migrations``) run on start, before the node serves,
under a lock (SQLite's write lock; PostgreSQL's advisory lock), so nodes starting together
migrate once. A database that does not answer at start does not stop the node — play never
needs the archive; games wait in their rooms and are written once it answers
(``server/live/archiving.py``); the node tries the migration again before each write.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from server.ops import dburl, metrics

log = logging.getLogger("nyumba.archive")

BUSY_TIMEOUT_MS = 5000  # SQLite: how long a writer waits for another process's write
CONNECT_TIMEOUT_S = 3.0
COMMAND_TIMEOUT_S = 5.0
SLOW_RETRY_S = 5.0  # after a player's call missed its deadline, no such call for this long
MIGRATION_LOCK = 0x6E79756D6261  # "nyumba": PostgreSQL's advisory lock for migrations

# What a database that does not answer raises: the driver's errors wrapped by SQLAlchemy,
# a refused or broken connection, a deadline.
DOWN = (DBAPIError, InterfaceError, OperationalError, OSError, TimeoutError, ConnectionError)

T = TypeVar("T")


class Database:
    def __init__(self, url: str) -> None:
        self.configured_url = url  # what a replay worker opens (server/archive/worker.py)
        self.url, connect = dburl.parse(url)
        self.schema = dburl.schema_of(connect)
        self.kind = self.url.get_backend_name()  # "sqlite" or "postgresql"
        self.migrated = False
        self.down_since: float | None = None
        self._migrating = asyncio.Lock()
        self._abandoned: set[asyncio.Future[Any]] = set()  # calls past their deadline
        self._slow_until = 0.0  # ``within`` makes no call before this (monotonic s)
        if self.kind == "sqlite":
            assert self.url.database is not None
            Path(self.url.database).parent.mkdir(parents=True, exist_ok=True)
            connect["timeout"] = BUSY_TIMEOUT_MS / 1000
            self.engine: AsyncEngine = create_async_engine(self.url, connect_args=connect)
            _sqlite_transactions(self.engine)
        else:
            connect.setdefault("timeout", CONNECT_TIMEOUT_S)
            connect.setdefault("command_timeout", COMMAND_TIMEOUT_S)
            self.engine = create_async_engine(
                self.url, connect_args=connect, pool_size=5, max_overflow=5, pool_pre_ping=True
            )
        self.writer = self.engine.execution_options(nyumba_write=True)

    def __repr__(self) -> str:
        return f"Database({dburl.shown(self.url)})"

    # -- transactions ---------------------------------------------------------------------------

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction (committed at the end, rolled back on an error)."""
        async with self.writer.begin() as conn:
            yield conn

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.connect() as conn:
            yield conn

    async def within(self, seconds: float, call: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``call(*args)``'s answer, or ``TimeoutError`` once ``seconds`` have passed: for the
        calls a player waits on (who they are, their rating). The caller stops waiting at the
        deadline even when the driver does not: a call cancelled on a stalled PostgreSQL closes
        its connection politely, for up to 2 s more (asyncpg's close), so ``asyncio.timeout``
        alone let a 0.5 s deadline wait 2.5 s. The call is cancelled and ends on its own, and
        for ``SLOW_RETRY_S`` after it such calls are not made (``TimeoutError`` at once).
        """
        if time.monotonic() < self._slow_until:
            raise TimeoutError("the archive missed a deadline a moment ago")
        task = asyncio.ensure_future(call(*args))
        try:
            done, _ = await asyncio.wait({task}, timeout=seconds)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done:
            return task.result()
        task.cancel()
        self._abandoned.add(task)
        task.add_done_callback(self._settled)
        self._slow_until = time.monotonic() + SLOW_RETRY_S
        raise TimeoutError(f"the archive did not answer within {seconds:g} s")

    def _settled(self, task: asyncio.Future[Any]) -> None:
        self._abandoned.discard(task)
        if not task.cancelled():
            task.exception()  # looked at: its failure was the deadline's, already told

    def insert(self, table: Any) -> Any:
        """An INSERT that can take ``on_conflict_do_nothing`` / ``on_conflict_do_update``."""
        return (postgresql if self.kind == "postgresql" else sqlite).insert(table)

    def locked(self, query: Any) -> Any:
        """``query`` locking its rows for the transaction (SQLite's write lock already does)."""
        return query.with_for_update() if self.kind == "postgresql" else query

    # -- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Migrate, or say why not and carry on (``ready`` tries again)."""
        await self.ready()

    async def ready(self) -> bool:
        """Migrated and answering; a failure is an outage (told once)."""
        if self.migrated:
            return True
        async with self._migrating:
            if self.migrated:
                return True
            try:
                await self.migrate()
            except DOWN as exc:
                self.failed(exc)
                return False
            self.ok()
            return True

    async def migrate(self) -> None:
        async with self.write() as conn:
            if self.kind == "postgresql":
                if self.schema:
                    await conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"'))
                await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
            await conn.run_sync(_upgrade)
        self.migrated = True
        log.info("archive ready: %s", dburl.shown(self.url))

    async def ping(self) -> str | None:
        """None when the database answers within a second, else why not."""
        try:
            async with asyncio.timeout(1.0):
                async with self.read() as conn:
                    await conn.execute(text("SELECT 1"))
        except (*DOWN, TimeoutError) as exc:
            self.failed(exc)
            return f"the archive's database does not answer: {type(exc).__name__}: {exc}"
        self.ok()
        return None

    def failed(self, exc: BaseException) -> None:
        """A database call failed: logged once per outage."""
        metrics.ARCHIVE_UP.set(0)
        if self.down_since is None:
            self.down_since = time.monotonic()
            log.warning("archive down: %s: %s", type(exc).__name__, str(exc).splitlines()[0:1])

    def ok(self) -> None:
        metrics.ARCHIVE_UP.set(1)
        if self.down_since is not None:
            log.warning("archive back after %.1f s", time.monotonic() - self.down_since)
            self.down_since = None

    async def close(self) -> None:
        await self.engine.dispose()


def _upgrade(connection: Any) -> None:
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "server.archive:migrations")
    config.attributes["connection"] = connection
    known = {s.revision for s in ScriptDirectory.from_config(config).walk_revisions()}
    newer = set(MigrationContext.configure(connection).get_current_heads()) - known
    if newer:
        # A later release migrated it and this node is of an earlier one (a rollback, or a
        # node rescheduled mid-rollout). Migrations only add nullable columns and tables
        # (migrations/versions/), so this release's statements still hold: carry on.
        log.warning("archive at revision %s, of a later release: used as it is", sorted(newer))
        return
    command.upgrade(config, "head")


def _sqlite_transactions(engine: AsyncEngine) -> None:
    """nyumba says when SQLite transactions begin (the driver's own guess would begin them
    late and deferred): ``BEGIN IMMEDIATE`` for writes, ``BEGIN`` for reads; WAL and
    foreign keys on every connection."""

    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # no implicit BEGIN from the driver
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # synchronous stays FULL: a game the room let go of must survive a power cut
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def on_begin(conn: Any) -> None:
        write = conn.get_execution_options().get("nyumba_write")
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
