"""One WebSocket connection: what it joined, and sending that never waits.

``serve`` is the socket's receive loop (``/ws`` in ``server/web/app.py``): each
text or binary frame goes to ``Node.handle``; a connection over its message
budget is closed with 1008 (policy violation) after a ``rate-limited`` error.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

import msgspec
from starlette.status import WS_1008_POLICY_VIOLATION, WS_1013_TRY_AGAIN_LATER
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.ops.config import Settings
from server.rooms import protocol as P
from server.rooms.room import Context, Room

SEND_QUEUE = 256  # messages queued for one slow connection before it is dropped


class Conn:
    """One WebSocket connection: the room it joined and the sides it holds.

    Sending never waits. A message is written eagerly: straight to the
    transport (``write_now``, the server's direct write) or, where that cannot
    be, the ASGI send coroutine is started right in ``send`` and, while the
    transport takes data (nearly always), finishes there, with no task, queue or
    future. When the client is
    slow to read, the transport pushes back and the write suspends: a writer
    task then finishes it, and messages sent meanwhile wait in ``pending``, in
    order. More than ``SEND_QUEUE`` waiting means the client cannot keep up: it
    is closed (1013, try again later) and, reconnecting, receives the current state.
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
        "acks_in_state",
        "moves",
        "write_now",
        "rev",
        "session",
        "write_many",
        "held",
        "close_code",
    )

    def __init__(
        self,
        send_raw: Callable[[str], Coroutine[Any, Any, Any]],
        close_raw: Callable[[int, str], Awaitable[Any]] | None = None,
        write_now: Callable[[bytes | str], bool] | None = None,
    ):
        self.id = uuid.uuid4().hex[:12]
        self.send_raw = send_raw
        # The server's direct write (server/web/handshake.py ``write_text``): False when it cannot.
        self.write_now = write_now
        self.close_raw = close_raw
        self.room: str | None = None
        self.sides: list[int] = []
        self.token_hash: str | None = None
        self.pending: collections.deque[bytes | str] | None = None  # None: no write suspended
        self.writer: asyncio.Task | None = None
        self.closing = False
        # The code a close of this socket is to carry: the reader's own close at its end
        # (``serve`` below) says it too, whichever of the two runs first.
        self.close_code: tuple[int, str] = (1000, "")
        self.window_start = 0.0
        self.window_count = 0
        self.window_pings = 0
        self.address = "unknown"  # the client's address (behind a trusted proxy, X-Forwarded-For)
        self.acks_in_state = False  # joined with acks="state": no ack frame for applied moves
        self.moves = False  # joined with states="moves": a move comes as ``moved``, not ``state``
        self.rev = -1  # the room revision of the newest ``state`` sent (states only go forward)
        self.session: str | None = None  # the player's session token (the upgrade's cookie)
        # ``write_now`` for several messages in one write (handshake.py ``write_texts``)
        self.write_many: Callable[[list[bytes | str]], bool] | None = None
        self.held: list[bytes | str] | None = None  # what ``holding`` keeps back meanwhile

    @property
    def who(self) -> str:
        """The key that scopes this person's intent ids."""
        return (self.token_hash or self.id)[:16]

    def members(self, score: int) -> dict[str, int]:
        names = [f"{s}:{self.id}" for s in self.sides] or [f"w:{self.id}"]
        return {n: score for n in names}

    def send(self, data: bytes | str) -> None:
        """Send one text message (``bytes``: already UTF-8, written as they are)."""
        if self.closing:
            return
        if self.held is not None:
            self.held.append(data)
            return
        pending = self.pending
        if pending is not None:  # a write is suspended: queue behind it
            if len(pending) < SEND_QUEUE:
                pending.append(data)
                return
            self.closing = True
            self.close_code = (WS_1013_TRY_AGAIN_LATER, "too slow to keep up")
            pending.clear()
            if self.close_raw is not None:
                asyncio.get_running_loop().create_task(
                    _quietly(self.close_raw(WS_1013_TRY_AGAIN_LATER, "too slow to keep up"))
                )
            return
        if self.write_now is not None and self.write_now(data):
            return  # written
        write = self.send_raw(data.decode() if isinstance(data, bytes) else data)
        try:
            blocked_on = write.send(None)
        except StopIteration:
            return  # written
        except Exception:  # the socket went away; its reader notices too
            self.closing = True
            return
        self.pending = collections.deque()
        self.writer = asyncio.get_running_loop().create_task(self._finish(write, blocked_on))

    async def holding(self, handling: Awaitable[Any], hold: bool = True) -> None:
        """Await ``handling`` (an intent's), holding back what is sent to this socket meanwhile,
        then write it in one go: a move's state and its ack leave in one write, not two. A
        socket whose state is its ack (acks "state") has nothing to hold: one frame a move."""
        if self.acks_in_state or not hold or self.held is not None:
            await handling
            return
        self.held = []
        try:
            await handling
        finally:
            held, self.held = self.held, None
            if len(held) > 1 and self.pending is None and not self.closing:
                if self.write_many is not None and self.write_many(held):
                    held = []
            for data in held:
                self.send(data)

    def send_msg(self, message: msgspec.Struct) -> None:
        self.send(P.encode(message))

    def send_state(self, rev: int, data: bytes, resync: bool = False) -> None:
        """Send the ``state`` of room revision ``rev``, unless a newer one was sent already:
        on one socket states only go forward (a resend's answer is followed by the current
        state, read while another node's newer one may already have been forwarded). A
        ``resync`` state (the store went back in time) is sent whatever came before."""
        if rev < self.rev and not resync:
            return
        self.rev = rev
        self.send(data)

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
                data = pending.popleft()
                await self.send_raw(data.decode() if isinstance(data, bytes) else data)
        except Exception:  # the socket went away
            self.closing = True
        finally:
            write.close()
            if self.pending is pending:
                self.pending = None
                self.writer = None

    def close_soon(self, code: int, reason: str) -> None:
        """Close once what was sent so far is written."""
        if self.close_raw is None or self.closing:
            return
        close_raw = self.close_raw

        async def after_flush() -> None:
            await self.flushed()
            self.closing = True
            self.close_code = (code, reason)
            await close_raw(code, reason)

        asyncio.get_running_loop().create_task(_quietly(after_flush()))

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


