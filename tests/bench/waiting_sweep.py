"""What the archive's sweep costs on a Cluster, where the waiting set is one sorted set per slot
(``server/store/waiting.py``): a node reads a slice of the 16,384 sets every tick, all of them
once per ``NYUMBA_ARCHIVE_RETRY_MS``. On a 3-master Valkey Cluster started here, with
``--rooms`` rooms in line, prints per slice size: the wall time of one sweep's read, the node's
CPU for it, the masters' CPU (``INFO cpu``) per slice, and the longest the node's event loop
was kept from other work meanwhile (a 1 ms ticker's worst lateness: what a move could wait).

    python tests/bench/waiting_sweep.py [--rooms 100] [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from clusterkit import ValkeyCluster  # noqa: E402

from server.store import waiting  # noqa: E402
from server.store.slots import SLOTS  # noqa: E402
from server.store.store import Store  # noqa: E402


def masters_cpu(cluster: ValkeyCluster) -> float:
    """CPU seconds the masters have used (user + system), summed."""
    total = 0.0
    for s in cluster.servers[:3]:
        info = s.client().info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


async def ticker(held: list[float]) -> None:
    """Wakes every millisecond; keeps in ``held[0]`` the longest it woke late."""
    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.001)
        held[0] = max(held[0], time.perf_counter() - t - 0.001)


async def bench(cluster: ValkeyCluster, rooms: int, rounds: int) -> None:
    store = Store(cluster.url, prefix="sweep-bench:")
    await store.start()
    try:
        later = int(time.time() * 1000) + 600_000
        for i in range(rooms):
            room = f"b{i}"
            await store.create(room, 0, b"r0", later)
            await store.cas(room, 0, 1, b"r1", later, b"", waiting="1")
        found = set(await waiting.due(store, 2, 0, SLOTS, limit=rooms))
        assert len(found) == rooms, len(found)
        print(f"{rooms} rooms in line; {SLOTS} slot sets on 3 masters")
        print(
            f"{'slots a sweep':>14} {'wall ms':>9} {'node CPU ms':>12} {'masters CPU ms':>15}"
            f" {'loop held ms':>13}"
        )
        # 5,462: the defaults (tick 5 s, retry 15 s); 9,831: the tests' (tick 0.3 s, retry 0.5 s)
        for count in (1639, 5462, 9831, SLOTS):
            walls, cpus = [], []
            before = masters_cpu(cluster)
            held = [0.0]
            ticking = asyncio.create_task(ticker(held))
            for r in range(rounds):
                cpu0, t0 = time.process_time(), time.perf_counter()
                await waiting.due(store, 2, (r * count) % SLOTS, count)
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - cpu0)
            ticking.cancel()
            served = (masters_cpu(cluster) - before) / rounds
            walls.sort()
            print(
                f"{count:>14} {walls[len(walls) // 2] * 1000:>9.1f}"
                f" {sorted(cpus)[len(cpus) // 2] * 1000:>12.1f} {served * 1000:>15.1f}"
                f" {held[0] * 1000:>13.1f}"
            )
    finally:
        await store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rooms", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    cluster = ValkeyCluster(Path(tempfile.mkdtemp(prefix="nyumba-sweep-bench-"))).start()
    try:
        asyncio.run(bench(cluster, args.rooms, args.rounds))
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
