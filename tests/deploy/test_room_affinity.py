"""Room affinity behind the shipped proxy (deploy/proxy/nginx.conf, issue 49).

A room's sockets name their room in the URL (``/ws?room=ID``, what client/net.js opens) and the
proxy sends them to one node by a consistent hash of it, so that node fans a move out to the
room's sockets itself. Affinity is an optimisation only: a socket whose URL names another room
than the one it joins, or none, plays the same. Three real nodes on one embedded store behind
real nginx; which node took a socket is the ``x-nyumba-node`` header of its upgrade's answer.
"""

from __future__ import annotations

import base64
import os
import socket

import pytest
from proxykit import Nginx
from serverproc import ServerProcess, free_port
from wsclient import Client, create_room


@pytest.fixture
def three_nodes(tmp_path, key_prefix):
    """Three nodes on one embedded store behind the shipped nginx; yields (base URL, nodes)."""
    from server.run.cli import embedded_valkey

    with embedded_valkey(tmp_path / "valkey") as url:
        env = {"NYUMBA_KEY_PREFIX": key_prefix + "affinity:"}
        nodes = [
            ServerProcess(redis_url=url, data_dir=tmp_path / f"n{i}", env=env).start()
            for i in range(3)
        ]
        try:
            with Nginx(tmp_path, f"127.0.0.1:{free_port()}", [n.port for n in nodes]) as base:
                yield base, nodes
        finally:
            for n in nodes:
                n.stop()


def node_taking(base: str, path: str) -> str:
    """The node that answers a WebSocket upgrade of ``path`` through the proxy."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head and (chunk := sock.recv(65536)):
            head += chunk
    lines = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
    assert lines[0].split()[1] == "101", lines
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return {k.lower(): v for k, v in headers.items()}["x-nyumba-node"]


def test_a_rooms_sockets_reach_one_node_and_rooms_spread_over_the_nodes(three_nodes):
    base, _ = three_nodes
    rooms = [create_room(base, "kalah")["room"] for _ in range(12)]
    taken = {room: {node_taking(base, f"/ws?room={room}") for _ in range(4)} for room in rooms}
    assert all(len(nodes) == 1 for nodes in taken.values()), taken
    # (12 rooms all on one of three nodes: one chance in 3**11)
    assert len(set().union(*taken.values())) >= 2, taken
    # The lobby's socket names no room: round-robin, as every other request
    assert len({node_taking(base, "/ws") for _ in range(6)}) >= 2


def test_a_socket_whose_url_names_another_room_plays_its_join(three_nodes):
    base, _ = three_nodes
    r = create_room(base, "kalah", options={"seeds": 3})
    ws = base.replace("http://", "ws://") + "/ws"
    # Each player's URL names another room (or none): what it joins is what it plays.
    south = Client(ws + "?room=" + create_room(base, "kalah")["room"])
    north = Client(ws + "?room=nonsense%20room")
    watcher = Client(ws)
    try:
        south.join(r["room"], r["token"])
        north.join(r["room"])
        watcher.join(r["room"])
        players = {0: south, 1: north}
        for _ in range(4):
            st = watcher.state
            mover = players[st["to_move"]]
            mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
            mover.move(st["legal"][0]["move"], version=st["version"])
            mover.expect("ack")
            seen = watcher.wait_state(lambda s, v=st["version"]: s["version"] > v)
            other = players[1 - st["to_move"]]
            assert other.wait_state(lambda s, v=seen["version"]: s["version"] >= v) is not None
    finally:
        for c in (south, north, watcher):
            c.ws.close()
