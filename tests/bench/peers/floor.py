"""The floor of nyumba's stack: what uvicorn + Starlette (and a store write a move) cost before
any of nyumba's own work, under load.py's schedule.

    python tests/bench/peers/floor.py [--rooms 1000] [--rate 1] [--seconds 20] [--rounds 2]

Runs ``floorapp.py`` under uvicorn as a node runs (uvloop, websockets-sansio, h11), ``bare``
and then ``store`` (a private ``redis-server``, append-only with ``everysec`` like the embedded
store), each ``--rounds`` times, interleaved: N rooms x 2 sockets, the first socket of each room
sending a move ``--rate`` times a second on a random phase (``--rate 0``: a closed loop) and
waiting for it to come back. Prints moves/s, server CPU a move (and the store's), and moves per
server CPU-second, as load.py and colyseus.py do, so the three can be read side by side: the
stack's floor, Colyseus, nyumba.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path[:0] = [str(HERE.parent)]
from rawws import RawSocket  # noqa: E402


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def drive(url: str, rooms: int, rate: float, seconds: float, pids: list[int]) -> list[float]:
    """Play; returns [moves, seconds, server CPU s, store CPU s] over the measured window."""
    counting = [False]
    moves = [0]
    until = time.perf_counter() + seconds + 3

    async def room(i: int) -> None:
        waiting: dict[int, asyncio.Future[None]] = {}
        joined = asyncio.get_running_loop().create_future()

        def on(msg) -> None:
            if msg.t == "state" and not joined.done():
                joined.set_result(None)
            fut = waiting.pop(msg.version, None) if msg.t == "moved" else None
            if fut is not None and not fut.done():
                fut.set_result(None)

        mover = await RawSocket.connect(url, on)
        other = await RawSocket.connect(url, lambda msg: None)
        for s in (mover, other):
            s.send({"t": "join", "room": f"r{i}"})
        await joined
        version, period = 0, 1 / rate if rate else 0.0
        next_at = time.perf_counter() + random.random() * period
        while time.perf_counter() < until:
            if period:
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                next_at += period
            fut = waiting[version + 1] = asyncio.get_running_loop().create_future()
            mover.send({"t": "move", "room": f"r{i}", "version": version})
            await fut
            version += 1
            moves[0] += counting[0]
        for s in (mover, other):
            await s.close()

    tasks = [asyncio.create_task(room(i)) for i in range(rooms)]
    await asyncio.sleep(3)  # every room open and moving
    before = [cpu_s(p) for p in pids]
    counting[0], n0, t0 = True, moves[0], time.perf_counter()
    await asyncio.sleep(seconds)
    after = [cpu_s(p) for p in pids]
    counting[0], n1, t1 = False, moves[0], time.perf_counter()
    await asyncio.gather(*tasks)
    used = [a - b for a, b in zip(after, before)] + [0.0]
    return [n1 - n0, t1 - t0, used[0], used[1]]


def run(kind: str, args: argparse.Namespace, tmp: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{HERE}"}
    store = None
    if kind == "store":
        port = free_port()
        store = subprocess.Popen(
            ["redis-server", "--port", str(port), "--dir", str(tmp), "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        env["FLOOR_STORE_URL"] = f"redis://127.0.0.1:{port}/0"
        time.sleep(0.5)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "floorapp:app", "--port", str(port), "--loop",
         "uvloop", "--ws", "websockets-sansio", "--http", "h11", "--log-level", "warning"],
        cwd=HERE, env=env,
    )  # fmt: skip
    time.sleep(2)
    try:
        pids = [server.pid] + ([store.pid] if store else [])
        n, elapsed, server_s, store_s = asyncio.run(
            drive(f"ws://127.0.0.1:{port}/ws", args.rooms, args.rate, args.seconds, pids)
        )
    finally:
        for p in (server, store):
            if p is not None:
                p.terminate()
                p.wait()
    load = os.getloadavg()[0]
    print(
        f"{kind}: {n / elapsed:.0f} moves/s; server CPU {server_s * 1000 / n:.3f} ms a move"
        + (f", store {store_s * 1000 / n:.3f} ms" if store else "")
        + f"; {n / server_s:.0f} moves per server CPU-second (load {load:.1f})",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rooms", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=1.0, help="moves/s per room; 0 = closed loop")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="nyumba-floor-") as tmp:
        for r in range(args.rounds):
            print(f"--- round {r + 1}: {args.rooms} rooms, rate {args.rate or 'closed loop'}")
            for kind in ("bare", "store"):
                run(kind, args, Path(tmp))


if __name__ == "__main__":
    main()
