"""The store client's cost per round trip: the compare-and-set a move makes
(``EVALSHA``: check the revision, write, expire, publish), issued by C
coroutines at once, each on a room of its own, through

* ``server.store.resp.Link`` on one Valkey (the single-server path),
* ``server.store.cluster.ClusterLink`` on a 3-master Valkey Cluster,
* redis-py's ``RedisCluster`` (asyncio) on the same cluster,
* coredis's ``RedisCluster`` on the same cluster, when coredis is installed.

Prints, per client, client CPU µs per round trip and round trips/s. Rounds
are interleaved (A B C D A B C D …) so the shared machine's noise falls on all.

Then what ``NYUMBA_ACK_REPLICAS=1`` adds on the cluster: the same writers,
each compare-and-set followed by ``Store.replicated`` (SET + WAIT on a link of
its own, group-committed), against the compare-and-set alone: confirmations/s,
latency p50/p99, client CPU per move, confirmations per WAIT.

    python tests/bench/store_rtt.py [--seconds 3] [--concurrency 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from clusterkit import ValkeyCluster  # noqa: E402

from server.store.cluster import ClusterLink  # noqa: E402
from server.store.embedded import EmbeddedValkey  # noqa: E402
from server.store.resp import Link  # noqa: E402
from server.store.store import _CAS, _CAS_SHARDED  # noqa: E402

PREFIX = "rtt:"
errors: dict[str, int] = {}  # commands that failed, by client and error
repeats: dict[str, int] = {}  # compare-and-sets a client ran twice (found applied)


def keys(i: int) -> tuple[str, str, str]:
    room = f"{PREFIX}room:{{r{i}}}"
    return room, room + ":presence", room


async def drive(call, seconds: float, concurrency: int, landed) -> tuple[int, float, float]:
    """Run ``call(i, rev)`` from ``concurrency`` coroutines for ``seconds``."""
    count = 0
    stop = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        nonlocal count
        rev = 0
        while time.perf_counter() < stop:
            try:
                got = await call(i, rev)
            except Exception as exc:  # counted and shown: a client that fails under load
                name = f"{call.__name__}: {type(exc).__name__}"
                errors[name] = errors.get(name, 0) + 1
                await asyncio.sleep(0.01)
                if not await landed(i, rev):
                    continue  # not written: the same compare-and-set again
                got = 0
            if int(got) == rev + 1:  # the client sent it twice (it landed, then again)
                repeats[call.__name__] = repeats.get(call.__name__, 0) + 1
            elif int(got) != 0:
                raise RuntimeError(f"compare-and-set refused: {got} (expected {rev})")
            rev += 1
            count += 1

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return count, time.process_time() - cpu0, time.perf_counter() - t0


async def reset(execute, concurrency: int) -> None:
    for i in range(concurrency):
        room, presence, _ = keys(i)
        await execute("DEL", room, presence)
        await execute("HSET", room, "rev", 0, "data", b"x")


def cas_args(i: int, rev: int) -> list:
    room, presence, channel = keys(i)
    return [room, presence, rev, rev + 1, b"d" * 200, int(time.time() * 1000) + 60_000]


async def measure(name, client_call, execute, script, args) -> tuple[str, float, float]:
    await reset(execute, args.concurrency)

    async def landed(i: int, rev: int) -> bool:
        return int(await execute("HGET", keys(i)[0], "rev")) == rev + 1

    n, cpu, wall = await drive(client_call, args.seconds, args.concurrency, landed)
    return name, cpu * 1e6 / n, n / wall


async def main_async(args, single_url: str, cluster_url: str) -> None:
    import redis.asyncio as aioredis

    link = Link(single_url)
    clink = ClusterLink(cluster_url)
    rpc = aioredis.RedisCluster.from_url(cluster_url)
    try:
        import coredis

        core = coredis.RedisCluster.from_url(cluster_url)
    except ImportError:
        core = None
    async with contextlib.AsyncExitStack() as stack:
        if core is not None:
            await stack.enter_async_context(core)  # coredis 6 wants its client entered
        await compare(args, link, clink, rpc, core)


async def compare(args, link, clink, rpc, core) -> None:
    single_cas = link.script(_CAS)
    cluster_cas = clink.script(_CAS_SHARDED)
    notice = b"n" * 60

    async def via_link(i, rev):
        room, presence, *rest = cas_args(i, rev)
        return await single_cas([room, presence], [*rest, room, notice])

    async def via_cluster_link(i, rev):
        room, presence, *rest = cas_args(i, rev)
        return await cluster_cas([room, presence], [*rest, room, notice])

    rpc_script = rpc.register_script(_CAS_SHARDED)

    async def via_redis_py(i, rev):
        room, presence, *rest = cas_args(i, rev)
        return await rpc_script(keys=[room, presence], args=[*rest, room, notice])

    async def via_coredis(i, rev):
        room, presence, *rest = cas_args(i, rev)
        return await core.evalsha(
            core_sha,
            keys=[room, presence],
            args=[*(str(a) for a in rest[:-1]), rest[-1], room, notice],
        )

    contenders = [
        ("resp.Link, single Valkey", via_link, link.execute),
        ("ClusterLink, 3-master cluster", via_cluster_link, clink.execute),
        ("redis-py RedisCluster", via_redis_py, clink.execute),
    ]
    if core is not None:
        core_sha = await core.script_load(_CAS_SHARDED)
        contenders.append(("coredis RedisCluster", via_coredis, clink.execute))
    results: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for name, call, execute in contenders:
            _, us, rate = await measure(name, call, execute, None, args)
            results.setdefault(name, []).append((us, rate))
    print(f"CAS round trips, {args.concurrency} at a time, {args.seconds:g} s x {args.rounds}")
    base = min(us for us, _ in results["resp.Link, single Valkey"])
    for name, rows in results.items():
        us = min(r[0] for r in rows)
        rate = max(r[1] for r in rows)
        print(
            f"  {name:32s} {us:7.1f} µs CPU per round trip (best of {len(rows)}; "
            f"{us / base:4.2f}x)  {rate:8.0f} round trips/s"
        )
    if errors:
        print(f"  errors: {errors}")
    if repeats:
        print(f"  compare-and-sets found already applied (sent twice by the client): {repeats}")
    link.close()
    clink.close()
    await rpc.aclose()


async def ack_cost(args, cluster_url: str) -> None:
    from server.store.store import Store

    store = Store(cluster_url, PREFIX + "ack:")
    await store.start()
    now = int(time.time() * 1000) + 600_000
    rooms = [f"w{i}" for i in range(args.concurrency)]
    for r in rooms:
        await store.link.execute("DEL", store.room_key(r))
        await store.create(r, 0, b"x", now)
    print(
        f"compare-and-set, then NYUMBA_ACK_REPLICAS=1's confirmation ({args.concurrency} writers)"
    )
    for _ in range(args.rounds):
        for replicas in (0, 1):
            latencies: list[float] = []
            stop = time.perf_counter() + args.seconds
            waits = store._replicas.sent if store._replicas else 0

            async def writer(room: str) -> None:
                rev = int(await store.link.execute("HGET", store.room_key(room), "rev"))
                while time.perf_counter() < stop:
                    t0 = time.perf_counter()
                    assert await store.cas(room, rev, rev + 1, b"d" * 200, now, b"n") == 0
                    rev += 1
                    if replicas:
                        assert await store.replicated(room, 1, 1000)
                    latencies.append(time.perf_counter() - t0)

            cpu = time.process_time()
            await asyncio.gather(*(writer(r) for r in rooms))
            cpu = time.process_time() - cpu
            n = len(latencies)
            latencies.sort()
            waits = (store._replicas.sent if store._replicas else 0) - waits
            print(
                f"  {'CAS + WAIT 1' if replicas else 'CAS alone':14s} {n / args.seconds:7.0f}/s  "
                f"p50 {latencies[n // 2] * 1000:6.2f} ms  p99 {latencies[int(n * 0.99)] * 1000:6.2f} ms"
                f"  {cpu * 1e6 / n:5.1f} µs CPU each"
                + (f"  {n / max(1, waits):4.1f} confirmations per WAIT" if replicas else "")
            )
    await store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nyumba-rtt-"))
    single = EmbeddedValkey(tmp / "single").start()
    cluster = ValkeyCluster(tmp / "cluster").start()
    try:
        asyncio.run(main_async(args, single.url, cluster.url))
        asyncio.run(ack_cost(args, cluster.url))
    finally:
        cluster.stop()
        single.stop()


if __name__ == "__main__":
    main()
