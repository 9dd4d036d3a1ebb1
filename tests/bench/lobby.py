"""The lobby and the clocks under load, against real ``nyumba serve`` processes.

1. Seek to paired: ``--seekers`` sockets (1,000) spread over ``--nodes`` nodes on one store
   all send ``seek`` (Oware, 5+3) at once; each one's time from its ``seek`` frame to its
   ``paired`` message. Prints p50/p99/max, and checks each was paired once.
2. Flag lateness: ``--rooms`` clocked rooms (2,000) on one node, each a local room whose two
   first moves have been played, so one clock runs; nobody sends anything more. For each, the
   time from its flag time (read from the stored room: the turn's start plus the time left,
   plus the grace a late move would still get: ``server/rooms/clock.py`` ``flag_at``) to
   the arrival of the ``state`` saying ``timeout`` on its socket. Prints p50/p99/max (target:
   p99 <= 250 ms).
3. What a clock costs a state and a stored room: the ``state`` message and the msgpack room
   after the same two moves, with and without a clock, in bytes.

    python tests/bench/lobby.py [--seekers 1000] [--nodes 3] [--rooms 2000] [--clock-s 40]

Prints /proc/loadavg before and after each part: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
import httpx  # noqa: E402
import websockets  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

from server.rooms import clock as C  # noqa: E402
from server.rooms import room as R  # noqa: E402
from server.rooms import stored  # noqa: E402


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[:3].__str__()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(name: str, ms: list[float]) -> None:
    print(
        f"{name}: n={len(ms)} p50={statistics.median(ms):.1f} ms p99={pct(ms, 0.99):.1f} ms "
        f"max={max(ms):.1f} ms"
    )


# ------------------------------------------------------------------ 1. seek to paired


async def seekers(urls: list[str], n: int) -> list[float]:
    sockets = []
    for i in range(n):  # connected first: the race is the seeks', not the handshakes'
        sockets.append(await websockets.connect(urls[i % len(urls)], max_size=2**22))
    start = asyncio.Event()
    times: list[float] = []
    paired_rooms: dict[str, int] = {}

    async def one(ws) -> None:
        await start.wait()
        sent = time.perf_counter()
        clock = {"initial_ms": 300000, "increment_ms": 3000}
        await ws.send(json.dumps({"t": "seek", "game": "oware", "clock": clock}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if msg["t"] == "paired":
                times.append((time.perf_counter() - sent) * 1000)
                paired_rooms[msg["room"]] = paired_rooms.get(msg["room"], 0) + 1
                return
            if msg["t"] == "error":
                raise RuntimeError(msg)

    tasks = [asyncio.create_task(one(ws)) for ws in sockets]
    await asyncio.sleep(0.2)
    start.set()
    await asyncio.gather(*tasks)
    assert all(v == 2 for v in paired_rooms.values()) and len(paired_rooms) == n // 2
    for ws in sockets:
        await ws.close()
    return times


# ------------------------------------------------------------------ 2. flag lateness


async def clocked_rooms(server: ServerProcess, n: int, clock_s: float) -> tuple[list[float], int]:
    """Lateness (ms) of each room's timeout, and how many flagged before setup ended."""
    deadlines: dict[str, int] = {}
    arrived: dict[str, float] = {}  # room -> arrival, store ms
    offset = 0.0  # store ms - local ms (one machine: ~0, measured all the same)
    import redis.asyncio as aioredis

    store = aioredis.from_url(server.redis_url)
    secs, micros = await store.time()
    offset = int(secs) * 1000 + int(micros) / 1000 - time.time() * 1000
    prefix = server.extra_env["NYUMBA_KEY_PREFIX"]
    body = {"game": "oware", "mode": "local", "clock": {"initial_ms": int(clock_s * 1000)}}
    gate = asyncio.Semaphore(40)

    async def room(http: httpx.AsyncClient) -> None:
        async with gate:
            made = (await http.post(server.url + "/api/rooms", json=body)).json()
            ws = await websockets.connect(server.ws_url, max_size=2**22)
            await ws.send(json.dumps({"t": "join", "room": made["room"], "token": made["token"]}))
            state = await next_state(ws, lambda s: True)
            for ply in range(2):
                move = state["legal"][0]["move"]
                frame = {"t": "move", "room": made["room"], "version": state["version"]}
                await ws.send(json.dumps({**frame, "move": move, "id": f"m{ply}"}))
                state = await next_state(ws, lambda s, v=state["version"]: s["version"] > v)
            data = await store.hget(f"{prefix}room:{{{made['room']}}}", "data")
            rec = stored.decode_room(data).clock
            assert rec is not None and rec.running == 0
            deadlines[made["room"]] = C.flag_at(rec, started=True)  # zero and the grace
        over = await next_state(ws, lambda s: s["outcome"] is not None, timeout=clock_s + 120)
        arrived[made["room"]] = time.time() * 1000 + offset
        assert over["adjudication"] == "timeout", over["adjudication"]
        await ws.close()

    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=50)) as http:
        tasks = [asyncio.create_task(room(http)) for _ in range(n)]
        while len(deadlines) < n and not any(t.done() and t.exception() for t in tasks):
            await asyncio.sleep(0.5)
        set_up = time.time() * 1000 + offset
        print(f"  {n} clocked rooms set up; loadavg {loadavg()}")
        await asyncio.gather(*tasks)
    early = sum(1 for d in deadlines.values() if d < set_up)
    await store.aclose()
    return [arrived[r] - deadlines[r] for r in deadlines], early


