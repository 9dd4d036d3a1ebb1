"""Hardening, HTTP side: bodies capped while they stream, no input echoed,
deep JSON a 4xx with the security headers, cross-site posts refused, replays
off the event loop with a bound (issue 16, items 2 and 7 and the cross-site
hole of 8)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import time

import httpx
import pytest
from asynckit import run

import engine
from engine import records
from server.computer.replays import Busy, Offload


def _raw_post(port: int, path: str, head: dict[str, str], body_parts, timeout: float = 20.0):
    """POST over a bare socket; returns (status, headers text, body) of the answer,
    reading it while the body is still being sent (the server may answer early)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"{k}: {v}" for k, v in head.items()]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    sock.setblocking(False)
    got = b""
    deadline = time.monotonic() + timeout
    try:
        for part in body_parts:
            view = memoryview(part)
            while view and time.monotonic() < deadline:
                try:
                    sent = sock.send(view)
                    view = view[sent:]
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    view = view[:0]
                    break
                try:
                    chunk = sock.recv(65536)
                    if chunk:
                        got += chunk
                except BlockingIOError:
                    pass
                if b"\r\n\r\n" in got:
                    break
            if b"\r\n\r\n" in got:
                break
        sock.setblocking(True)
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        while True:
            try:
                chunk = sock.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            got += chunk
            head_end = got.find(b"\r\n\r\n")
            if head_end >= 0:
                length = [
                    int(line.split(b":", 1)[1])
                    for line in got[:head_end].split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ]
                if length and len(got) >= head_end + 4 + length[0]:
                    break
    finally:
        sock.close()
    head_text, _, rest = got.partition(b"\r\n\r\n")
    status = int(head_text.split(b" ", 2)[1]) if head_text else 0
    return status, head_text.decode(errors="replace").lower(), rest


def test_a_declared_oversized_body_is_refused_before_it_is_read(server):
    for path in ("/api/rooms", "/api/replay"):
        status, head, body = _raw_post(
            server.port,
            path,
            {"Content-Type": "application/json", "Content-Length": str(50 * 1024 * 1024)},
            [b"{" + b" " * 4096],
        )
        assert status == 413, (path, status, body[:200])
        assert json.loads(body)["code"] == "too-large"
        assert "content-security-policy" in head


def test_a_streamed_body_is_cut_off_at_the_cap(server):
    chunk = b" " * 16384
    framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    for path in ("/api/rooms", "/api/replay"):
        status, _, body = _raw_post(
            server.port,
            path,
            {"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            [framed] * 64,  # 1 MiB, never finished
        )
        assert status == 413, (path, status, body[:200])


def test_errors_quote_at_most_a_short_excerpt_of_the_input(server):
    big = "x" * 60_000
    for path, payload in (
        ("/api/rooms", {"game": big}),
        ("/api/rooms", {"game": "kalah", "options": {big: 1}}),
        ("/api/replay", {"format": big}),
    ):
        r = httpx.post(server.url + path, json=payload)
        assert 400 <= r.status_code < 500, (path, r.status_code)
        assert len(r.content) < 1024, (path, len(r.content))


def test_json_nested_too_deep_is_a_400_with_the_security_headers(server):
    deep = "[" * 5000 + "]" * 5000
    for path, text in (
        ("/api/rooms", '{"game": "kalah", "options": {"a": ' + deep + "}}"),
        ("/api/replay", '{"moves": ' + deep + "}"),
    ):
        r = httpx.post(
            server.url + path, content=text, headers={"content-type": "application/json"}
        )
        assert r.status_code == 400, (path, r.status_code, r.text[:200])
        assert "default-src 'self'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
    # The node is unharmed.
    assert httpx.get(server.url + "/healthz").status_code == 200


def test_cross_site_posts_are_refused_and_create_nothing(server):
    host = server.url.split("://")[1]
    body = json.dumps({"game": "kalah"})
    for headers in (
        {"content-type": "text/plain", "origin": "https://evil.example"},
        {"content-type": "text/plain"},  # a form post, origin or not
        {"content-type": "application/x-www-form-urlencoded"},
        {"content-type": "application/json", "origin": "https://evil.example"},
        {"content-type": "application/json", "sec-fetch-site": "cross-site"},
    ):
        r = httpx.post(server.url + "/api/rooms", content=body, headers=headers)
        assert r.status_code == 403, (headers, r.status_code)
        assert r.json()["code"] == "cross-site"
    # The page's own origin, and clients that send none, still create rooms.
    ok = httpx.post(
        server.url + "/api/rooms",
        content=body,
        headers={"content-type": "application/json", "origin": f"http://{host}"},
    )
    assert ok.status_code == 201
    assert httpx.post(server.url + "/api/rooms", json={"game": "kalah"}).status_code == 201


def _long_record(plies: int = 200) -> bytes:
    game = engine.load("oware")
    rng = random.Random(3)
    state, moves = game.start(), []
    while len(moves) < plies and game.outcome(state) is None:
        move = rng.choice(list(game.legal_moves(state)))
        moves.append(move)
        state = game.play(state, move)
    return records.dumps(game, moves).encode()


def test_replays_answer_from_the_pool_and_the_cache(server):
    record = _long_record()
    first = httpx.post(
        server.url + "/api/replay", content=record, headers={"content-type": "application/json"}
    )
    again = httpx.post(
        server.url + "/api/replay", content=record, headers={"content-type": "application/json"}
    )
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert len(first.json()["states"]) == len(json.loads(record)["moves"]) + 1
    bad = httpx.post(
        server.url + "/api/replay",
        content=record[:-20],
        headers={"content-type": "application/json"},
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad-record"


def test_the_pool_refuses_beyond_its_bounds_and_per_address():
    async def scenario():
        pool = Offload(workers=1, queue=2, per_address=2)
        try:
            pool.warm()
            a1 = asyncio.ensure_future(pool.run("a", time.sleep, 1.0))
            a2 = asyncio.ensure_future(pool.run("a", time.sleep, 1.0))
            await asyncio.sleep(0)
            with pytest.raises(Busy):  # address a has its two
                await pool.run("a", time.sleep, 0.0)
            b1 = asyncio.ensure_future(pool.run("b", time.sleep, 1.0))
            await asyncio.sleep(0)
            with pytest.raises(Busy):  # the pool is full (1 worker + 2 queued)
                await pool.run("c", time.sleep, 0.0)
            await asyncio.gather(a1, a2, b1)
            await pool.run("a", time.sleep, 0.0)  # room again
            # The cache answers a repeated request without running it again.
            one = await pool.run("a", os.urandom, 16, cache_key=b"k", size=len)
            two = await pool.run("a", os.urandom, 16, cache_key=b"k", size=len)
            assert one == two and pool.hits == 1
        finally:
            pool.close()

    run(scenario())


def test_after_refusing_a_body_the_connection_closes_instead_of_reading_the_rest(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    sock.sendall(
        b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 52428800\r\n\r\n"
    )
    chunk = b" " * (1 << 20)
    sent = 0
    with pytest.raises(OSError):  # broken pipe or reset: the node stopped reading
        while sent < 50:
            sock.sendall(chunk)
            sent += 1
    sock.close()
    assert sent < 50, "the node read the whole 50 MiB it had refused"
