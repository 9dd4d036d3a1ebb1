"""One server node: its connections, its share of the rooms' fan-out, the
presence it refreshes, and the computer seats it plays.

A message's way (DESIGN.md): decode once → guards (in ``rooms``) → one
compare-and-set in the store, which publishes → every node with connections
in the room forwards the published ``state`` to them. Nothing a node keeps in
memory is needed by another node: rooms, presence, timers and leases live in
the store.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import msgspec
from redis.exceptions import RedisError

from server import collector, health, metrics, resync
from server import protocol as P
from server import rooms as R
from server.computer import Busy as ComputerBusy
from server.computer import Computer
from server.computer_link import RemoteComputer
from server.config import Settings
from server.offload import Busy as OffloadBusy
from server.offload import Offload, undo_job
from server.store import (
    Notice,
    Store,
    decode_notice,
    encode_notice,
    presence_by_side,
    watchers,
)

log = logging.getLogger("nyumba.node")

SEND_QUEUE = 256  # messages queued for one slow connection before it is dropped
TICK_BATCH = 50  # rooms refreshed per store round trip


def now_ms() -> int:
    return int(time.time() * 1000)


class _Moved(Exception):
    """The room changed after an off-loop computation started from it."""


class AlreadyApplied(Exception):
    """A resent intent: answered with its original ack, not applied again."""

    def __init__(self, version: int):
        self.version = version


class Conn:
    """One WebSocket connection: the room it joined and the sides it holds.

    Sending never waits. A message is written eagerly: the ASGI send coroutine
    is started right in ``send`` and, while the transport takes data (nearly
    always), finishes there, with no task, queue or future. When the client is
    slow to read, the transport pushes back and the write suspends: a writer
    task then finishes it, and messages sent meanwhile wait in ``pending``, in
    order. More than ``SEND_QUEUE`` waiting means the client cannot keep up: it
    is closed (1013) and, reconnecting, receives the current state.
    """

    __slots__ = (
        "id",
        "send_raw",
        "close_raw",
        "room",
        "sides",
        "token_hash",
        "pending",
        "writer",
        "closing",
        "window_start",
        "window_count",
        "window_pings",
        "address",
    )

    def __init__(
        self,
        send_raw: Callable[[str], Coroutine[Any, Any, Any]],
        close_raw: Callable[[int, str], Awaitable[Any]] | None = None,
    ):
        self.id = uuid.uuid4().hex[:12]
        self.send_raw = send_raw
        self.close_raw = close_raw
        self.room: str | None = None
        self.sides: list[int] = []
        self.token_hash: str | None = None
        self.pending: collections.deque[str] | None = None  # None: no write suspended
        self.writer: asyncio.Task | None = None
        self.closing = False
        self.window_start = 0.0
        self.window_count = 0
        self.window_pings = 0
        self.address = (
            "unknown"  # the client's address (behind a trusted proxy, its X-Forwarded-For)
        )

    @property
    def who(self) -> str:
        """The key that scopes this person's intent ids."""
        return (self.token_hash or self.id)[:16]

    def members(self, score: int) -> dict[str, int]:
        names = [f"{s}:{self.id}" for s in self.sides] or [f"w:{self.id}"]
        return {n: score for n in names}

    def send(self, data: bytes | str) -> None:
        if self.closing:
            return
        text = data.decode() if isinstance(data, bytes) else data
        pending = self.pending
        if pending is not None:  # a write is suspended: queue behind it
            if len(pending) < SEND_QUEUE:
                pending.append(text)
                return
            self.closing = True
            pending.clear()
            if self.close_raw is not None:
                asyncio.get_running_loop().create_task(
                    _quietly(self.close_raw(1013, "too slow to keep up"))
                )
            return
        write = self.send_raw(text)
        try:
            blocked_on = write.send(None)
        except StopIteration:
            return  # written
        except Exception:  # the socket went away; its reader notices too
            self.closing = True
            return
        self.pending = collections.deque()
        self.writer = asyncio.get_running_loop().create_task(self._finish(write, blocked_on))

    def send_msg(self, message: msgspec.Struct) -> None:
        self.send(P.encode(message))

    async def _finish(self, write: Coroutine[Any, Any, Any], blocked_on: Any) -> None:
        """Drive a suspended write to its end (as a task would have), then the
        messages queued behind it."""
        pending = self.pending
        try:
            while True:
                if blocked_on is None:  # a bare yield: give the loop one turn
                    await asyncio.sleep(0)
                else:
                    await blocked_on  # the future the write waits for
                try:
                    blocked_on = write.send(None)
                except StopIteration:
                    break
            while pending and not self.closing:
                await self.send_raw(pending.popleft())
        except Exception:  # the socket went away
            self.closing = True
        finally:
            write.close()
            if self.pending is pending:
                self.pending = None
                self.writer = None

    async def flushed(self) -> None:
        """Wait until what was sent so far is written (or the socket is gone)."""
        if self.writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.writer)

    async def stop(self) -> None:
        """No more sending: drop what waits and wait for a write under way to end."""
        self.closing = True
        writer = self.writer
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer


