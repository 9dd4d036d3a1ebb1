"""Real databases for the archive's tests: a SQLite file, and PostgreSQL — the machine's at
127.0.0.1:5432 in a schema of the test's own (dropped afterwards: nobody else's data is
touched), or a server started from Debian's packages into a temporary directory when none
answers there (``PostgresServer``; the outage tests stop and start one of their own).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")
MACHINE = ("127.0.0.1", 5432)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(host: str, port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
        return True
    return False


def _as_postgres(args: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the postgres user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


class PostgresServer:
    """A PostgreSQL server of the test's own: ``initdb`` into a directory of its own under the
    system's temporary directory (pytest's are private to root, and PostgreSQL runs as the
    postgres user), trust authentication, listening on 127.0.0.1 at a free port; ``stop`` and
    ``start`` make a real outage; ``close`` stops it and removes its files."""

    def __init__(self) -> None:
        if not (BIN / "initdb").exists():
            raise RuntimeError("PostgreSQL's server binaries are not installed (postgresql-15)")
        self.root = Path(tempfile.mkdtemp(prefix="nyumba-pg-"))
        self.data = self.root / "pgdata"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        subprocess.run(
            _as_postgres(
                [str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"]
            ),
            check=True,
            capture_output=True,
        )

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> PostgresServer:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off"
        subprocess.run(
            _as_postgres(
                [
                    str(BIN / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-l",
                    str(self.root / "log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )
        deadline = time.monotonic() + 20
        while not answers("127.0.0.1", self.port):
            if time.monotonic() > deadline:
                raise RuntimeError("the test's PostgreSQL did not start")
            time.sleep(0.1)
        return self

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"]),
            check=False,
            capture_output=True,
        )

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def postgres_url(tmp: Path) -> Iterator[str]:
    """A PostgreSQL URL to use: the machine's, or one started for the test."""
    if answers(*MACHINE):
        yield "postgresql://postgres@127.0.0.1:5432/test"
        return
    server = PostgresServer().start()
    try:
        yield server.url
    finally:
        server.close()


@contextlib.contextmanager
def own_schema(url: str) -> Iterator[str]:
    """``url`` with a fresh schema of its own as its search path; the schema (and only it)
    is dropped at the end."""
    import asyncpg
    from asynckit import run as run_async

    schema = f"nyumba_test_{uuid.uuid4().hex[:10]}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    run_async(run(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{url}?search_path={schema}"
    finally:
        run_async(run(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


def sqlite_url(tmp: Path) -> str:
    return f"sqlite:///{tmp / 'archive.sqlite3'}"


def archive_url(kind: str, tmp: Path, stack: contextlib.ExitStack) -> str:
    """The archive a test names by ``kind``: a SQLite file in ``tmp``, or a PostgreSQL schema
    of the test's own, dropped when ``stack`` closes."""
    if kind == "sqlite":
        return sqlite_url(tmp)
    return stack.enter_context(own_schema(stack.enter_context(postgres_url(tmp))))
