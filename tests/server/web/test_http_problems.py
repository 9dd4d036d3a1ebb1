"""Every HTTP error is a problem document ``{code, message}``, as PROTOCOL.md promises: the
routes' own, Starlette's (no route, a method a route does not take), what uvicorn and
websockets answer by themselves (a request or an upgrade they cannot read), and a refused
WebSocket upgrade; and a body is JSON that says so."""

from __future__ import annotations

import json
import socket

import httpx


def _problem(r: httpx.Response, status: int, code: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert body["code"] == code and body["message"], body
    return body


def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """One request over a bare socket (what an HTTP client would not send): the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def test_no_route_and_a_method_a_route_does_not_take_are_problems(server):
    r = httpx.get(server.url + "/api/rooms")
    _problem(r, 405, "method-not-allowed")
    assert r.headers["allow"] == "POST" and "POST" in r.json()["message"]
    assert "default-src 'self'" in r.headers["content-security-policy"]
    _problem(httpx.get(server.url + "/api/no-such-thing"), 404, "not-found")
    _problem(httpx.get(server.url + "/static/no-such-file.js"), 404, "not-found")
    _problem(httpx.request("TRACE", server.url + "/ws"), 405, "method-not-allowed")


def test_the_socket_asked_for_over_plain_http_says_to_upgrade(server):
    r = httpx.get(server.url + "/ws")
    _problem(r, 426, "upgrade-required")
    assert r.headers["upgrade"] == "websocket"


def test_refused_upgrades_are_problems(server):
    upgrade = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    for extra, status, code in (
        ("", 400, "bad-upgrade"),  # no Sec-WebSocket-Key
        (key + "Sec-WebSocket-Version: 8\r\n", 400, "bad-upgrade"),
        (key + "Sec-WebSocket-Version: 13\r\nOrigin: https://evil.example\r\n", 403, "cross-site"),
    ):
        got, headers, body = _raw(server.port, (upgrade + extra + "\r\n").encode())
        assert got == status, (extra, got, body)
        assert headers["content-type"].startswith("application/json")
        assert json.loads(body)["code"] == code


def test_a_request_that_is_not_http_is_a_problem(server):
    status, headers, body = _raw(server.port, b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
    assert status == 400 and headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "bad-http"


def test_a_body_must_be_sent_as_json(server):
    made = httpx.get(server.url + "/metrics").text.count("\n")
    body = json.dumps({"game": "kalah"})
    for path in ("/api/rooms", "/api/replay", "/api/analysis"):
        for headers in ({}, {"content-type": "text/csv"}, {"content-type": "application/jsonx"}):
            r = httpx.post(server.url + path, content=body, headers=headers)
            _problem(r, 415, "bad-content-type")
            assert r.headers["accept-post"] == "application/json"
    assert httpx.get(server.url + "/metrics").text.count("\n") >= made  # still answering
    ok = httpx.post(
        server.url + "/api/rooms",
        content=body,
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert ok.status_code == 201