async def _quietly(awaitable: Awaitable[Any]) -> None:
    with contextlib.suppress(Exception):
        await awaitable


class Node:
    def __init__(self, settings: Settings, store: Store):
        self.settings = settings
        self.store = store
        self.node_id = uuid.uuid4().hex[:12]
        if settings.worker is not None:  # under --workers: say which (server/workers.py)
            self.node_id = f"w{settings.worker}-{self.node_id[:8]}"
        self.computer: Computer | RemoteComputer
        if settings.computer_fd is not None:  # the supervisor's computer, shared by its workers
            self.computer = RemoteComputer(settings.computer_fd)
        else:
            self.computer = Computer(settings.computer_workers)
        self.local: dict[str, set[Conn]] = {}  # room -> its connections on this node
        self.created: dict[str, int] = {}  # room -> created ms (for expiry)
        self.last_rev: dict[str, int] = {}  # room -> newest revision forwarded
        self.presence_seen: dict[str, dict] = {}  # room -> presence summary last forwarded
        self.computer_side: dict[str, int | None] = {}
        self.cache: dict[str, tuple[R.Room, list]] = {}  # room -> (room, presence entries)
        self.thinking: set[str] = set()  # rooms whose computer seat a task is playing
        self.recheck: set[str] = set()  # ... and whose turn came again meanwhile
        self.pubsub = store.pubsub()
        if isinstance(self.pubsub, resync.ResubscribingPubSub):  # (a Cluster's resyncs itself)
            self.pubsub.on_resubscribed = self._resync_all
        self._tasks: list[asyncio.Task] = []
        self._rebuilds: set[str] = set()
        self._ticks = 0
        self.offload: Offload | None = None  # the replay pool, set by the app
        self.clock_offset_ms = 0  # the store's clock minus this node's (sync_clock)
        self._address_window: dict[str, list] = {}  # address -> [window start, messages]

    # lifecycle ---------------------------------------------------------------
    async def start(self) -> None:
        with contextlib.suppress(RedisError):
            await self.sync_clock()
        await self.pubsub.subscribe(self.store.node_channel(self.node_id))
        collector.configure()
        self._tasks = [
            asyncio.create_task(self._listen(), name="pubsub"),
            asyncio.create_task(self._ticker(), name="tick"),
            asyncio.create_task(collector.run_young_passes(), name="gc-young"),
            asyncio.create_task(collector.run_full_passes(self.settings.gc_full_s), name="gc"),
        ]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        self.computer.close()

    # the clock -----------------------------------------------------------------
    def now(self) -> int:
        """Milliseconds by the store's clock (``TIME``), as this node reckons it.

        Presence expiries, absence windows, hand-overs and room expiry are
        compared across nodes, so they are judged on one clock: a node whose
        own clock was 180 s ahead let its player hand over a *connected*
        opponent's seat (issue 16). Each node measures its offset from the
        store's clock at start and every tick."""
        return now_ms() + self.clock_offset_ms

    async def sync_clock(self) -> None:
        before = time.time()
        seconds, micros = await self.store.redis.time()
        after = time.time()
        store_ms = int(seconds) * 1000 + int(micros) // 1000
        self.clock_offset_ms = store_ms - int((before + after) * 500)

    # expiry ------------------------------------------------------------------
    def expire_at(self, created_ms: int, now: int | None = None) -> int:
        now = self.now() if now is None else now
        return min(created_ms + self.settings.room_ttl_ms, now + self.settings.idle_ttl_ms)

    # the one write path ------------------------------------------------------
    async def mutate(
        self, room_id: str, change: Callable[[R.Room, dict, int], R.Room | None]
    ) -> R.Room:
        """Load, change, compare-and-set; on a lost race re-read and re-judge.

        The first try may judge this node's cached copy of the room (kept for
        rooms with local connections); the compare-and-set refuses it if
        another node wrote since, and the retry reads the store.
        """
        for attempt in range(16):
            cached = self.cache.get(room_id) if attempt == 0 else None
            if cached is not None:
                room, members = cached
            else:
                data, members = await self.store.load(room_id)
                if data is None:
                    raise R.Refused("no-room")
                room = R.decode_room(data)
            now = self.now()
            presence = presence_by_side(members, now)
            try:
                new = change(room, presence, now)
            except (R.Refused, AlreadyApplied):
                if cached is None:
                    raise
                continue  # judged on the cache: judge again on the store's copy
            if new is None or new is room:
                return room
            message = R.state_message(
                new, presence, now, self.settings.absent_ms, watchers(members, now)
            )
            notice = encode_notice(
                Notice(
                    new.rev,
                    "S",
                    P.encode(message),
                    [s.token_hash for s in new.seats],
                    R.computer_to_move(new),
                )
            )
            result = await self.store.cas(
                room_id,
                room.rev,
                new.rev,
                R.encode_room(new),
                self.expire_at(new.created_ms, now),
                notice,
            )
            if result == 0:
                self._cache_put(new, members)
                return new
            self.cache.pop(room_id, None)
            if result == -1:
                raise R.Refused("no-room")
        raise R.Refused("busy")

    def _cache_put(self, room: R.Room, members: list) -> None:
        """Keep the newest copy seen of a room with local connections (a slow
        read must not replace a newer write)."""
        if room.id not in self.local:
            return
        cached = self.cache.get(room.id)
        if cached is None or cached[0].rev <= room.rev:
            self.cache[room.id] = (room, members)

    async def current_state(self, room_id: str) -> tuple[R.Room, P.State, dict] | None:
        """The room, its ``state`` message and its presence by side."""
        data, members = await self.store.load(room_id)
        if data is None:
            self.cache.pop(room_id, None)
            return None
        room = R.decode_room(data)
        self._cache_put(room, members)
        now = self.now()
        presence = presence_by_side(members, now)
        message = R.state_message(
            room, presence, now, self.settings.absent_ms, watchers(members, now)
        )
        return room, message, presence

    # creation ----------------------------------------------------------------
    async def create_room(self, room: R.Room) -> bool:
        return await self.store.create(
            room.id, room.rev, R.encode_room(room), self.expire_at(room.created_ms, room.created_ms)
        )

    # connections -------------------------------------------------------------
    async def detach(self, conn: Conn) -> None:
        await self._leave(conn)
        await conn.stop()

    async def _enter(self, conn: Conn, room: R.Room) -> None:
        conns = self.local.get(room.id)
        if conns is None:
            conns = self.local[room.id] = set()
            await self.pubsub.subscribe(self.store.channel(room.id))
        conns.add(conn)
        self.created[room.id] = room.created_ms
        now = self.now()
        await self.store.touch(
            room.id,
            conn.members(now + self.settings.presence_ttl_ms),
            self.expire_at(room.created_ms, now),
        )
        await self.store.publish(room.id, encode_notice(Notice(room.rev, "P")))

    async def _leave(self, conn: Conn) -> None:
        room_id = conn.room
        if room_id is None:
            return
        conn.room = None
        conns = self.local.get(room_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.local[room_id]
                for d in (
                    self.created,
                    self.last_rev,
                    self.presence_seen,
                    self.computer_side,
                    self.cache,
                ):
                    d.pop(room_id, None)
                self.recheck.discard(room_id)
                with contextlib.suppress(Exception):
                    await self.pubsub.unsubscribe(self.store.channel(room_id))
        with contextlib.suppress(Exception):
            now = self.now()
            # Mark the presence as ended now (kept as "last seen" for the absence timer).
            await self.store.end_presence(room_id, conn.members(now))
            await self.store.publish(room_id, encode_notice(Notice(0, "P")))

    # messages ----------------------------------------------------------------
    def _over_rate(self, conn: Conn, ping: bool = False) -> bool:
        """Count one message against the socket's window and its address's (fixed
        windows). Pings count too, against a small allowance of their own: a
        browser pings every few seconds, and two sockets pinging as fast as they
        could (24,000 pongs/s, measured on main when pings were exempt) took
        another room's p99 move round trip from 4.5 ms to 2.4 s."""
        now = time.monotonic()
        window = self.settings.rate_window_ms / 1000
        if now - conn.window_start >= window:
            conn.window_start, conn.window_count, conn.window_pings = now, 0, 0
        spent = self._address_window.get(conn.address)
        if spent is None or now - spent[0] >= window:
            if len(self._address_window) > 4096:  # forget ended windows now and then
                self._address_window = {
                    a: w for a, w in self._address_window.items() if now - w[0] < window
                }
            spent = self._address_window[conn.address] = [now, 0]
        spent[1] += 1
        if spent[1] > self.settings.rate_messages_per_address:
            return True
        if ping:
            conn.window_pings += 1
            return conn.window_pings > self.settings.rate_pings
        conn.window_count += 1
        # One connection holding both seats (a local room) plays for two people.
        return conn.window_count > self.settings.rate_messages * max(1, len(conn.sides))

    async def handle(self, conn: Conn, data: bytes | str) -> bool:
        """Answer one message. False: the connection must be closed (abuse)."""
        try:
            msg = P.decode(data)
        except msgspec.ValidationError as exc:
            if self._over_rate(conn):
                return False
            conn.send_msg(
                P.error("bad-message", f"The message does not match the protocol: {exc}.")
            )
            return True
        except msgspec.DecodeError:
            if self._over_rate(conn):
                return False
            conn.send_msg(P.error("bad-json"))
            return True
        if self._over_rate(conn, isinstance(msg, P.Ping)):
            return False
        intent = getattr(msg, "id", None)
        started, result = time.perf_counter(), "ok"
        try:
            await self._dispatch(conn, msg)
        except R.Refused as r:
            result = r.code
            conn.send_msg(P.error(r.code, r.message, intent))
            if r.code == "stale" and conn.room is not None:
                current = await self.current_state(conn.room)
                if current is not None:
                    conn.send_msg(current[1])
        except AlreadyApplied as done:  # only moves carry the intent id this answers
            assert intent is not None and conn.room is not None
            result = "duplicate"
            conn.send_msg(P.Ack(id=intent, version=done.version))
            current = await self.current_state(conn.room)
            if current is not None:
                conn.send_msg(current[1])
        except RedisError as exc:  # the store is unreachable: nothing was acknowledged
            result = "store-down"
            health.STORE.failed(exc)  # logged once per outage
            conn.send_msg(P.error("internal", "The store is unreachable; try again.", intent))
        except Exception:  # a bug: say so, keep the connection
            result = "internal"
            log.exception("message %r failed", msg)
            conn.send_msg(P.error("internal", id=intent))
        metrics.intent(str(type(msg).__struct_config__.tag), result, started)
        return True

    async def _dispatch(self, conn: Conn, msg: P.ClientMessage) -> None:
        if isinstance(msg, P.Ping):
            conn.send_msg(P.Pong(n=msg.n))
            return
        if isinstance(msg, P.Join):
            await self._join(conn, msg)
            return
        if conn.room is None:
            raise R.Refused("not-joined")
        if msg.room != conn.room:
            raise R.Refused("wrong-room")
        sides = conn.sides
        if isinstance(msg, P.Move):
            await self._move(conn, msg)
        elif isinstance(msg, P.Resign):
            await self.mutate(conn.room, lambda r, p, n: R.resign(r, sides))
        elif isinstance(msg, P.Undo):
            await self._undo(conn, msg)
        elif isinstance(msg, P.Offer):
            events: list = []

            def change(r, p, n):
                new, ev = R.offer(r, sides, msg.kind)
                events[:] = [ev]
                return new

            await self.mutate(conn.room, change)
            await self._event(conn.room, events)
        elif isinstance(msg, P.Reply):
            events = []

            def change(r, p, n):
                new, ev = R.reply(r, sides, msg.kind, msg.accept)
                events[:] = [ev]
                return new

            await self.mutate(conn.room, change)
            await self._event(conn.room, events)
        elif isinstance(msg, P.HandOver):
            await self.mutate(
                conn.room, lambda r, p, n: R.hand_over(r, sides, p, n, self.settings.absent_ms)
            )
        elif isinstance(msg, P.Reclaim):
            await self.mutate(conn.room, lambda r, p, n: R.reclaim(r, sides))
        elif isinstance(msg, P.Hint):
            await self._hint(conn, msg)
            return
        if msg.id is not None and not isinstance(msg, P.Move):
            await self._replicated(conn.room)
            conn.send_msg(P.Ack(id=msg.id, version=-1))

    async def _hint(self, conn: Conn, msg: P.Hint) -> None:
        assert conn.room is not None  # _dispatch refuses hints before a join
        current = await self.current_state(conn.room)
        if current is None:
            raise R.Refused("no-room")
        room = current[0]
        R.hint_side(room, conn.sides)
        seed = int.from_bytes(
            hashlib.sha256(f"hint:{room.id}:{room.game_no}:{room.version}".encode()).digest()[:8],
            "big",
        )
        try:
            text = await self.computer.hint(
                room.id, room.version, room.game, room.options, room.state, seed, conn.address
            )
        except ComputerBusy:
            raise R.Refused("busy", "The computer is busy; ask again in a moment.") from None
        conn.send_msg(P.HintMove(move=text, version=room.version, id=msg.id))

    async def _undo(self, conn: Conn, msg: P.Undo) -> None:
        """Undo replays the game from its start (14.5 ms at 288 plies, measured on
        main): in the replay pool (server/offload.py), off the event loop, then
        stored with the same compare-and-set as any change."""
        assert conn.room is not None
        room_id, sides = conn.room, conn.sides
        if self.offload is None:
            await self.mutate(room_id, lambda r, p, n: R.undo(r, sides, msg.version))
            return
        for _ in range(8):
            data, _members = await self.store.load(room_id)
            if data is None:
                raise R.Refused("no-room")
            try:
                ok, answer, sentence = await self.offload.run(
                    conn.address, undo_job, data, sides, msg.version
                )
            except OffloadBusy:
                raise R.Refused("busy", "The server is busy; try again in a moment.") from None
            if not ok:
                raise R.Refused(answer.decode(), sentence)
            undone = R.decode_room(answer)

            def change(r: R.Room, p: dict, n: int) -> R.Room:
                if r.rev != undone.rev - 1:
                    raise _Moved()
                return undone

            try:
                await self.mutate(room_id, change)
                return
            except _Moved:  # changed meanwhile: undo the new state instead
                continue
        raise R.Refused("busy")

    def _owner(self, room_id: str) -> str:
        """Whose share of the computer a room's seat uses: its connections' address."""
        for conn in self.local.get(room_id, ()):
            return conn.address
        return room_id

    async def _event(self, room_id: str, events: list) -> None:
        for ev in events:
            if ev is not None:
                await self.store.publish(room_id, encode_notice(Notice(0, "E", P.encode(ev))))

    async def _move(self, conn: Conn, msg: P.Move) -> None:
        assert conn.room is not None  # _dispatch refuses moves before a join
        sides, who = conn.sides, conn.who

        def change(room: R.Room, presence, now):
            done = R.applied_version(room, who, msg.id)
            if done is not None:
                raise AlreadyApplied(done)
            return R.play(room, sides, msg.version, msg.move, msg.id, intent_key=who)

        try:
            new = await self.mutate(conn.room, change)
        except AlreadyApplied:
            await self._replicated(conn.room)  # a resend: its first ack may have timed out
            raise
        await self._replicated(conn.room)
        conn.send_msg(P.Ack(id=msg.id, version=new.version))

    async def _replicated(self, room_id: str) -> None:
        """With ``NYUMBA_ACK_REPLICAS``, an ack waits until that many replicas
        have the room's writes; past the timeout the intent is answered busy
        and the client resends it (an applied intent is found, not re-applied)."""
        s = self.settings
        if s.ack_replicas and not await self.store.replicated(
            room_id, s.ack_replicas, s.ack_timeout_ms
        ):
            raise R.Refused("busy")

    async def _join(self, conn: Conn, msg: P.Join) -> None:
        data, _ = await self.store.load(msg.room)
        if data is None:
            raise R.Refused("no-room")
        room = R.decode_room(data)
        token = msg.token
        sides = R.token_sides(room, token)
        if token and not sides:
            raise R.Refused("bad-token")
        if not sides and conn.room != room.id:
            # Seat holders always get in; visitors only while the room has space.
            now = self.now()
            visitor = f"w:{conn.id}"
            if not await self.store.admit_visitor(
                room.id,
                visitor,
                now + 1,
                now + self.settings.presence_ttl_ms,
                self.settings.sockets_per_room,
            ):
                raise R.Refused("room-full")
            admitted = visitor
        else:
            admitted = None
        new_token = None
        if not token:
            claimed: list = []

            def change(r, p, n):
                got = R.claim_free_seat(r, n)
                if got is None:
                    claimed[:] = []
                    return None
                claimed[:] = [got[1], got[2]]
                return got[0]

            room = await self.mutate(msg.room, change)
            if claimed:
                new_token, side = claimed
                sides = [side]
                if admitted is not None:  # a seat, not a visitor: end the visitor's entry
                    await self.store.end_presence(room.id, {admitted: self.now()})
        if conn.room is not None:
            await self._leave(conn)
        conn.room = room.id
        conn.sides = sides
        held = new_token or token
        conn.token_hash = R.hash_token(held) if held else None
        conn.send_msg(P.Welcome(room=room.id, sides=sides, token=new_token))
        if msg.name is not None and sides:
            name = msg.name
            room = await self.mutate(room.id, lambda r, p, n: R.rename(r, sides, name))
        await self._enter(conn, room)
        if room.mode != "friend":  # computer rooms play it; computer and local rooms give hints
            self.computer.warm(seats=room.mode == "computer", hints=True)
        current = await self.current_state(room.id)
        if current is not None:
            conn.send_msg(current[1])
            self._maybe_computer(room.id, R.computer_to_move(current[0]))

    # fan-out -----------------------------------------------------------------
    async def _listen(self) -> None:
        while True:
            try:
                async for message in self.pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    room_id = self.store.room_of_channel(message["channel"])
                    try:
                        self._on_notice(room_id, decode_notice(message["data"]))
                    except Exception:
                        log.exception("bad notice on %s", room_id)
            except asyncio.CancelledError:
                raise
            except RedisError as exc:
                log.warning("pub/sub connection lost (%s); resubscribing", exc)
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    channels = [self.store.channel(r) for r in self.local]
                    await self.pubsub.subscribe(self.store.node_channel(self.node_id), *channels)
            except Exception:
                log.exception("pubsub listener failed; resubscribing")
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    channels = [self.store.channel(r) for r in self.local]
                    await self.pubsub.subscribe(self.store.node_channel(self.node_id), *channels)

    def _on_notice(self, room_id: str, n: Notice) -> None:
        conns = self.local.get(room_id)
        if not conns:
            return
        if n.kind == "S":
            if n.rev < self.last_rev.get(room_id, -1):
                return
            cached = self.cache.get(room_id)
            if cached is not None and cached[0].rev != n.rev:
                del self.cache[room_id]  # written by another node
            self._forward(room_id, conns, n.rev, n.payload, n.seats, n.computer)
        elif n.kind == "E":
            for conn in list(conns):
                conn.send(n.payload)
        elif n.kind == "P":
            self._schedule_rebuild(room_id)

    def _forward(
        self,
        room_id: str,
        conns: set[Conn],
        rev: int,
        payload: bytes,
        seats: list[str | None],
        computer: int | None,
    ) -> None:
        """Send a room revision's ``state`` to the local connections (telling each
        its sides first if they changed) and let the computer play if it is its turn."""
        self.last_rev[room_id] = rev
        self.computer_side[room_id] = computer
        for conn in list(conns):
            if conn.token_hash is not None:
                sides = [i for i, h in enumerate(seats) if h == conn.token_hash]
                if sides != conn.sides:
                    conn.sides = sides
                    conn.send_msg(P.Welcome(room=room_id, sides=sides))
            conn.send(payload)
        self._maybe_computer(room_id, computer)

    def _resync_all(self) -> None:
        """The subscriptions were re-established: whatever was published while
        they were down is lost, so every local room is sent from the store."""
        for room_id in list(self.local):
            self._schedule_rebuild(room_id)

    def _schedule_rebuild(self, room_id: str) -> None:
        if room_id in self._rebuilds:
            return
        self._rebuilds.add(room_id)
        asyncio.create_task(self._rebuild(room_id))

    async def _rebuild(self, room_id: str) -> None:
        """Re-send the room's state to local connections: presence changed, or
        notices may have been lost (server/resync.py)."""
        try:
            current = await self.current_state(room_id)
        except RedisError as exc:  # the next tick tries again
            health.STORE.failed(exc)
            return
        finally:
            self._rebuilds.discard(room_id)
        conns = self.local.get(room_id)
        if current is None or not conns:
            return
        room, message, presence = current
        if room.rev < self.last_rev.get(room_id, -1):
            return
        self.presence_seen[room_id] = _summary(presence)
        self._forward(
            room_id,
            conns,
            room.rev,
            P.encode(message),
            [s.token_hash for s in room.seats],
            R.computer_to_move(room),
        )

    # housekeeping ------------------------------------------------------------
    async def _ticker(self) -> None:
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
        """Refresh this node's presence and the rooms' idle expiry; notice
        presence that ended elsewhere (a crashed node); resume computer seats
        whose node went away.

        Rooms go in batches of ``TICK_BATCH``, one write and one read each,
        spread over ``spread_s``: the store runs a batch in about a
        millisecond, so no move waits behind the whole node's refresh."""
        if self._ticks % 12 == 0:  # about once a minute: clocks drift slowly
            await self.sync_clock()
        now = self.now()
        score = now + self.settings.presence_ttl_ms
        self._ticks += 1
        prune = self._ticks % 12 == 1  # ended entries: about once a minute
        rooms = list(self.local.items())
        batches = max(1, -(-len(rooms) // TICK_BATCH))
        for start in range(0, len(rooms), TICK_BATCH):
            if start:
                await asyncio.sleep(spread_s / batches)
                now = self.now()
                score = now + self.settings.presence_ttl_ms
            batch = [
                (room_id, conns)
                for room_id, conns in rooms[start : start + TICK_BATCH]
                if self.local.get(room_id) is conns
            ]
            requests = []
            for room_id, conns in batch:
                members: dict[str, int] = {}
                for conn in conns:
                    members.update(conn.members(score))
                requests.append(
                    (room_id, members, self.expire_at(self.created.get(room_id, now), now))
                )
            results = await self.store.touch_many(requests, now if prune else None)
            for (room_id, conns), (alive, entries, rev) in zip(batch, results):
                if not alive:
                    for conn in list(conns):
                        conn.send_msg(P.error("no-room", "The room has expired."))
                    continue
                cached = self.cache.get(room_id)
                if cached is not None:
                    self.cache[room_id] = (cached[0], entries)
                summary = _summary(presence_by_side(entries, now))
                if summary != self.presence_seen.get(room_id):
                    self._schedule_rebuild(room_id)
                elif rev > self.last_rev.get(room_id, -1):  # a notice never came: repair
                    self._schedule_rebuild(room_id)
                self._maybe_computer(room_id, self.computer_side.get(room_id))

    # the computer ------------------------------------------------------------
    def _maybe_computer(self, room_id: str, side: int | None) -> None:
        if side is None or room_id not in self.local:
            return
        if room_id in self.thinking:
            # The task at work may already have looked and be on its way out:
            # it looks again as it leaves, so this turn is not left to the tick.
            self.recheck.add(room_id)
            return
        self.thinking.add(room_id)
        asyncio.create_task(self._play_computer(room_id))

    async def _play_computer(self, room_id: str) -> None:
        lease = self.settings.computer_lease_ms
        try:
            if not await self.store.take_lease(room_id, self.node_id, lease):
                return
            try:
                while True:
                    data, _ = await self.store.load(room_id)
                    if data is None:
                        return
                    room = R.decode_room(data)
                    side = R.computer_to_move(room)
                    if side is None:
                        return
                    seed = int.from_bytes(
                        hashlib.sha256(
                            f"{room.id}:{room.game_no}:{room.version}".encode()
                        ).digest()[:8],
                        "big",
                    )
                    try:
                        text = await self.computer.choose(
                            room.game,
                            room.options,
                            room.state,
                            room.seats[side].level or room.level,
                            seed,
                            self._owner(room_id),
                        )
                    except ComputerBusy:  # the tick asks again
                        log.info("computer busy; %s waits for the next tick", room_id)
                        return
                    await self.store.extend_lease(room_id, lease)
                    try:
                        await self.mutate(
                            room_id,
                            lambda r, p, n: R.play(
                                r, [side], room.version, text, None, by_computer=True
                            ),
                        )
                    except R.Refused as r:
                        # The game changed while the computer thought: drop the answer.
                        log.info("computer move %s in %s dropped: %s", text, room_id, r.code)
                        if r.code not in ("stale", "not-your-turn", "game-over"):
                            return
            finally:
                await self.store.release_lease(room_id, self.node_id)
        except Exception:
            log.exception("computer player failed in %s", room_id)
        finally:
            self.thinking.discard(room_id)
            if room_id in self.recheck:
                self.recheck.discard(room_id)
                self._maybe_computer(room_id, self.computer_side.get(room_id))


def _summary(presence: dict[int, tuple[bool, int]]) -> dict[int, bool]:
    return {side: present for side, (present, _) in presence.items()}
