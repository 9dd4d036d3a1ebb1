"""An oversized body gets its 413, not a connection reset (issue 16).

A node answers a body over its cap before reading the rest of it. Closing a socket with data
still unread makes the kernel answer with a reset instead of an end of stream, and a reset can
cost the client the answer it had not read yet (Windows drops it; Linux reports the reset after
it; asyncio's streams raise the reset instead of the buffered answer). The client here uploads
as a browser does: it reads between sends and stops sending once it has the answer, with the
head and the first 768 KiB of the body already sent by then (what a link has in flight). It
must read the whole 413 problem document with the security headers, then the node's end of
stream, and the node must let go of the connection within a few seconds without being asked.
"""

from __future__ import annotations

import gc
import json
import select
import socket
import threading
import time

import httpx
import pytest
import uvicorn
from serverproc import free_port
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from server.web import httpguard
from server.web.handshake import GuardedH11

SENT = 768 * 1024  # sent before the answer is read: 12 times the cap, under what a node drains
DEADLINE_S = 30.0  # generous: the machine is shared


def _answered(got: bytes) -> bool:
    head, sep, body = got.partition(b"\r\n\r\n")
    if not sep:
        return False
    lengths = [
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    ]
    return bool(lengths) and len(body) >= lengths[0]


def _upload(port: int, path: str, chunked: bool) -> tuple[bytes, str, bool]:
    """(what was read, how the stream ended: "eof" or the error, whether the node then let the
    connection go before the deadline)."""
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json"]
    if chunked:
        lines.append("Transfer-Encoding: chunked")
        piece = b" " * 16384
        body = (b"%x\r\n%s\r\n" % (len(piece), piece)) * (SENT // len(piece))
    else:
        lines.append(f"Content-Length: {50 * 1024 * 1024}")
        body = b" " * SENT
    out = memoryview(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
    sock.setblocking(False)
    got, ended = b"", ""
    deadline = time.monotonic() + DEADLINE_S
    try:
        while not ended and time.monotonic() < deadline:
            sending = bool(out) and not _answered(got)
            readable, writable, _ = select.select([sock], [sock] if sending else [], [], 0.5)
            try:
                if writable:
                    out = out[sock.send(out) :]
                if readable:
                    chunk = sock.recv(65536)
                    got += chunk
                    ended = "" if chunk else "eof"
            except BlockingIOError:
                pass
            except OSError as exc:
                ended = repr(exc)
        gone = ended != "eof"  # a reset: gone already
        while not gone and time.monotonic() < deadline:
            time.sleep(0.2)
            try:  # discarded while the node lingers; once it has closed, the reply is a reset
                sock.send(b" ")
            except OSError:
                gone = True
    finally:
        sock.close()
    return got, ended, gone


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("path", ["/api/rooms", "/api/replay"])
def test_an_oversized_body_reads_its_413_then_an_end_of_stream(server, path, chunked):
    got, ended, gone = _upload(server.port, path, chunked)
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 "), got[:300]
    assert json.loads(body) == {
        "code": "too-large",
        "message": "The body may be at most 65536 bytes.",
    }
    headers = head.decode().lower()
    assert "content-security-policy: default-src 'self'" in headers
    assert "x-content-type-options: nosniff" in headers
    assert "connection: close" in headers  # the client knows not to send another request
    assert ended == "eof", f"the answer was followed by {ended}, not the node's end of stream"
    assert gone, "the node still held the connection"
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_connections_are_freed_without_the_cycle_collector():
    """A node's cycle collector passes over the older generations only every
    ``NYUMBA_GC_FULL_S`` (server/ops/collector.py), so a protocol its request cycle refers back to
    would wait that long, buffers and all. Every connection, answered or refused early, must
    go by reference counting alone. (uvicorn in this process on the nodes' loop, uvloop where
    installed, with GuardedH11 and the body guard, on a one-route app.)"""

    async def size(request):
        return PlainTextResponse(str(len(await httpguard.read_body(request, 65536))))

    app = Starlette(
        routes=[Route("/", size, methods=["POST"])], middleware=[Middleware(httpguard.Problems)]
    )
    port = free_port()
    config = uvicorn.Config(
        app, port=port, http=GuardedH11, loop="auto", lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()

    def alive() -> int:
        return sum(isinstance(o, GuardedH11) for o in gc.get_objects())

    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
            time.sleep(0.05)
        gc.collect()
        gc.disable()
        for _ in range(20):
            url = f"http://127.0.0.1:{port}/"
            json = {"content-type": "application/json"}
            assert httpx.post(url, content=b"{}", headers=json).text == "2"
            assert httpx.post(url, content=b" " * 200_000, headers=json).status_code == 413
        deadline = time.monotonic() + DEADLINE_S
        while alive() and time.monotonic() < deadline:  # the refused ones linger a moment
            time.sleep(0.2)
        assert alive() == 0, f"{alive()} of 40 connections' protocols wait for the collector"
    finally:
        gc.enable()
        server.should_exit = True
        thread.join(10)
