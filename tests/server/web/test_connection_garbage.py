"""A closed connection is freed by reference counting: nothing of it waits in reference
cycles for the node's full collection, which runs only every ``NYUMBA_GC_FULL_S`` (30 min
by default, server/ops/collector.py). Before, every WebSocket left its protocol objects in
cycles, and a node grew from 49 to 463 MiB over 20,809 joins until that pass."""

from __future__ import annotations

import asyncio
import json
import re
import time

import httpx
from asynckit import run
from serverproc import make_server
from websockets.asyncio.client import connect
from wsclient import create_room


def _metric(base: str, name: str, labels: str = "") -> float:
    text = httpx.get(base + "/metrics", timeout=10).text
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.M)
    assert found, f"{name}{labels} is not in /metrics"
    return float(found[1])


async def _cycles(ws_url: str, rooms: list[str], n: int) -> None:
    """``n`` connections, each ending one of three ways: a close after joining, a link
    dropped after joining, a join refused (no such room) and a close."""

    async def one(i: int) -> None:
        ws = await connect(ws_url, open_timeout=30)
        kind = i % 3
        room = rooms[i % len(rooms)] if kind < 2 else "no-such-room-here"
        await ws.send(json.dumps({"t": "join", "room": room}))
        while json.loads(await asyncio.wait_for(ws.recv(), 30))["t"] not in ("state", "error"):
            pass
        if kind == 1:
            ws.transport.abort()  # no close handshake: the server sees the link drop
        await ws.close()

    for start in range(0, n, 20):
        await asyncio.gather(*(one(i) for i in range(start, min(n, start + 20))))


def test_closed_connections_leave_nothing_for_the_full_collection(store_kind, tmp_path, key_prefix):
    srv = make_server(store_kind, tmp_path, key_prefix + "garbage:")  # the default GC period
    try:
        rooms = [create_room(srv.url, "kalah")["room"] for _ in range(5)]
        run(_cycles(srv.ws_url, rooms, 300))  # warm: every path taken once, caches filled
        time.sleep(0.5)
        before = _metric(srv.url, "nyumba_gc_objects", '{generation="1"}')
        run(_cycles(srv.ws_url, rooms, 2000))
        deadline = time.monotonic() + 10
        while _metric(srv.url, "nyumba_sockets") > 0:  # the last closes are being handled
            assert time.monotonic() < deadline, "sockets still counted open"
            time.sleep(0.2)
        time.sleep(0.5)
        after = _metric(srv.url, "nyumba_gc_objects", '{generation="1"}')
        assert "full collection" not in srv.log()
    finally:
        srv.stop()
    # Each connection used to leave about 50 objects in cycles (20 once the handshake's
    # own was broken): 2,000 of them, 40,000-100,000. What is left is the node's own
    # bookkeeping, a few hundred at most.
    assert after - before < 1000, (before, after)
