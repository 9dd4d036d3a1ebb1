"""Connection-level guards: deadlines for connections that have not said
what they want, a close that reaches a client that reads slowly, and a
lingering close after an answer given before the body had arrived.

uvicorn's HTTP protocol (h11) times out an idle keep-alive connection, but a
new connection that sends nothing, or dribbles its request head a byte at a
time, is held open for as long as the client likes: measured on main, such
connections stayed 30 s+ and, with 1,024 file descriptors, one address
holding them blocked every new visitor (health checks too). Here a request
head must be complete within ``HEAD_TIMEOUT_S`` of the connection (or of the
previous response on a kept-alive one); otherwise the connection is closed.
A WebSocket's first message (the join) has a deadline of its own (the
socket endpoint).

An answer given before the request's body has all arrived (a 413 for a body
over the cap) ends in a lingering close, as nginx's does: closing a socket
with data still unread makes the kernel send a reset, which can cost the
client the answer it has not read yet (on main, an upload that stops once
answered, tests/server/web/test_http_linger.py: the answer, then a reset, 20
times in 20). Here the node half-closes after the answer (the client reads
it, then an end of stream), reads and drops what the client still sends, up
to ``LINGER_BYTES`` (then it stops reading: the rest waits in the kernel),
and closes when the client is done, or after ``LINGER_S``.

What uvicorn and websockets answer by themselves is a problem document too, as every HTTP
error of the app is (``server/web/httpguard.py``): a request h11 cannot parse (400
``bad-http``), and an upgrade websockets refuses (400 ``bad-upgrade``: no
``Sec-WebSocket-Key``, a version other than 13 …) — both wrote a line of plain text.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import http
import ipaddress
import json
import logging
import weakref
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.http11 import Response as HandshakeResponse
from websockets.server import ServerProtocol

from server.web.httpguard import excerpt

log = logging.getLogger("nyumba.handshake")

HEAD_TIMEOUT_S = 10.0
LINGER_S = 2.0  # a few round trips for the client to read the answer and stop sending
LINGER_BYTES = 1 << 20  # about what a link has in flight when the answer lands; then no reading

# Open connections per peer address that is not a trusted proxy, for the per-peer cap: a
# flood of connections is closed at accept, before any parsing. (Behind a proxy the peer is
# the proxy; the per-address socket cap in server/live/addrcap.py counts the real client.)
_peers: collections.Counter[str] = collections.Counter()
_counted: dict[object, str] = {}  # transport -> its peer, while counted


def _trusted(allowed: list[str] | str, host: str) -> bool:
    entries = [a.strip() for a in allowed.split(",")] if isinstance(allowed, str) else allowed
    for entry in entries:
        if entry == "*" or entry == host:
            return True
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                return True
    return False


def _uncount(transport: object) -> None:
    host = _counted.pop(transport, None)
    if host is not None:
        _peers[host] -= 1
        if _peers[host] <= 0:
            del _peers[host]


# What an upgrade websockets (or uvicorn) refused is called, by status.
REFUSED = {400: "bad-upgrade", 403: "forbidden", 426: "upgrade-required", 500: "internal"}


def problem_body(code: str, message: str) -> bytes:
    return json.dumps({"code": code, "message": excerpt(message, 300)}).encode()


class _ProblemServerProtocol(ServerProtocol):
    """websockets' server side, answering a refused handshake with a problem document
    instead of a line of text (every refusal goes through ``reject``: websockets' own, and
    uvicorn's 400, 403 and 500)."""

    def reject(self, status: Any, text: str) -> HandshakeResponse:
        response = super().reject(status, text)
        code = REFUSED.get(response.status_code, "bad-upgrade")
        body = problem_body(code, text.strip() or http.HTTPStatus(response.status_code).phrase)
        headers = response.headers
        del headers["Content-Type"], headers["Content-Length"]
        headers["Content-Type"] = "application/json"
        headers["Content-Length"] = str(len(body))
        return dataclasses.replace(response, body=body)


class _CycleTransport:
    """The transport as uvicorn's request cycle sees it: its close after an answer that says
    ``Connection: close`` lingers while the request's body is still arriving. It holds its
    protocol weakly: the protocol holds the cycle, and a node collects reference cycles only
    every ``NYUMBA_GC_FULL_S`` (server/ops/collector.py), so each connection's buffers would wait
    that long (measured: the abuse bench's node grew 14 MiB in 36 s)."""

    def __init__(self, protocol: GuardedH11):
        self.write = protocol.transport.write
        self.is_closing = protocol.transport.is_closing
        self._protocol = weakref.ref(protocol)

    def close(self) -> None:
        protocol = self._protocol()
        if protocol is not None:
            protocol.close_after_answer()


class GuardedH11(H11Protocol):
    """h11 with a deadline on every request head, and a lingering close."""

    head_timeout_s = HEAD_TIMEOUT_S
    peer_cap: int | None = None  # open connections per untrusted peer (cli.py sets it)
    _head_timer: asyncio.TimerHandle | None = None
    _linger_timer: asyncio.TimerHandle | None = None  # set while lingering
    _dropped = 0  # bytes read and dropped while lingering

    def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if (
            self.peer_cap is not None
            and host
            and not _trusted(self.config.forwarded_allow_ips, host)
        ):
            if _peers[host] >= self.peer_cap:
                transport.close()  # nothing parsed, nothing answered
                return
            _peers[host] += 1
            _counted[transport] = host
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_overdue)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_overdue(self) -> None:
        self._head_timer = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if transport.get_protocol() is not self:  # upgraded to a WebSocket meanwhile
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered
        log.info("closing %s: no complete request head in %.0f s", self.client, self.head_timeout_s)
        transport.close()

    def data_received(self, data: bytes) -> None:
        if self._linger_timer is None:
            super().data_received(data)
            return
        self._dropped += len(data)
        if self._dropped > LINGER_BYTES:
            # Enough read for nothing; closing on the rest would send the reset now, while
            # the client may not have read the answer: the rest waits in the kernel instead.
            self.flow.pause_reading()

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before or self.transport.get_protocol() is not self:
            self._disarm()  # a whole request head arrived (or the socket was upgraded)
            if self.cycle is not before and self.cycle is not None:
                self.cycle.transport = _CycleTransport(self)  # type: ignore[assignment]

    def close_after_answer(self) -> None:
        if self.conn.their_state is h11.SEND_BODY:
            self._linger()
        else:
            self.transport.close()

    def _linger(self) -> None:
        """Answered before the body ended: half-close and drop what still arrives, rather than
        read all 50 MiB of it, or close on unread data (a reset)."""
        if self._linger_timer is not None or self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        self._disarm()
        self._linger_timer = self.loop.call_later(LINGER_S, self.transport.close)
        if self.transport.can_write_eof():
            self.transport.write_eof()  # sent once the answer is: the client reads it, then EOF
        self.flow.resume_reading()  # uvicorn pauses reading a body nobody reads

    def on_response_complete(self) -> None:
        if self.conn.their_state is h11.SEND_BODY:
            self._linger()  # an answer that kept the connection alive, as a 403 does
        if self._linger_timer is not None:
            self.server_state.total_requests += 1
            return
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's head has the same deadline

    def send_400_response(self, msg: str) -> None:
        """A request h11 could not parse: a problem document, as every other refusal."""
        body = problem_body("bad-http", msg)
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        headers.append((b"content-length", str(len(body)).encode()))
        for event in (h11.Response(status_code=400, headers=headers), h11.Data(data=body)):
            self.transport.write(self.conn.send(event))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
        _uncount(self.transport)
        super().connection_lost(exc)


