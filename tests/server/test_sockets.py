"""Hardening: sockets (issue 16, item 3). An address holds a capped number of
sockets across every node; a socket that never joins, and a connection that
never finishes its request head, are closed."""

from __future__ import annotations

import json
import socket
import time

import pytest
from serverproc import ServerProcess
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from server.embedded import EmbeddedValkey


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory, key_prefix):
    tmp = tmp_path_factory.mktemp("sockets")
    store = EmbeddedValkey(tmp / "valkey").start()
    env = {
        "NYUMBA_KEY_PREFIX": key_prefix + "sockets:",
        "NYUMBA_SOCKETS_PER_ADDRESS": "4",
        "NYUMBA_JOIN_DEADLINE_MS": "1500",
    }
    nodes = [ServerProcess(redis_url=store.url, data_dir=tmp / f"n{i}", env=env) for i in range(2)]
    try:
        for n in nodes:
            n.start()
        yield nodes
    finally:
        for n in nodes:
            n.stop()
        store.stop()


def _open(node, address: str | None = None):
    headers = {"X-Forwarded-For": address} if address else None
    return connect(node.ws_url, additional_headers=headers, open_timeout=10, legacy=True)


def test_an_address_holds_at_most_its_cap_of_sockets_across_nodes(two_nodes):
    a, b = two_nodes
    held = [_open(a, "198.51.100.7"), _open(a, "198.51.100.7")]
    held += [_open(b, "198.51.100.7"), _open(b, "198.51.100.7")]
    for node in (a, b):
        with pytest.raises(InvalidStatus) as refused:
            _open(node, "198.51.100.7").close()
        assert refused.value.response.status_code == 403
    other = _open(b, "203.0.113.9")  # another address is not affected
    other.send(json.dumps({"t": "ping", "n": 1}))
    assert json.loads(other.recv(timeout=5))["t"] == "pong"
    held.pop().close()  # a socket closes: its slot is free again, on either node
    deadline = time.monotonic() + 10
    while True:
        try:
            held.append(_open(a, "198.51.100.7"))
            break
        except InvalidStatus:
            assert time.monotonic() < deadline, "a closed socket's slot was never freed"
            time.sleep(0.2)
    for ws in held + [other]:
        ws.close()


def test_a_socket_that_never_joins_is_closed(two_nodes):
    ws = _open(two_nodes[0], "192.0.2.55")
    ws.send(json.dumps({"t": "ping", "n": 1}))  # pings do not count as joining
    assert json.loads(ws.recv(timeout=5))["t"] == "pong"
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=20)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


def test_connections_that_never_finish_a_request_head_are_closed(two_nodes):
    node = two_nodes[0]
    silent = socket.create_connection(("127.0.0.1", node.port))
    partial = socket.create_connection(("127.0.0.1", node.port))
    partial.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    for s in (silent, partial):
        s.settimeout(30)
        try:
            assert s.recv(1024) == b"", "the server answered a request it never got"
        except ConnectionResetError:
            pass
        s.close()
