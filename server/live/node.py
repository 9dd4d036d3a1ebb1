"""One server node: its rooms' write path and the answer to each message.

A message's way (docs/design.md): ``connection.serve`` reads the frame →
``Node.handle`` decodes it once and picks its handler (``server/live/handlers.py``;
an intent goes to ``Node.intent``) →
``Node.change`` loads the room (decoded once), ``rooms.judge`` returns a
``Change``, one compare-and-set stores it and publishes the new ``state``
(encoded once) → every node's ``Fanout`` forwards those bytes to its
connections in the room. Nothing a node keeps in memory is needed by another
node: rooms, kept answers, presence, timers and leases live in the store.

The node's other duties have modules of their own: ``server/live/fanout.py``
(the room channels), ``server/live/presence.py`` (presence and expiry),
``server/live/seats.py`` (playing the computer's seats).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Any

from redis.exceptions import RedisError

from server.archive.db import Database
from server.computer.link import RemoteComputer
from server.computer.pool import Computer
from server.computer.replays import Offload
from server.live import dispatch, pairs, writes
from server.live.archiving import Archiver
from server.live.arena import Arenas
from server.live.arenarounds import Rounds
from server.live.arrivals import Arrivals
from server.live.connection import Budget, Conn, context
from server.live.fanout import Fanout
from server.live.flags import Flags
from server.live.identity import Identities
from server.live.lobby import Lobby
from server.live.local import LocalRoom, StoreClock, room_expiry
from server.live.presence import Presence
from server.live.seats import ComputerSeats
from server.ops import collector, metrics
from server.ops.config import Settings
from server.rooms import delta, stored, tally
from server.rooms import judge as rooms
from server.rooms import protocol as P
from server.rooms.notice import Notice, NoticeKind, encode_notice
from server.rooms.room import Position, Refused, Room
from server.rooms.timing import Flag
from server.rooms.view import state_message
from server.store.deadlines import Deadlines
from server.store.store import Store, presence_by_side, watchers

log = logging.getLogger("nyumba.node")


class Node:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        archive: Database | None = None,
        identities: Identities | None = None,
    ):
        self.settings = settings
        self.store = store
        self.node_id = uuid.uuid4().hex[:12]
        if settings.worker is not None:  # under --workers: say which (server/run/workers.py)
            self.node_id = f"w{settings.worker}-{self.node_id[:8]}"
        self.computer: Computer | RemoteComputer
        if settings.computer_fd is not None:  # the supervisor's computer, shared by its workers
            self.computer = RemoteComputer(settings.computer_fd)
        else:
            self.computer = Computer(settings.computer_workers)
        self.offload: Offload | None = None  # the replay pool, set by the app
        self.budget = Budget(settings)
        self.arrivals = Arrivals(store, self.now, settings)  # opens, joins, visitors per minute
        self.clock = StoreClock()
        self.local: dict[str, LocalRoom] = {}  # rooms with connections on this node
        self.computer_seats = ComputerSeats(
            store, self.local, self.computer, self.node_id, settings.computer_lease_ms, self.change
        )
        turn = self.computer_seats.maybe_play
        listen = settings.idle_ttl_ms if settings.local_fanout else 0
        self.fanout = Fanout(store, self.node_id, self.local, self.current_state, turn, listen)
        self.presence = Presence(settings, store, self.local, self.clock, self.fanout, turn)
        # The archive of finished games and the players' identities (server/archive/)
        self.archiver: Archiver | None = None
        self.identities: Identities | None = None
        if archive is not None:
            offload = lambda: self.offload  # noqa: E731  (set by the app after the node)
            self.archiver = Archiver(settings, store, archive, self.clock, self.change, offload)
            self.identities = identities or Identities(archive, store)
        self._tasks: list[asyncio.Task[None]] = []
        # Clocks and the lobby (server/live/flags.py, server/live/lobby.py)
        self.flags = Flags(Deadlines(store.link, store.prefix), self.change)
        self.lobby = Lobby(
            settings, store, self.node_id, self.create_room, archive, self.identities
        )
        self.flags.judged = self.lobby.judged
        self.arenas = Arenas(
            settings, store, self.node_id, self.create_room, self.now, archive, self.identities
        )
        self.rounds = Rounds(settings, store, self.arenas, archive, self.now)

    # lifecycle ---------------------------------------------------------------
    async def start(self) -> None:
        with contextlib.suppress(RedisError):
            await self.clock.sync(self.store)
        await self.fanout.start()
        collector.configure()
        self._tasks = [
            asyncio.create_task(self.presence.ticker(), name="tick"),
            asyncio.create_task(collector.run_young_passes(), name="gc-young"),
            asyncio.create_task(collector.run_full_passes(self.settings.gc_full_s), name="gc"),
        ]
        if self.archiver is not None:
            self._tasks.append(asyncio.create_task(self.archiver.sweep_forever(), name="archive"))
        self._tasks.append(asyncio.create_task(self.flags.watch(), name="flags"))
        await self.lobby.start()
        await self.arenas.start()
        self._tasks.append(asyncio.create_task(self.rounds.run(), name="arena-rounds"))

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        if self.archiver is not None:
            await self.archiver.stop()
        await self.lobby.stop()
        await self.arenas.stop()
        await self.flags.stop()
        await self.fanout.stop()
        self.computer.close()

    def now(self) -> int:
        """Milliseconds by the store's clock (server/live/local.py ``StoreClock``)."""
        return self.clock.now()

    def expire_at(self, created_ms: int, now: int | None = None) -> int:
        return room_expiry(self.settings, created_ms, self.now() if now is None else now)

    # the one write path ------------------------------------------------------
    async def change(
        self,
        room_id: str,
        intent: Any,
        conn: Conn | None = None,
        room: Room | None = None,
        prepared: Room | None = None,
        player: str | None = None,
        address: str | None = None,
    ) -> rooms.Change:
        """Judge ``intent`` on the room and store what it changed with one
        compare-and-set (which publishes the new ``state``); on a lost race
        re-read and re-judge.

        The first try may judge ``room`` as given or this node's newest copy
        (kept for rooms with local connections); the compare-and-set refuses
        it if another node wrote since. A refusal judged on such a copy is
        judged again on the store's."""
        for attempt in range(16):
            members: list[Any] = []
            known = room if attempt == 0 else None
            # A flag is judged on the store's copy: its watcher indexes the deadline it finds,
            # and a copy a notice has not yet reached would give a later one than the truth.
            here = self.local.get(room_id) if attempt == 0 and type(intent) is not Flag else None
            if known is None and here is not None and here.cached is not None:
                known, members = here.cached
            if known is not None:
                current = known
            else:
                data, members = await self.store.load(room_id)
                if data is None:
                    raise Refused("no-room")
                current = stored.decode_room(data)
            now = self.now()
            presence, watching = self.who_is_here(room_id, members, now)
            today = await pairs.rated_today(self.store, current, now)
            ctx = context(conn, self.settings, now, presence, prepared, player, address, today)
            kept = here.position if here is not None else None  # ``current`` decoded already
            decoded = kept[1] if kept and kept[0] is current else None
            done = rooms.judge(current, intent, ctx, decoded)
            if known is not None and (done.resent or isinstance(done.reply, P.Error)):
                # Judged on a copy that may be old, or of another history: a refusal is judged
                # again on the store's, and so is a kept answer — a resend is answered for what
                # the store has, never for what a copy says (a master that died before its
                # replica got the move took the move with it; the resend then applies it anew).
                continue
            new = done.room
            if new is current:
                return done
            notice = b""  # only an answer was kept: nobody else needs to hear
            board: dict[str, Any] | None = None
            append = False  # a move whose notice the store appends to the room, not rewritten
            layout = self.store.layout  # (the store's flag may change it while this one writes)
            if done.seen:
                pos = done.position or Position(new)
                notice, board, append = delta.notice(
                    current,
                    new,
                    pos,
                    lambda: self._board_before(current),
                    lambda: state_message(
                        new, presence, now, self.settings.absent_ms, watching, pos
                    ),
                    stored.appended(current, new, layout),
                    now,
                )
            result, append = await writes.store(self, current, new, notice, append, now, layout)
            if result == 0:
                new.tail = current.tail + 1 if append else 0
                self.keep(new, members, done.position)
                self.fanout.written(room_id, notice)
                if board is not None and room_id in self.local:
                    self.local[room_id].board = (new.stamp, board)
                metrics.count(tally.changes(current, new))  # this write, and no other, counts
                await pairs.counted(self.store, current, new, now)
                if self.archiver is not None and current.outcome is None and new.waiting:
                    if new.outcome is not None:  # a game ended: off to the archive
                        self.archiver.ended(new)
                if new.arena and current.outcome is None and new.outcome is not None:
                    self.arenas.ended(new)  # this write ended an arena game: scored once
                for event in done.events:
                    await self.store.publish(
                        room_id, encode_notice(Notice(0, NoticeKind.EVENT, P.encode(event)))
                    )
                return done
            if room_id in self.local:
                self.local[room_id].cached = None
                if result == 1 and self.fanout.listen_ms:  # (our write's reply may have been lost)
                    self.fanout.schedule_rebuild(room_id)
                if result == 2:  # the store went back in time: resynchronise the room's sockets
                    self.fanout.schedule_rebuild(room_id)
            if result == -1:
                raise Refused("no-room")
        raise Refused("busy")

    def _board_before(self, room: Room) -> dict[str, Any]:
        """The board of ``room`` as this node last drew it, or drawn now."""
        local = self.local.get(room.id)
        if local is not None and local.board is not None and local.board[0] == room.stamp:
            return local.board[1]
        pos = Position(room)
        return pos.game.board(pos.state)

    def who_is_here(
        self, room_id: str, members: list[Any], now: int
    ) -> tuple[dict[int, tuple[bool, int]], int]:
        """Presence by side and the watchers' count from a room's presence entries, drawn
        once per set of entries while none of them lapses (a move reads the cached room's)."""
        local = self.local.get(room_id)
        memo = local.presence_memo if local is not None else None
        if memo is not None and memo[0] is members and now < memo[1]:
            return memo[2], memo[3]
        presence, watching = presence_by_side(members, now), watchers(members, now)
        if local is not None:
            lapses = min((score for _, score in members if score > now), default=float("inf"))
            local.presence_memo = (members, lapses, presence, watching)
        return presence, watching

    def keep(self, room: Room, members: list[Any], pos: Position | None = None) -> None:
        """Keep the newest copy seen of a room with local connections. A slow read never
        becomes it: not over a newer write, nor after a newer revision's notice was forwarded
        (which dropped the copy: the next change reads the store)."""
        here = self.local.get(room.id)
        if here is None or room.rev < here.last_rev:
            return
        if here.cached is None or here.cached[0].rev <= room.rev:
            here.cached = (room, members)
            here.position = None if pos is None else (room, pos)

    async def current_state(self, room_id: str) -> tuple[Room, P.State, dict[int, Any]] | None:
        """The room, its ``state`` message and its presence by side."""
        data, members = await self.store.load(room_id)
        if data is None:
            if room_id in self.local:
                self.local[room_id].cached = None
            return None
        room = stored.decode_room(data)
        self.keep(room, members)
        now = self.now()
        presence = presence_by_side(members, now)
        message = state_message(
            room, presence, now, self.settings.absent_ms, watchers(members, now)
        )
        local = self.local.get(room_id)
        if local is not None:  # the store's, even older (a late read costs one reread later)
            local.full = (room.rev, room.stamp, message, time.monotonic())
            local.board = (room.stamp, message.board)
        return room, message, presence

    async def send_current(self, conn: Conn) -> None:
        if conn.room is not None:
            current = await self.current_state(conn.room)
            if current is not None:
                conn.send_state(current[0].rev, P.encode(current[1]))

    async def create_room(self, room: Room) -> bool:
        if room.clock is not None:
            await self.flags.index(None, room)
        made = await self.store.create(
            room.id,
            room.rev,
            stored.whole(room, self.store.layout),
            self.expire_at(room.created_ms, room.created_ms),
            room.stamp,
        )
        if made:
            metrics.count(tally.created(room))
        return made

    def in_lobby(self, conn: Conn) -> bool:
        return conn in self.lobby.known or conn in self.arenas.known

    async def detach(self, conn: Conn) -> None:
        await self.lobby.leave(conn)
        await self.arenas.leave(conn)
        await self.presence.leave(conn)
        await conn.stop()

    # messages ----------------------------------------------------------------
    async def handle(self, conn: Conn, data: bytes | str) -> bool:
        """Answer one message (``server/live/dispatch.py``). False: close the connection."""
        return await dispatch.handle(self, conn, data)

    def joined(self, conn: Conn, msg: Any) -> str:
        if conn.room is None:
            raise Refused("not-joined")
        if msg.room != conn.room:
            raise Refused("wrong-room")
        return conn.room

    async def intent(self, conn: Conn, msg: Any) -> None:
        """An intent that changes the room: judged, stored, answered."""
        room_id = self.joined(conn, msg)
        done = await self.change(room_id, msg, conn)
        if isinstance(done.reply, P.Ack):  # a resend too: its first ack may have timed out
            await self._replicated(room_id)
            if (
                conn.acks_in_state
                and isinstance(msg, P.Move)
                and not done.resent
                and not self.settings.ack_replicas  # that ack waits for replicas; the state not
            ):
                # The state this move made acknowledges it (its last.id is the move's id) and
                # reaches this connection like every state: one frame fewer per move.
                return
        await self.answer(conn, done)

    async def _replicated(self, room_id: str) -> None:
        """With ``NYUMBA_ACK_REPLICAS``, an ack waits until that many replicas
        have the room's writes; past the timeout the intent is answered busy
        and the client resends it (an applied intent is found, not re-applied)."""
        s = self.settings
        if s.ack_replicas and not await self.store.replicated(
            room_id, s.ack_replicas, s.ack_timeout_ms
        ):
            raise Refused("busy")

    async def answer(self, conn: Conn, done: rooms.Change) -> None:
        if done.reply is None:
            return
        conn.send_msg(done.reply)
        stale = isinstance(done.reply, P.Error) and done.reply.code == "stale"
        if stale or done.resent:  # the sender's view may be behind: bring it up to date
            await self.send_current(conn)
