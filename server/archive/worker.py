"""A finished game written from a replay-pool process, not from the node's event loop.

Measured (``games.write`` timed alone with ``time.thread_time``, 200 games of 44 plies of Kalah
on average into an SQLite file): it costs the calling thread **2.0 ms of CPU a game** — five statements, each a
greenlet switch, a compiled-statement lookup and a hop to the driver's thread and back, in
SQLAlchemy's async layer — while the record itself costs 0.34 ms. At about twenty game ends a
second (``tests/bench/archive.py``: 1,000 rooms × 1 move/s) that was 4–7 % of the node's event
loop, in slices of milliseconds that a move arriving meanwhile waited out: a move's CPU 1.05–1.16×
and its p99 1.14× (median of five rounds) with the archive on against the same commit with it
off. So the node hands the game (the ``Finished`` msgpack bytes) to its replay pool
(``server/computer/replays.py``: spawned processes, nice 19), and ``write_job`` there makes the
record and writes the row and its ratings with the same code (``server/archive/games.py``) in an
event loop of the worker's own, through a ``Database`` the worker keeps per URL. The node's
share of a game is then one pickled job and its answer.

The node keeps what it always did: it migrates at start and before writing (``Database.ready``),
counts, and decides what an outage means. A database that does not answer is an answer here
(``("down", why)``), not an exception: the drivers' exceptions do not all survive pickling.
"""

from __future__ import annotations

import asyncio

import msgspec

from server.archive import games
from server.archive.db import DOWN, Database
from server.rooms.finished import record_text
from server.rooms.room import Finished

# In a worker: an event loop and the databases opened in it, kept between jobs (their
# connection pools belong to the loop).
_loop: asyncio.AbstractEventLoop | None = None
_databases: dict[str, Database] = {}


async def write(db: Database, data: bytes, now_ms: int) -> tuple[str, str]:
    """The game in ``data`` (a msgpack ``Finished``), its record made here, into ``db``:
    ``("written" | "known" | "replaced", "")``, or ``("down", why)``. The node calls it itself
    when it has no pool."""
    entry = msgspec.msgpack.decode(data, type=Finished)
    try:
        written: str = await games.write(db, entry, record_text(data), now_ms)
    except DOWN as exc:
        return "down", f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
    return written, ""


def write_job(url: str, data: bytes, now_ms: int) -> tuple[str, str]:
    """``write`` in a replay worker, into the database at ``url`` (as configured)."""
    global _loop
    if _loop is None:
        _loop = asyncio.new_event_loop()
    db = _databases.get(url)
    if db is None:
        db = _databases[url] = Database(url)
        db.migrated = True  # the node migrated it before handing a game over
    return _loop.run_until_complete(write(db, data, now_ms))
