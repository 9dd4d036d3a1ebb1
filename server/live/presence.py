"""Presence: which seats have a connection, kept in the store by the nodes
that hold the connections.

Each connection is an entry in the room's presence set whose score is the
time it lasts until refreshed (``presence_ttl_ms``); this node refreshes its
entries every tick, so a crashed node's connections count as gone once their
score passes. A leaving connection's entry is marked ended now and kept as
that side's "last seen" (the absence timer that allows a hand-over counts
from it). The tick also refreshes the rooms' idle expiry, notices presence
that changed elsewhere, and resumes computer seats whose node went away.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server.live.fanout import Fanout, OnTurn, presence_summary
from server.live.local import LocalRoom, StoreClock, room_expiry
from server.ops import health, metrics
from server.rooms import protocol as P
from server.rooms.notice import Notice, NoticeKind, encode_notice
from server.rooms.room import Room
from server.store.store import presence_by_side

if TYPE_CHECKING:
    from server.live.connection import Conn
    from server.ops.config import Settings
    from server.store.store import Store

log = logging.getLogger("nyumba.presence")

TICK_BATCH = 50  # rooms refreshed per store round trip
EXPIRY_WARNING_MS = 10 * 60 * 1000  # a room's connections are told this long before its end
PRUNE_EVERY = 12  # ticks between prunings of ended entries (about a minute)


class Presence:
    """Presence of ``local``'s connections, kept in the store; the tick also sends
    ``fanout`` the rooms to read again and ``on_turn`` the computer's turns."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        local: dict[str, LocalRoom],
        clock: StoreClock,
        fanout: Fanout,
        on_turn: OnTurn,
    ):
        self.settings = settings
        self.store = store
        self.local = local
        self.clock = clock
        self.fanout = fanout
        self.on_turn = on_turn
        self._ticks = 0

    async def enter(self, conn: Conn, room: Room) -> None:
        """``conn`` joined ``room``: count it present and tell the room."""
        local = self.local.get(room.id)
        if local is None:
            local = self.local[room.id] = LocalRoom(room.created_ms)
            metrics.ROOMS_OPEN.set(len(self.local))
            await self.fanout.subscribe(room.id)
        local.conns.add(conn)
        now = self.clock.now()
        await self.store.touch(
            room.id,
            conn.members(now + self.settings.presence_ttl_ms),
            room_expiry(self.settings, room.created_ms, now),
        )
        await self.store.publish(room.id, encode_notice(Notice(room.rev, NoticeKind.PRESENCE)))

    async def leave(self, conn: Conn) -> None:
        """``conn`` left its room (or closed): end its presence and tell the room."""
        room_id = conn.room
        if room_id is None:
            return
        conn.room = None
        local = self.local.get(room_id)
        if local is not None:
            local.conns.discard(conn)
            if not local.conns:
                del self.local[room_id]
                metrics.ROOMS_OPEN.set(len(self.local))
                await self.fanout.unsubscribe(room_id)
        with contextlib.suppress(Exception):
            await self.store.end_presence(room_id, conn.members(self.clock.now()))
            await self.store.publish(room_id, encode_notice(Notice(0, NoticeKind.PRESENCE)))

    async def ticker(self) -> None:
        loop = asyncio.get_running_loop()
        period = self.settings.tick_ms / 1000
        next_at = loop.time() + period
        while True:
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            next_at = max(next_at + period, loop.time())
            try:
                await self.tick(spread_s=period * 0.6)
            except asyncio.CancelledError:
                raise
            except RedisError as exc:  # the tick is skipped; logged once per outage
                health.STORE.failed(exc)
            except Exception:
                log.exception("tick failed")

    async def tick(self, spread_s: float = 0.0) -> None:
        """Refresh this node's presence and its rooms' idle expiry.

        Rooms go in batches of ``TICK_BATCH``, one write and one read each,
        spread over ``spread_s``: the store runs a batch in about a
        millisecond, so no move waits behind the whole node's refresh."""
        if self._ticks % PRUNE_EVERY == 0:  # about once a minute: clocks drift slowly
            await self.clock.sync(self.store)
        now = self.clock.now()
        self._ticks += 1
        prune = self._ticks % PRUNE_EVERY == 1
        rooms = list(self.local.items())
        batches = max(1, -(-len(rooms) // TICK_BATCH))
        for start in range(0, len(rooms), TICK_BATCH):
            if start:
                await asyncio.sleep(spread_s / batches)
                now = self.clock.now()
            score = now + self.settings.presence_ttl_ms
            batch = [(r, h) for r, h in rooms[start : start + TICK_BATCH] if self.local.get(r) is h]
            requests = []
            for room_id, local in batch:
                members: dict[str, int] = {}
                for conn in local.conns:
                    members.update(conn.members(score))
                waits = local.cached is not None and bool(local.cached[0].waiting)
                requests.append(
                    (room_id, members, room_expiry(self.settings, local.created_ms, now, waits))
                )
            node = self.fanout.node_id if self.fanout.listen_ms else ""
            results = await self.store.touch_many(requests, now if prune else None, node)
            for (room_id, local), (alive, entries, rev, stamp) in zip(batch, results):
                if not alive:
                    # Said once, then the sockets close (they were told no-room every tick).
                    for conn in list(local.conns):
                        conn.send_msg(P.error("no-room", "The room has expired."))
                        conn.close_soon(1000, "the room has expired")
                    continue
                left = local.created_ms + self.settings.room_ttl_ms - now
                if left <= EXPIRY_WARNING_MS and not local.warned:
                    local.warned = True
                    for conn in list(local.conns):
                        conn.send_msg(P.Expiring(room=room_id, in_ms=max(0, left)))
                if local.cached is not None:
                    local.cached = (local.cached[0], entries)
                summary = presence_summary(presence_by_side(entries, now))
                if (
                    summary != local.presence_seen
                    or rev != local.last_rev
                    or (stamp and local.last_stamp and stamp != local.last_stamp)
                ):
                    # Presence changed, a notice never came, or the store went back in time.
                    self.fanout.schedule_rebuild(room_id)
                self.on_turn(room_id, local.computer_side)
