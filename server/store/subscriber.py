"""Pub/sub on one master (a single Redis/Valkey, or the master the Sentinels
name): the channels a node listens to, each message handed to the node as
soon as it is parsed.

Every move reaches the nodes of its room as one message here, so this is on
the per-move path. redis-py's ``PubSub`` took about 5 % of a node's CPU per
move at the load bench's closed loop (its listen loop wraps each message in
a retry, a health check, a dict and an await); here a message is one hiredis
parse and one call of ``deliver(channel, data)``. The connection plumbing
(address, TLS, unix socket, AUTH, the Sentinels' master) is ``server.store.resp``'s.

Redis keeps no message for a subscriber that is not connected, so a lost
connection loses notices. When that happens (the store restarted or failed
over, or the PING sent every ``PING_EVERY_S`` went unanswered for the command
deadline: a link dead without a reset) the subscriber connects again with
backoff, subscribes every wanted channel in one write, and once the store has
answered a PING sent after them — all are subscribed by then — calls
``on_resubscribed``: the node re-reads each of its rooms from the store and
sends it (``Fanout.reread_all``). Measured before this repair existed
(tests/bench/chaos.py, a redis-server SIGKILLed and back after 2.5 s): moves
acknowledged just after the store came back reached neither player for
4.6-7.3 s, and in one report for 25 s. (The presence tick closes any other
gap: it compares each room's stored revision with the last one forwarded,
``server/live/presence.py``.) A Cluster has its own subscriber
(``server/store/shardsub.py``) with the same interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import resp
from server.store.resp import Link

log = logging.getLogger("nyumba.subscriber")

PING_EVERY_S = 5.0
BACKOFF_S = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0)  # between attempts to reconnect; then 1 s each


class _Connection(asyncio.Protocol):
    def __init__(self, owner: Subscriber):
        self.owner = owner
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self.pings = 0  # PINGs sent and not yet answered
        self.opened = asyncio.get_running_loop().time()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def write(self, *commands: resp.Packed) -> None:
        if self.transport is not None and not self.lost:
            self.transport.write(b"".join(hiredis.pack_command(c) for c in commands))

    def ping(self) -> None:
        self.pings += 1
        self.write(("PING",))

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        owner = self.owner
        while (reply := self.reader.gets()) is not False:
            if isinstance(reply, list):
                kind = reply[0]
                if kind == b"message":
                    owner.deliver_safely(reply[1], reply[2])
                elif kind == b"pong":
                    self.pings -= 1
                    owner._ponged(self)
                elif kind == b"subscribe":
                    owner._confirmed(reply[1])
            elif isinstance(reply, hiredis.ReplyError):
                owner._refused(self, str(reply))

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.owner._lost(self, exc)


class Subscriber:
    """``await subscribe(channel)`` returns once the store confirms it; every
    message then goes to ``deliver(channel, data)``. ``link`` names the store
    (its URL, deadlines and, under Sentinel, how to find the master); it is
    not used for commands."""

    def __init__(self, link: Link, on_resubscribed: Callable[[], None] | None = None):
        self.link = link
        self.deliver: Callable[[bytes, bytes], None] = lambda channel, data: None
        self.on_resubscribed = on_resubscribed
        self.wanted: set[bytes] = set()
        self._confirming: dict[bytes, list[asyncio.Future[None]]] = {}
        self._conn: _Connection | None = None
        self._connecting: asyncio.Task[_Connection] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._reread_on_pong = False
        self._connected_before = False
        self._closed = False
        self._down_logged = False

    # the interface the node uses --------------------------------------------------------
    async def subscribe(self, *channels: str | bytes) -> None:
        names = [c.encode() if isinstance(c, str) else c for c in channels]
        loop = asyncio.get_running_loop()
        waiting = []
        for name in names:
            self.wanted.add(name)
            fut = loop.create_future()
            self._confirming.setdefault(name, []).append(fut)
            waiting.append(fut)
        try:
            async with asyncio.timeout(self.link.command_timeout):
                conn = await self._connection()
                conn.write(("SUBSCRIBE", *names))
                for fut in waiting:
                    await fut
        except TimeoutError:
            raise RedisTimeoutError(
                f"the store did not confirm a subscription within {self.link.command_timeout:g} s"
            ) from None
        finally:
            for name, fut in zip(names, waiting):
                futs = self._confirming.get(name)
                if futs is not None and fut in futs:
                    futs.remove(fut)
                    if not futs:
                        del self._confirming[name]

    async def unsubscribe(self, *channels: str | bytes) -> None:
        names = [c.encode() if isinstance(c, str) else c for c in channels]
        self.wanted.difference_update(names)
        if self._conn is not None and not self._conn.lost:
            self._conn.write(("UNSUBSCRIBE", *names))

    async def aclose(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self._connecting is not None:
            self._connecting.cancel()
            with contextlib.suppress(BaseException):
                await self._connecting
        if self._conn is not None and self._conn.transport is not None:
            self._conn.transport.close()

    def deliver_safely(self, channel: bytes, data: bytes) -> None:
        try:
            self.deliver(channel, data)
        except Exception:  # one bad message must not take the connection down
            log.exception("a message on %r could not be delivered", channel)

    # the connection -------------------------------------------------------------------
    async def _connection(self) -> _Connection:
        conn = self._conn
        if conn is not None and not conn.lost:
            return conn
        if self._connecting is None or self._connecting.done():
            self._start_connecting()
        assert self._connecting is not None
        return await asyncio.shield(self._connecting)

    def _start_connecting(self, wait_s: float = 0.0) -> None:
        self._connecting = asyncio.get_running_loop().create_task(self._reconnect(wait_s))
        self._connecting.add_done_callback(_seen)

    async def _open(self) -> _Connection:
        host, port = await self.link.address()
        conn = await resp.connect(
            lambda: _Connection(self), dict(self.link.params), self.link.tls, host, port
        )
        auth = resp.auth_command(dict(self.link.params))
        if auth is not None:
            conn.write(auth)
        return conn

    async def _reconnect(self, wait_s: float = 0.0) -> _Connection:
        """Connect (again), with backoff, until it works or the subscriber closes."""
        await asyncio.sleep(wait_s)
        attempt = 0
        while True:
            try:
                conn = await asyncio.wait_for(self._open(), self.link.connect_timeout)
                break
            except (OSError, TimeoutError) as exc:
                if self._closed:
                    raise RedisConnectionError("the subscriber is closed") from exc
                if not self._down_logged:
                    log.warning("pub/sub cannot reach the store (%s); retrying", exc)
                    self._down_logged = True
                await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
                attempt += 1
        self._down_logged = False
        self._conn = conn
        if self.wanted:
            conn.write(("SUBSCRIBE", *self.wanted))
        if self._connected_before:
            log.warning("pub/sub connection re-established; resynchronising rooms")
            self._reread_on_pong = True
            conn.ping()  # answered after every SUBSCRIBE above: then reread
        self._connected_before = True
        self._arm()
        return conn

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(PING_EVERY_S, self._keepalive)

    def _keepalive(self) -> None:
        """PING now and then; a connection that left a PING unanswered this long is dead."""
        conn = self._conn
        if conn is None or conn.lost or self._closed:
            return
        if conn.pings:
            log.warning("pub/sub: the store did not answer a PING; reconnecting")
            if conn.transport is not None:
                conn.transport.abort()  # connection_lost reconnects
            return
        conn.ping()
        self._arm()

    # events from the connection -----------------------------------------------------------
    def _confirmed(self, channel: bytes) -> None:
        for fut in self._confirming.pop(channel, ()):
            if not fut.done():
                fut.set_result(None)

    def _ponged(self, conn: _Connection) -> None:
        if self._reread_on_pong and conn is self._conn:
            self._reread_on_pong = False
            if self.on_resubscribed is not None:
                self.on_resubscribed()

    def _refused(self, conn: _Connection, text: str) -> None:
        log.warning("pub/sub: the store refused a command: %s", text)
        if text.startswith(("NOAUTH", "WRONGPASS", "NOPERM")) and conn.transport is not None:
            conn.transport.close()  # connect again (later) rather than listen to nothing

    def _lost(self, conn: _Connection, exc: Exception | None) -> None:
        if conn is not self._conn or self._closed:
            return
        self._conn = None
        if self._timer is not None:
            self._timer.cancel()
        log.warning("pub/sub connection lost (%s); reconnecting", exc or "closed by the store")
        if self._connecting is None or self._connecting.done():
            # A connection that ended as soon as it was made (refused credentials): not at once.
            short = asyncio.get_running_loop().time() - conn.opened < 1.0
            self._start_connecting(BACKOFF_S[-1] if short else 0.0)


def _seen(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
