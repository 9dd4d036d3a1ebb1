"""Hardening: limits, tokens, origins and security headers, each tested."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import time

import httpx
import pytest
from serverproc import make_server
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect
from wsclient import Client, create_room, seated_pair

from server.rooms import room as R


def test_frames_over_8_kib_close_the_socket_with_1009(server):
    c = Client(server.ws_url)
    c.send(t="ping", n=1)
    assert c.expect("pong")["n"] == 1
    c.send_raw(json.dumps({"t": "ping", "n": 2, "pad": "x" * 9000}))
    with pytest.raises(ConnectionClosed) as closed:
        c.ws.recv(timeout=5)
    assert closed.value.rcvd.code == 1009


def test_a_message_flood_is_closed_with_1008(server):
    r, south, north = seated_pair(server)
    for i in range(20):  # a browser's pings: within their own allowance
        north.send(t="ping", n=i)
    for i in range(20):
        assert north.expect("pong")["n"] == i
    for i in range(100):  # exactly the budget: still open
        south.send(t="offer", room=r["room"], kind="takeback", id=f"o{i}")
    south.send(t="resign", room=r["room"], id="one-too-many")
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            south.ws.recv(timeout=5)
    assert closed.value.rcvd.code == 1008
    # The flood changed nothing: no move, no result.
    watcher = Client(server.ws_url)
    watcher.join(r["room"])
    assert watcher.state["version"] == 0 and watcher.state["outcome"] is None


def test_a_ping_flood_is_closed_with_1008(server):
    """Pings count, at a small allowance of their own (issue 16: two sockets pinging
    nonstop got 24,000 pongs/s and stalled every other room)."""
    c = Client(server.ws_url)
    pongs = 0
    with pytest.raises(ConnectionClosed) as closed:
        for i in range(200):  # the server may close while these are still going out
            c.send(t="ping", n=i)
        while True:
            pongs += json.loads(c.ws.recv(timeout=5))["t"] == "pong"
    assert closed.value.rcvd.code == 1008
    assert pongs <= 20


def test_one_address_has_one_budget_for_all_its_sockets(store_kind, tmp_path, key_prefix):
    srv = make_server(
        store_kind,
        tmp_path,
        key_prefix + "addr-budget:",
        NYUMBA_RATE_MESSAGES_PER_ADDRESS="60",
    )
    try:
        headers = {"X-Forwarded-For": "198.51.100.23"}
        socks = [Client(srv.ws_url, headers=headers) for _ in range(4)]
        for i in range(15):  # 60 in all, 15 a socket: far under each socket's own budget
            for s in socks:
                s.send(t="ping", n=i)
        for s in socks:
            for i in range(15):
                assert s.expect("pong")["n"] == i
        socks[0].send(t="ping", n=99)  # the 61st from this address
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                socks[0].ws.recv(timeout=5)
        assert closed.value.rcvd.code == 1008
        other = Client(srv.ws_url, headers={"X-Forwarded-For": "203.0.113.5"})
        other.send(t="ping", n=1)
        assert other.expect("pong")["n"] == 1
    finally:
        srv.stop()


def _masked(payload: bytes) -> bytes:
    key = os.urandom(4)
    body = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return bytes([0x81, 0x80 | len(payload)]) + key + body


def test_a_client_that_stops_reading_is_dropped_instead_of_buffered_without_end(server):
    """Sending never waits for a slow reader: its messages queue up to a bound,
    then the server closes it (1013) and its seat counts as absent, while the
    node goes on serving everyone else."""
    r = create_room(server.url, mode="friend", side="south")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window, never read
    sock.settimeout(10)
    sock.connect(("127.0.0.1", server.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        f"Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert b" 101 " in head.split(b"\r\n", 1)[0]
    sock.sendall(
        _masked(json.dumps({"t": "join", "room": r["room"], "token": r["token"]}).encode())
    )
    north = Client(server.ws_url)
    north.join(r["room"])
    north.wait_state(lambda st: st["seats"][0]["present"])
    pings = b"".join(_masked(b'{"t":"ping","n":%d}' % i) for i in range(1000))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sock.sendall(pings)  # its pongs pile up on the server's side
        north.drain(0.05)
        if not north.state["seats"][0]["present"]:
            break
    sock.close()
    assert not north.state["seats"][0]["present"], (
        "the server kept buffering for a client that never reads"
    )
    north.send(t="ping", n=7)
    assert north.expect("pong")["n"] == 7


def test_room_creation_is_capped_per_address_per_minute(store_kind, tmp_path, key_prefix):
    srv = make_server(store_kind, tmp_path, key_prefix + "quota:", NYUMBA_ROOMS_PER_MINUTE="3")
    try:
        codes = [
            httpx.post(srv.url + "/api/rooms", json={"game": "kalah"}).status_code for _ in range(4)
        ]
        last = httpx.post(srv.url + "/api/rooms", json={"game": "kalah"})
    finally:
        srv.stop()
    assert codes[:3] == [201, 201, 201] and codes[3] == 429
    assert last.json()["code"] == "rate-limited"
    assert 1 <= int(last.headers["retry-after"]) <= 60  # the seconds left in the minute


def test_sockets_per_room_are_capped_but_seat_holders_get_in(store_kind, tmp_path, key_prefix):
    srv = make_server(store_kind, tmp_path, key_prefix + "cap:", NYUMBA_SOCKETS_PER_ROOM="3")
    try:
        r = create_room(srv.url, "kalah")
        south, north, w1 = Client(srv.ws_url), Client(srv.ws_url), Client(srv.ws_url)
        south.join(r["room"], r["token"])
        north.join(r["room"])
        w1.join(r["room"])
        w2 = Client(srv.ws_url)
        w2.send(t="join", room=r["room"])
        assert w2.expect("error")["code"] == "room-full"
        again = Client(srv.ws_url)  # South's second tab still gets in
        assert again.join(r["room"], r["token"])["sides"] == [0]
    finally:
        srv.stop()


def test_upgrades_from_other_origins_are_refused(server):
    host = server.url.split("://")[1]
    with connect(server.ws_url, additional_headers={"Origin": f"http://{host}"}) as ok:
        ok.send(json.dumps({"t": "ping", "n": 3}))
        assert json.loads(ok.recv(timeout=5))["n"] == 3
    with pytest.raises(InvalidStatus) as refused:
        connect(server.ws_url, additional_headers={"Origin": "http://evil.example"}).close()
    assert refused.value.response.status_code == 403


def test_configured_origin_allow_list(store_kind, tmp_path, key_prefix):
    srv = make_server(
        store_kind,
        tmp_path,
        key_prefix + "origin:",
        NYUMBA_ALLOWED_ORIGINS="https://play.nyumba.example",
    )
    try:
        with connect(
            srv.ws_url, additional_headers={"Origin": "https://play.nyumba.example"}
        ) as ok:
            ok.send(json.dumps({"t": "ping"}))
            assert json.loads(ok.recv(timeout=5))["t"] == "pong"
        host = srv.url.split("://")[1]
        with pytest.raises(InvalidStatus):
            connect(srv.ws_url, additional_headers={"Origin": f"http://{host}"}).close()
    finally:
        srv.stop()


def test_security_headers_on_every_kind_of_response(server):
    r = create_room(server.url, "kalah")
    for path in (
        "/",
        f"/r/{r['room']}",
        "/api/games",
        "/healthz",
        "/api/protocol.json",
        "/api/rooms/none/record",
        "/static/nothing-here.js",
    ):
        h = httpx.get(server.url + path).headers
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp, path
        assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp, path
        assert h["x-content-type-options"] == "nosniff", path
        assert h["x-frame-options"] == "DENY", path
        assert h["referrer-policy"] == "no-referrer", path


def test_tokens_and_room_ids_are_long_random_and_stored_only_hashed():
    room, token, _ = R.create("r" * 16, "kalah", {}, "friend", "south", "beginner", 0)
    assert len(token) >= 22  # token_urlsafe(16): 128 random bits
    data = R.encode_room(room)
    assert token.encode() not in data
    assert room.seats[0].token_hash == R.hash_token(token)
    assert R.token_sides(room, token) == [0]
    assert R.token_sides(room, token[:-1] + ("A" if token[-1] != "A" else "B")) == []


def test_room_ids_carry_at_least_64_random_bits(server):
    ids = {create_room(server.url, "kalah")["room"] for _ in range(20)}
    assert len(ids) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{16,}", i) for i in ids)  # 16 base64 chars = 96 bits


def test_names_are_checked_and_shown(server):
    r = create_room(server.url, "kalah")
    c = Client(server.ws_url)
    for bad in ("x" * 25, "<script>", "tab\there", ""):
        c.send(t="join", room=r["room"], token=r["token"], name=bad)
        assert c.expect("error")["code"] == "bad-message"
    c.send(t="join", room=r["room"], token=r["token"], name="Mwana wa Bao")
    c.expect("welcome")
    st = c.wait_state(lambda s: s["seats"][0]["name"] == "Mwana wa Bao")
    assert st["seats"][1]["name"] is None


def test_unknown_fields_and_out_of_range_values_are_refused(server):
    r, south, north = seated_pair(server)
    for raw in (
        {"t": "move", "room": r["room"], "version": -1, "move": "a", "id": "x"},
        {"t": "move", "room": r["room"], "version": 0, "move": "a" * 33, "id": "x"},
        {"t": "move", "room": r["room"], "version": 0, "move": "a", "id": "x" * 65},
        {"t": "move", "room": r["room"], "version": 0, "move": "a", "id": "x", "seat": 1},
        {"t": "offer", "room": r["room"], "kind": "cake"},
        {"t": "join", "room": "../etc/passwd"},
    ):
        south.send(**raw)
        assert south.expect("error")["code"] == "bad-message"
    south.drain(0.2)
    assert south.state["version"] == 0 and south.state["plies"] == 0