class Budget:
    """The message budgets: per socket, per socket's pings, and per client address
    across all its sockets on this node."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.by_address: dict[str, list[float]] = {}  # address -> [window start, messages]

    def over(self, conn: Conn, ping: bool = False) -> bool:
        """Count one message against the socket's window and its address's (fixed
        windows). Pings count too, against a small allowance of their own: a
        browser pings every few seconds, and two sockets pinging as fast as they
        could (24,000 pongs/s, measured on main when pings were exempt) took
        another room's p99 move round trip from 4.5 ms to 2.4 s."""
        now = time.monotonic()
        window = self.settings.rate_window_ms / 1000
        if now - conn.window_start >= window:
            conn.window_start, conn.window_count, conn.window_pings = now, 0, 0
        spent = self.by_address.get(conn.address)
        if spent is None or now - spent[0] >= window:
            if len(self.by_address) > 4096:  # forget ended windows now and then
                self.by_address = {a: w for a, w in self.by_address.items() if now - w[0] < window}
            spent = self.by_address[conn.address] = [now, 0]
        spent[1] += 1
        if spent[1] > self.settings.rate_messages_per_address:
            return True
        if ping:
            conn.window_pings += 1
            return conn.window_pings > self.settings.rate_pings
        conn.window_count += 1
        # One connection holding both seats (a local room) plays for two people.
        return conn.window_count > self.settings.rate_messages * max(1, len(conn.sides))


class Host(Protocol):
    """What ``serve`` needs of the node that holds the socket (``server/live/node.py``)."""

    node_id: str
    settings: Settings

    async def handle(self, conn: Conn, data: bytes | str) -> bool: ...

    async def detach(self, conn: Conn) -> None: ...

    def in_lobby(self, conn: Conn) -> bool: ...


async def serve(ws: WebSocket, conn: Conn, node: Host) -> None:
    """Read the socket's frames until it closes; answer each through the node.
    A socket that does not join within the join deadline is closed (1008): it
    does not keep its slot of the address's sockets."""
    # The node that serves this socket (server/run/workers.py: one of several on the port).
    await ws.accept(headers=[(b"x-nyumba-node", node.node_id.encode())])
    loop = asyncio.get_running_loop()
    join_by = loop.time() + node.settings.join_deadline_ms / 1000
    # Once joined, frames are read past Starlette's receive (server/web/handshake.py)
    next_message = ws.scope.get("extensions", {}).get("nyumba.next_message")
    try:
        while not conn.closing:
            if conn.room is None:
                # A lobby's socket joins no room (server/live/lobby.py): no deadline for it.
                wait = None if node.in_lobby(conn) else max(0.0, join_by - loop.time())
                try:
                    message = await asyncio.wait_for(ws.receive(), wait)
                except TimeoutError:
                    conn.send_msg(P.error("not-joined", "Join a room first; closing."))
                    await conn.flushed()
                    await ws.close(code=WS_1008_POLICY_VIOLATION, reason="no join")
                    break
            elif next_message is not None:
                message = next_message()
                while isinstance(message, asyncio.Future):
                    await message
                    message = next_message()
            else:
                message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("text")
            if data is None:  # a binary frame: read as UTF-8 JSON too
                data = message.get("bytes") or b""
            if not await node.handle(conn, data):
                conn.send_msg(P.error("rate-limited", "Too many messages; closing."))
                await conn.flushed()
                await ws.close(code=WS_1008_POLICY_VIOLATION, reason="rate limit")
                break
    except WebSocketDisconnect:
        pass
    finally:
        await node.detach(conn)
        with contextlib.suppress(Exception):
            await ws.close(*conn.close_code)


def context(
    conn: Conn | None,
    settings: Settings,
    now_ms: int,
    presence: dict[int, tuple[bool, int]],
    prepared: Room | None,
    player: str | None,
    address: str | None,
    pair_rated_today: int,
) -> Context:
    """What an intent from ``conn`` (None: the node's own, or a join, which names its
    ``player`` and ``address``) is judged with besides the room (``pair_rated_today``:
    server/live/pairs.py)."""
    return Context(
        sides=conn.sides if conn else [],
        who=conn.who if conn and conn.sides else None,
        now_ms=now_ms,
        presence=presence,
        absent_ms=settings.absent_ms,
        prepared=prepared,
        player=player,
        address=address or (conn.address if conn else None),
        same_address_rated=settings.rated_same_address,
        pair_rated_today=pair_rated_today,
        pair_daily=settings.rated_pair_daily,
    )
