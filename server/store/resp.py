"""One multiplexed connection to the store, for the per-message path.

Redis answers a connection's commands in the order it received them, so any
number of coroutines can share one connection: each command is queued with a
future, every command queued during one turn of the event loop goes out in a
single write, and replies (parsed by hiredis) resolve the futures in order.
Compared with a pool of request/response connections this saves a pool
checkout, a timeout context and a system call per command, which was a
quarter of the server's time per move.

A lost connection fails the commands in flight with ``ConnectionError``; the
caller's command is then retried on a fresh connection (with backoff, a few
seconds in all). Only idempotent or self-checking commands go through here:
the compare-and-set, retried after it did land, finds its own revision and is
re-judged, never applied twice.

Deadlines: connecting (with AUTH and SELECT) has ``connect_timeout`` seconds;
when the oldest command in flight has waited ``command_timeout`` seconds the
store is taken to be stalled (paused, or a network path that drops packets
without a reset): the connection is aborted and every command in flight fails
with ``TimeoutError``, which is *not* retried, so a caller learns within about
``command_timeout`` that the store is down. The next command connects afresh.
One timer per connection checks the oldest command (replies come in order),
so a deadline costs the hot path only a clock read per command.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import ssl as ssl_module
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.ops import metrics

RETRY_DELAYS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0)  # about 3.5 s before giving up
CONNECT_TIMEOUT = 2.0  # seconds to connect, authenticate and select the database
COMMAND_TIMEOUT = 2.0  # seconds the oldest command may wait before the store counts as stalled

Packed = tuple[Any, ...]  # a command's words: str, bytes, int or float each


def _consume(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()


class _Protocol(asyncio.Protocol):
    def __init__(self, command_timeout: float = COMMAND_TIMEOUT) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()
        # futures awaiting replies, in the order sent, each with the time it was queued
        self.waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self.out: list[bytes] = []
        self.lost: Exception | None = None
        self.loop = asyncio.get_running_loop()
        self.command_timeout = command_timeout
        self._watchdog: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's is not a subclass of asyncio.Transport).
        self.transport = cast(asyncio.Transport, transport)
        self._watch()

    def _watch(self) -> None:
        """Every quarter deadline: abort the connection when its oldest command is overdue."""
        if self.lost is not None:
            return
        if self.waiting and time.monotonic() - self.waiting[0][1] > self.command_timeout:
            self._fail(
                RedisTimeoutError(f"the store did not answer within {self.command_timeout:g} s")
            )
            if self.transport is not None:
                self.transport.abort()
            return
        self._watchdog = self.loop.call_later(self.command_timeout / 4, self._watch)

    def request(self, packed: bytes) -> asyncio.Future[Any]:
        fut = self.loop.create_future()
        if self.lost is not None:
            fut.set_exception(RedisConnectionError(f"store connection lost: {self.lost}"))
            return fut
        if not self.out:
            self.loop.call_soon(self._flush)
        self.out.append(packed)
        self.waiting.append((fut, time.monotonic()))
        return fut

    def _flush(self) -> None:
        if self.out and self.lost is None and self.transport is not None:
            self.transport.write(b"".join(self.out))
        self.out.clear()

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        waiting = self.waiting
        while True:
            reply = self.reader.gets()
            if reply is False:
                return
            if not waiting:  # a reply nobody asked for: the stream is out of step
                if self.transport is not None:
                    self.transport.close()
                return
            fut = waiting.popleft()[0]
            if fut.done():  # its caller was cancelled
                continue
            if isinstance(reply, hiredis.ReplyError):
                text = str(reply)
                # A demoted master (Sentinel failover) refuses writes: reconnect and retry.
                error = ReadOnlyError if text.startswith("READONLY") else ResponseError
                fut.set_exception(error(text))
            else:
                fut.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.lost is None:
            lost = exc or ConnectionResetError("closed by the store")
            self._fail(RedisConnectionError(f"store connection lost: {lost}"))

    def _fail(self, error: Exception) -> None:
        """The connection is done for: every command in flight fails with ``error``."""
        self.lost = error
        if self._watchdog is not None:
            self._watchdog.cancel()
        while self.waiting:
            fut = self.waiting.popleft()[0]
            if not fut.done():
                fut.set_exception(error)


P = TypeVar("P", bound=asyncio.Protocol)


async def connect(
    factory: Callable[[], P], params: dict[str, Any], tls: bool, host: str, port: int
) -> P:
    """A connection to ``host:port`` (or the URL's unix socket) for ``factory``'s protocol."""
    loop = asyncio.get_running_loop()
    if "path" in params:
        _, proto = await loop.create_unix_connection(factory, params["path"])
    else:
        ctx = ssl_module.create_default_context() if tls else None
        _, proto = await loop.create_connection(factory, host, port, ssl=ctx)
    return proto


def auth_command(params: dict[str, Any]) -> Packed | None:
    """The AUTH a URL's credentials ask for, if any."""
    if not params.get("password"):
        return None
    if params.get("username"):
        return ("AUTH", params["username"], params["password"])
    return ("AUTH", params["password"])


async def open_protocol(
    params: dict[str, Any], tls: bool, host: str, port: int, command_timeout: float
) -> _Protocol:
    """A connection to ``host:port``, authenticated and on the URL's database."""
    proto = await connect(lambda: _Protocol(command_timeout), params, tls, host, port)
    setup = []
    auth = auth_command(params)
    if auth is not None:
        setup.append(proto.request(hiredis.pack_command(auth)))
    if params.get("db"):
        select: Packed = ("SELECT", params["db"])
        setup.append(proto.request(hiredis.pack_command(select)))
    try:
        for fut in setup:
            await fut
    except BaseException:
        if proto.transport is not None:
            proto.transport.close()
        raise
    return proto


_ROLE = hiredis.pack_command(("ROLE",))


class Link:
    """``await link.execute("HGET", key, "data")``; scripts by ``script(text)``.

    ``resolve`` (Sentinel) names the address to connect to, asked again at
    every reconnection, so the link follows a failover."""

    def __init__(
        self,
        url: str,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        command_timeout: float = COMMAND_TIMEOUT,
        resolve: Callable[[], Awaitable[tuple[str, int]]] | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
    ):
        self.params = parse_url(url)
        self.tls = url.startswith("rediss://")
        self.connect_timeout = connect_timeout
        self.command_timeout = command_timeout
        self.resolve = resolve
        self.retry_delays = retry_delays
        self._proto: _Protocol | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None

    async def address(self) -> tuple[str, int]:
        """Where to connect now: the URL's host, or the master the Sentinels name."""
        if self.resolve is not None:
            return await self.resolve()
        return self.params.get("host", "localhost"), self.params.get("port", 6379)

    async def _connect(self) -> _Protocol:
        host, port = await self.address()
        proto = await open_protocol(dict(self.params), self.tls, host, port, self.command_timeout)
        if self.resolve is not None and (await proto.request(_ROLE))[0] != b"master":
            # A Sentinel that has not yet heard of a failover names the old master, which may
            # be back as a replica still loading: it would answer reads, and scripts that read
            # before they write, from no data at all (a live room said to have expired).
            if proto.transport is not None:
                proto.transport.close()
            raise RedisConnectionError(f"{host}:{port} is not the master (yet)")
        return proto

    async def _connect_within_deadline(self) -> _Protocol:
        try:
            return await asyncio.wait_for(self._connect(), self.connect_timeout)
        except TimeoutError:
            raise RedisTimeoutError(
                f"the store did not accept a connection within {self.connect_timeout:g} s"
            ) from None

    async def _protocol(self) -> _Protocol:
        proto = self._proto
        if proto is not None and proto.lost is None:
            return proto
        if self._connecting is None:  # one connection attempt shared by every caller
            self._connecting = asyncio.ensure_future(self._connect_within_deadline())
        connecting = self._connecting
        try:
            proto = await asyncio.shield(connecting)
        except OSError as exc:
            raise RedisConnectionError(f"cannot reach the store: {exc}") from exc
        finally:
            if self._connecting is connecting and connecting.done():
                self._connecting = None
        self._proto = proto
        return proto

    async def execute(self, *args: Any) -> Any:
        return (await self._run([hiredis.pack_command(args)]))[0]

    async def execute_many(self, commands: list[Packed]) -> list[Any]:
        """Several commands in one write; their replies in order. After a lost
        connection the whole batch is sent again, so batch only commands that
        may run twice."""
        return await self._run([hiredis.pack_command(c) for c in commands])

    async def _run(self, packed: list[bytes]) -> list[Any]:
        proto = self._proto
        if proto is not None and proto.lost is None:  # connected: the common case, one try
            try:
                return await self._send(proto, packed)
            except (RedisConnectionError, ReadOnlyError):
                if self.resolve is not None:
                    self.close()  # then as below, on a fresh connection (to the master now)
        for delay in self.retry_delays:
            try:
                return await self._send(await self._protocol(), packed)
            except (RedisConnectionError, ReadOnlyError):
                if self.resolve is not None:
                    self.close()  # connect again to whichever server is the master now
                await asyncio.sleep(delay)
        return await self._send(await self._protocol(), packed)

    async def _send(self, proto: _Protocol, packed: list[bytes]) -> list[Any]:
        started = time.perf_counter()
        if len(packed) == 1:
            reply = await proto.request(packed[0])
            metrics.STORE_SECONDS.observe(time.perf_counter() - started)
            return [reply]
        futures = [proto.request(cmd) for cmd in packed]
        try:
            replies = [await fut for fut in futures]
        except BaseException:
            for fut in futures:  # the others' errors count as seen ("never retrieved")
                if fut.done() and not fut.cancelled():
                    fut.exception()
                else:
                    fut.add_done_callback(_consume)
            raise
        metrics.STORE_SECONDS.observe(time.perf_counter() - started)
        return replies

    def script(self, text: str) -> Script:
        return Script(self, text)

    async def load_script(self, text: str) -> None:
        await self.execute("SCRIPT", "LOAD", text)

    def close(self) -> None:
        if self._proto is not None and self._proto.transport is not None:
            self._proto.transport.close()
        self._proto = None


class Script:
    """A Lua script run by its SHA-1, loaded again when the store has forgotten it
    (a restarted store starts with an empty script cache)."""

    def __init__(self, link: Link, text: str):
        self.link = link
        self.text = text
        self.sha = hashlib.sha1(text.encode()).hexdigest()

    async def __call__(self, keys: list[Any], args: list[Any]) -> Any:
        try:
            return await self.link.execute("EVALSHA", self.sha, len(keys), *keys, *args)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self.link.execute("EVAL", self.text, len(keys), *keys, *args)
