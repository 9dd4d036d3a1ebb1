"""Writing finished games to the archive, from the node that finished them, and retrying.

A game's end is a compare-and-set like any move (``Node.change``): the room it stores has
the game in ``Room.waiting`` (``server/rooms/finished.py``), and the same write puts the room in
the store's waiting set (``server/store/waiting.py``), due in ``NYUMBA_ARCHIVE_RETRY_MS``: the
net if this node dies at any moment after. The node that wrote that change hands the room to
``Archiver.ended``, which — never on the move's path, in a task of its own —

1. puts off the room's turn in line by ``NYUMBA_ARCHIVE_RETRY_MS`` and holds the room for its
   idle life and one retry delay more (each try does: a room whose games wait does not expire);
2. makes the game's record (a replay of every move) and writes the game, and its ratings, in
   one transaction (``server/archive/games.py``: written once whoever tries, however often) —
   both in the replay pool, off the event loop (``server/archive/worker.py`` says why);
3. removes it from the room with an ``Archived`` intent (a stored change nobody sees), whose
   compare-and-set takes the room out of line when nothing of it waits.

A database that does not answer stops the task at step 2: the game stays in the room and the
room in the set, and ``sweep`` — every node's, every tick — tries again once it is
due. A join that finds games waiting in a room puts it back in line if it is not (an older
node's write, a set lost with a store): ``server/live/handlers.py``. Two nodes that try the same
room at once both reach step 2; the archive's unique key lets one row in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.exceptions import RedisError

from server.archive import players, worker
from server.archive.db import DOWN, Database
from server.computer.replays import Busy, Offload
from server.live.local import StoreClock
from server.ops import health, metrics
from server.ops.config import Settings
from server.rooms.finished import Archived
from server.rooms.room import Finished, Refused, Room
from server.rooms.stored import decode_room
from server.store import waiting
from server.store.store import Store

log = logging.getLogger("nyumba.archive")

PRUNE_EVERY_S = 3600.0  # retention (server/archive/players.py ``prune``), about this often
RECORDS_AT_ONCE = 2  # games handed to the replay pool at once (its per-address share)
OFFLOAD_WAIT_S = 10.0  # the pool stayed full of others' replays this long: left to the sweep

Change = Callable[..., Awaitable[Any]]


class Archiver:
    """Writes rooms' finished games to ``db``; ``change`` is the node's write path."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        db: Database,
        clock: StoreClock,
        change: Change,
        offload: Callable[[], Offload | None],
    ):
        self.settings = settings
        self.store = store
        self.db = db
        self.clock = clock
        self.change = change
        self.offload = offload
        self.writing: dict[str, asyncio.Task[None]] = {}
        self.again: set[str] = set()  # rooms that ended another game while being written
        self._records = asyncio.Semaphore(RECORDS_AT_ONCE)  # games queue here, not in the pool
        self._slot = 0  # on a Cluster: the first slot whose waiting set the next sweep reads

    def ended(self, room: Room) -> None:
        """``room`` was just stored with a game that waits for the archive."""
        if room.id in self.writing:
            self.again.add(room.id)
            return
        self._start(room.id, room)

    def _start(self, room_id: str, room: Room | None) -> None:
        task = asyncio.get_running_loop().create_task(self._write(room_id, room))
        self.writing[room_id] = task
        metrics.ARCHIVE_WAITING.set(len(self.writing))

    async def _write(self, room_id: str, room: Room | None) -> None:
        try:
            while True:
                await self.archive(room_id, room)
                if room_id not in self.again:
                    return
                self.again.discard(room_id)
                room = None  # read the room again: another game ended meanwhile
        except RedisError as exc:  # the sweep tries again
            health.STORE.failed(exc)
        except Exception:
            log.exception("archiving room %s failed", room_id)
        finally:
            self.writing.pop(room_id, None)
            metrics.ARCHIVE_WAITING.set(len(self.writing))

    async def archive(self, room_id: str, room: Room | None = None) -> bool:
        """Write every game waiting in the room; True when none is left waiting."""
        now, s = self.clock.now(), self.settings
        # Held past the next try (idle life and retry delay apart may be set either way round)
        hold = now + s.idle_ttl_ms + s.archive_retry_ms
        await waiting.retry_later(self.store, room_id, now + s.archive_retry_ms, hold)
        if room is None:
            data, _ = await self.store.load(room_id)
            if data is None:
                await waiting.done(self.store, room_id)
                return True
            room = decode_room(data)
        left, rev = list(room.waiting), room.rev
        for entry in room.waiting:
            if not await self.write(entry):
                return False
            try:
                done = await self.change(room_id, Archived(room_id, entry.game_no, entry.version))
            except Refused:  # the room is gone: its games are in the archive
                await waiting.done(self.store, room_id)
                return True
            left, rev = done.room.waiting, done.room.rev
        if not left:  # its compare-and-set took it out of line; not an older node's entry
            await waiting.done(self.store, room_id, rev)
        return not left

    async def write(self, entry: Finished) -> bool:
        """One game into the archive; False while the database does not answer."""
        if not await self.db.ready() or (
            self.db.down_since is not None and await self.db.ping() is not None
        ):  # down: asked here, so that a worker does not wait out a connection's timeout
            metrics.ARCHIVED.labels("failed").inc()
            return False
        data = msgspec.msgpack.encode(entry)
        now = self.clock.now()
        offload = self.offload()
        if offload is None:  # no pool (the bench's archive layer, tests of the node alone)
            answer = await worker.write(self.db, data, now)
        else:
            offloaded = await self._offloaded(offload, data, now)
            if offloaded is None:
                return False  # the replay pool stayed busy: the sweep tries again
            answer = offloaded
        result, why = answer
        if result == "down":
            self.db.failed(ConnectionError(why))
            metrics.ARCHIVED.labels("failed").inc()
            return False
        self.db.ok()
        metrics.ARCHIVED.labels(result).inc()
        return True

    async def _offloaded(self, offload: Offload, data: bytes, now: int) -> tuple[str, str] | None:
        async with self._records:
            deadline = asyncio.get_running_loop().time() + OFFLOAD_WAIT_S
            while asyncio.get_running_loop().time() < deadline:
                try:
                    answer: tuple[str, str] = await offload.run(
                        "archive", worker.write_job, self.db.configured_url, data, now
                    )
                    return answer
                except Busy:  # full of people's replays: they go first
                    await asyncio.sleep(0.05)
        return None

    async def sweep_forever(self) -> None:
        """Every node: rooms whose games still wait, once they are due; and, about once an
        hour, the retention of players and sessions (docs/privacy.md)."""
        loop = asyncio.get_running_loop()
        pruned = loop.time()
        while True:
            await asyncio.sleep(self.settings.tick_ms / 1000)
            try:
                if loop.time() - pruned > PRUNE_EVERY_S:
                    pruned = loop.time()
                    await self.prune()
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("archive sweep failed")

    async def sweep(self) -> None:
        count = waiting.slices(self.store, self.settings.tick_ms, self.settings.archive_retry_ms)
        first, self._slot = self._slot, (self._slot + count) % waiting.SLOTS
        for room_id in await waiting.due(self.store, self.clock.now(), first, count):
            if room_id not in self.writing:
                self._start(room_id, None)

    async def prune(self) -> None:
        try:
            gone = await players.prune(self.db, self.clock.now())
        except DOWN as exc:
            self.db.failed(exc)
            return
        if gone:
            log.info("retention: %d players nobody can sign in as any more were deleted", gone)

    async def stop(self) -> None:
        tasks = list(self.writing.values())
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