class _Inbox(asyncio.Queue):  # type: ignore[type-arg]
    """uvicorn's queue of a socket's ASGI messages, which also wakes the one ``waiter``
    (``GuardedWebSocket.next_message``) without a coroutine in between."""

    waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        super().put_nowait(item)
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, with a close that reaches a slow reader.

    The node closes a client that has fallen 256 messages behind with 1013
    ("try again later": reconnect and get the current state). uvicorn's
    ``send`` first waits until the transport takes data again, which for a
    client that is not reading is never: the close was not sent, and the
    keepalive cut the socket with 1011 some 40 s later (measured on main).
    Here a close while the transport is paused is queued behind what the
    transport already holds, at once; the client reads it after the backlog,
    and the socket is dropped if it has not read that far within
    ``slow_close_s``.

    A closed socket is freed by reference counting, at once. A node collects
    reference cycles only in its full pass, every ``NYUMBA_GC_FULL_S``
    (server/ops/collector.py), and each WebSocket used to leave two cycles behind
    (found in a serving node by tests/bench/cycles.py: a census of the
    collector's middle generation, ``gc.DEBUG_SAVEALL``, the referents of one
    object; tests/server/web/test_connection_garbage.py holds them broken):

    * this protocol → its ASGI scope → the scope's extensions → the bound
      methods ``write_text`` and ``next_message`` → this protocol: about 38
      objects a socket (the protocol, its queue, transport, the Starlette
      WebSocket, headers). ``run_asgi`` removes the two entries when the app
      returns;
    * websockets' ``ServerProtocol`` → its ``parser``, a generator whose frame
      holds the ``ServerProtocol``: the parser never finishes (past the end of
      the stream it waits at a last ``yield``), and uvicorn does not end it;
      about 14 objects a socket (the reader, its buffers, the close frame).
      ``connection_lost`` closes the parser.

    2,000 connect-join-close cycles grew the collector's middle generation by
    104,670 objects, 27,944 with the first cycle broken, none with both. In the
    churn bench (tests/bench/churn.py) a node grew by 16.8 KiB a join before,
    462 to 791 MiB over 20,000 joins; with both broken, 54 to 57 MiB, and as
    much over 100,000.
    """

    slow_close_s = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = self.inbox = _Inbox()
        # The class, not an attribute: a method kept on the instance would hold it in a
        # reference cycle until the full collection (tests/server/web/test_connection_garbage.py).
        self.conn.__class__ = _ProblemServerProtocol

    async def run_asgi(self) -> None:
        extensions: dict[str, Any] = self.scope.setdefault("extensions", {})  # type: ignore[assignment]
        extensions["nyumba.write_text"] = self.write_text
        extensions["nyumba.write_texts"] = self.write_texts
        extensions["nyumba.next_message"] = self.next_message
        try:
            await super().run_asgi()
        finally:  # they hold this protocol, which holds the scope: a cycle
            del extensions["nyumba.write_text"], extensions["nyumba.next_message"]
            del extensions["nyumba.write_texts"]

    def next_message(self) -> Any:
        """The next ASGI message, or a future that is done once one is queued (then ask
        again), as uvicorn's ``receive`` gives it, resuming a paused transport alike. A
        socket waiting for its next frame is then one future, where Starlette's ``receive``
        is three coroutines and a future, made for every message, that live until the
        frame comes (the closed-loop load bench: the collector's young generation held
        8,985 objects at a sample, 1,848 of them coroutines; 2,763 with this)."""
        queue = self.inbox
        if queue.empty():
            waiter = queue.waiter = self.loop.create_future()
            return waiter
        message = queue.get_nowait()
        if self.read_paused and queue.empty():
            self.read_paused = False
            self.transport.resume_reading()
        return message

    def _open_for_writes(self) -> bool:
        """Nothing makes a write wait: accepted, not closing, and the transport takes more."""
        return not (
            not self.writable.is_set()
            or self.disconnected
            or not self.handshake_complete
            or self.close_sent
            or self.initial_response is not None
            or self.transport.is_closing()
        )

    def write_text(self, text: str | bytes) -> bool:
        """Write a text message now, as ``send`` would, if nothing makes it wait:
        True once written; False when the caller must go through ``send`` (the
        transport pushes back, the socket is closing, not accepted yet). Through
        ``send`` a message passes Starlette's WebSocket, its exception wrapper
        and uvicorn's coroutine, four coroutines for every message: they were
        about 4 % of the server's CPU per move (tests/bench/load.py, py-spy)."""
        if not self._open_for_writes():
            return False
        try:
            self.conn.send_text(text if isinstance(text, bytes) else text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def write_texts(self, texts: list[bytes | str]) -> bool:
        """``write_text`` for several messages, framed one after another and written in one
        ``write`` (a move's state and its ack: one system call, not two)."""
        if not self._open_for_writes():
            return False
        try:
            for text in texts:
                self.conn.send_text(text if isinstance(text, bytes) else text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    async def send(self, message) -> None:  # type: ignore[no-untyped-def]
        if (
            message["type"] == "websocket.close"
            and not self.writable.is_set()
            and self.handshake_complete
            and not self.close_sent
            and not self.transport.is_closing()
        ):
            code = message.get("code", 1000)
            reason = message.get("reason", "") or ""
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.conn.send_close(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            # transport.close() would wait for a buffer that may never drain
            self.close_timer = self.loop.call_later(self.slow_close_s, self.transport.abort)
            return
        await super().send(message)

    def connection_lost(self, exc: Exception | None) -> None:
        _uncount(self.transport)  # counted when it arrived as HTTP (GuardedH11)
        super().connection_lost(exc)
        self.conn.parser.close()  # its frame holds ``self.conn``: a cycle until closed