async def next_state(ws, pred, timeout: float = 30):
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if msg["t"] == "state" and pred(msg):
            return msg


# ------------------------------------------------------------------ 3. bytes


def byte_costs() -> None:
    from server.rooms import judge as J
    from server.rooms import protocol as P
    from server.rooms import view as V
    from server.rooms.clock import Control

    for clock in (None, Control(300_000, 3000)):
        room, _, _ = R.create("bench", "oware", {}, "local", "south", "beginner", 1000, clock=clock)
        for ply in range(3):
            move = R.Position(room).choices[0].move
            intent = P.Move(room="bench", version=room.version, move=move, id=f"m{ply}")
            room = J.judge(room, intent, R.Context(sides=[0, 1], who="x", now_ms=2000 + ply)).room
        state = P.encode(V.state_message(room, {}, 3000, 1000))
        print(
            f"  {'clocked' if clock else 'untimed'}: state {len(state)} B, "
            f"stored room {len(R.encode_room(room))} B"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seekers", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--rooms", type=int, default=2000)
    ap.add_argument("--clock-s", type=float, default=40.0)
    args = ap.parse_args()
    from server.run.cli import embedded_valkey

    print(f"loadavg at start {loadavg()}")
    print("bytes per state and per stored room, after three moves:")
    byte_costs()
    with tempfile.TemporaryDirectory() as tmp, embedded_valkey(Path(tmp) / "valkey") as url:
        env = {  # every seeker is 127.0.0.1 and none joins: no caps per address
            "NYUMBA_KEY_PREFIX": "bench-lobby:",
            "NYUMBA_SEEKS_PER_ADDRESS": "1000000",
            "NYUMBA_PAIRINGS_PER_ADDRESS": "1000000",
            "NYUMBA_SEEK_COOLDOWNS_MS": "0",
        }
        nodes = [
            ServerProcess(redis_url=url, data_dir=Path(tmp) / f"n{i}", env=env).start()
            for i in range(args.nodes)
        ]
        try:
            times = asyncio.run(seekers([n.ws_url for n in nodes], args.seekers))
            summary(f"seek -> paired, {args.seekers} seekers on {args.nodes} nodes", times)
            print(f"  loadavg {loadavg()}")
            for n in nodes[1:]:
                n.stop()
            late, early = asyncio.run(clocked_rooms(nodes[0], args.rooms, args.clock_s))
            summary(f"flag lateness, {args.rooms} clocked rooms on one node", late)
            print(f"  ({early} deadlines fell before every room was set up); loadavg {loadavg()}")
        finally:
            for n in nodes:
                n.stop(kill=True)


if __name__ == "__main__":
    main()
