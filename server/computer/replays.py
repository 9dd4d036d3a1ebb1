"""Replays off the event loop: a small pool of worker processes for the CPU
work an HTTP request or an undo can ask for.

Replaying a game record runs the engine over every ply, and a node's event
loop is shared by every room it serves: measured on main before this module,
four connections replaying a 28 KB record in a loop (49 replays/s) filled a
core and took other rooms' move round trip p99 to 259-465 ms; an undo at 288
plies held the loop 14.5 ms. Here that work runs in worker processes (a
thread would hold the GIL against the loop), and is bounded:

* at most ``workers + queue`` jobs in the node at once, and ``per_address``
  for one client address; beyond either, ``Busy`` (HTTP 503 with
  ``Retry-After``, or the protocol's ``busy`` error);
* a cache of recent answers keyed by the hash of what was asked (a replay
  spammer sending one record gets the cached answer, for no CPU).

The jobs are module-level functions of plain bytes, so the workers start
from a fresh interpreter (``spawn``), never a fork of a node with sockets
and threads.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger("nyumba.offload")


class Busy(Exception):
    """The pool is full (or this address has its share): try again shortly."""

    retry_after_s = 1


# ---------------------------------------------------------------- the jobs (in a worker)


def replay_view_job(body: bytes) -> tuple[bool, bytes]:
    """(True, the replay view as JSON) or (False, the reason the record is bad)."""
    import msgspec

    from engine import records

    try:
        return True, msgspec.json.encode(records.replay_view(body))
    except records.BadRecord as exc:
        return False, str(exc).encode()


def record_job(room_data: bytes) -> tuple[str, str]:
    """A stored room's current game as (record text, download file name)."""
    from engine import records
    from server.rooms.stored import decode_room
    from server.rooms.view import record

    room = decode_room(room_data)
    name = f"nyumba-{room.game}-{room.id}-{room.game_no}.json"
    return records.text(record(room)), name


def undo_job(room_data: bytes, sides: list[int], version: int) -> tuple[bool, bytes, str]:
    """(True, the undone room encoded, "") or (False, refusal code, its sentence)."""
    from server.rooms import judge as rooms
    from server.rooms import protocol as P
    from server.rooms.room import Context, Position, Refused, encode_room
    from server.rooms.stored import decode_room

    room = decode_room(room_data)
    try:
        done = rooms.undo(
            room, Position(room), P.Undo(room=room.id, version=version), Context(sides)
        )
    except Refused as r:
        return False, r.code.encode(), r.message
    return True, encode_room(done.room), ""


def _worker_start(node: int) -> None:
    """Each replay worker: it gives way to the node, nice 19 (not the idle class the computer
    uses, which a saturated machine would starve, leaving every replay to time out as busy);
    and it ends when its node is gone. A pool's workers outlive a SIGKILLed node (they wait on
    a queue nobody feeds): one afternoon of tests left 262 of them running."""
    import contextlib
    import os
    import threading
    import time

    with contextlib.suppress(OSError, AttributeError):
        os.nice(19)

    def orphaned() -> None:
        while os.getppid() == node:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, name="orphaned", daemon=True).start()


def _warm() -> None:
    import engine  # noqa: F401
    from engine import records  # noqa: F401
    from server.rooms import view  # noqa: F401


# ---------------------------------------------------------------- the pool (in the node)


class Offload:
    def __init__(
        self,
        workers: int = 1,
        queue: int = 4,
        per_address: int = 2,
        cache_bytes: int = 8 * 1024 * 1024,
    ):
        self.workers = max(1, workers)
        self.capacity = self.workers + max(0, queue)
        self.per_address = max(1, per_address)
        self.cache_bytes = cache_bytes
        self.in_flight = 0
        self.by_address: collections.Counter[str] = collections.Counter()
        self.cache: collections.OrderedDict[bytes, tuple[Any, int]] = collections.OrderedDict()
        self.cached_bytes = 0
        self.hits = self.runs = self.refused = 0
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start,
                initargs=(os.getpid(),),  # the node: it may be gone before a worker starts
            )
        return self._pool

    def warm(self) -> None:
        """Start the workers now (a second or so), not on the first request."""
        pool = self._executor()
        for _ in range(self.workers):
            pool.submit(_warm)

    async def run(
        self,
        address: str,
        job: Callable[..., Any],
        *args: Any,
        cache_key: bytes | None = None,
        size: Callable[[Any], int] | None = None,
    ) -> Any:
        """``job(*args)`` in a worker; its answer cached under ``cache_key`` if given."""
        if cache_key is not None:
            key = hashlib.sha256(job.__name__.encode() + b"\0" + cache_key).digest()
            hit = self.cache.get(key)
            if hit is not None:
                self.cache.move_to_end(key)
                self.hits += 1
                return hit[0]
        if self.in_flight >= self.capacity or self.by_address[address] >= self.per_address:
            self.refused += 1
            raise Busy()
        self.in_flight += 1
        self.by_address[address] += 1
        try:
            loop = asyncio.get_running_loop()
            try:
                answer = await loop.run_in_executor(self._executor(), job, *args)
            except BrokenProcessPool:  # a worker died (killed, out of memory): a fresh pool
                log.warning("replay worker died; starting a new pool")
                self.close()
                raise Busy() from None
            self.runs += 1
        finally:
            self.in_flight -= 1
            self.by_address[address] -= 1
            if not self.by_address[address]:
                del self.by_address[address]
        if cache_key is not None:
            self._remember(key, answer, size(answer) if size else 1024)
        return answer

    def _remember(self, key: bytes, answer: Any, nbytes: int) -> None:
        if nbytes > self.cache_bytes // 4:
            return
        self.cache[key] = (answer, nbytes)
        self.cached_bytes += nbytes
        while self.cached_bytes > self.cache_bytes:
            _, (_, n) = self.cache.popitem(last=False)
            self.cached_bytes -= n

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                # wait=True: a pool left running is woken again at interpreter exit, through
                # a pipe shutdown(wait=False) may already have closed (a traceback at exit)
                pool.shutdown(wait=True, cancel_futures=True)
