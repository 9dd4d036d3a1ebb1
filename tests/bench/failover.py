"""Failover under play: the chaos clients (tests/chaoskit.py: random games,
dropped connections, resent intents) play through two nodes on a Valkey
Cluster (3 masters + 3 replicas) or a Sentinel group (1 master, 1 replica,
3 Sentinels), and mid-run the master holding the most live rooms is
SIGKILLed; its replica is promoted and play goes on. Afterwards every room's
history is replayed and every acknowledged intent looked up in it.

    python tests/bench/failover.py [--store cluster|sentinel] [--games 12]
                                   [--seconds 30] [--ack-replicas 1] [--json]

With ``--ack-replicas 1`` (``NYUMBA_ACK_REPLICAS``) nothing acknowledged may
be lost; with 0, a move acknowledged just before the kill and not yet
replicated can be.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# tests/ for the helpers; the repository first, so `engine` is the package, not tests/engine
sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from chaoskit import Chaos  # noqa: E402
from clusterkit import SentinelGroup, ValkeyCluster  # noqa: E402

from server.store.cluster import slot_of  # noqa: E402


class Started:
    """A cluster or Sentinel group that is already running, for ``Chaos(store=...)``."""

    def __init__(self, group):
        self.group = group
        self.url = group.url

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def kill_busiest_master(group, rooms: list[str]):
    """SIGKILL the master holding the most of ``rooms``; that server."""
    if isinstance(group, SentinelGroup):
        victim = group.by_port(group.current_master())
    else:
        owners = Counter(
            group.master_of_slot(slot_of(f"chaos:room:{{{room}}}")).port for room in rooms
        )
        victim = group.by_port(owners.most_common(1)[0][0])
    victim.kill()
    return victim


def failed_over(group, victim) -> bool:
    if isinstance(group, SentinelGroup):
        return group.current_master() != victim.port
    group.wait_ok(timeout=0.5)
    return True


def replica_back(group, victim) -> bool:
    """The restarted server serves again, as the new master's replica."""
    if isinstance(group, SentinelGroup):
        new = group.by_port(group.current_master())
        return new.client().info("replication")["connected_slaves"] >= 1
    group.wait_ok(timeout=0.5)
    return victim.client().info("replication")["role"] == "slave"


def make_disaster(group):
    async def disaster(chaos: Chaos, until: float) -> None:
        span = until - time.monotonic()
        await asyncio.sleep(span * 0.2)
        chaos.counts["acked-at-kill"] = chaos.counts["acked"]
        t0 = time.monotonic()
        victim = await asyncio.to_thread(kill_busiest_master, group, chaos.room_ids)
        chaos.counts["master-kills"] += 1
        while True:
            try:
                if await asyncio.to_thread(failed_over, group, victim):
                    break
            except Exception:
                pass
            await asyncio.sleep(0.1)
        chaos.counts["failover-ms"] = int((time.monotonic() - t0) * 1000)
        chaos.counts["acked-at-failover"] = chaos.counts["acked"]
        # The dead master comes back (as an orchestrator restarts it), now a replica:
        # with NYUMBA_ACK_REPLICAS=1 and one replica per master, that shard's acks
        # wait ("busy") until it is back.
        await asyncio.sleep(1.0)
        if isinstance(group, SentinelGroup):  # as Sentinel-aware images do: ask, then follow
            master = ("--replicaof", "127.0.0.1", str(group.current_master()))
            await asyncio.to_thread(victim.start, *master)
        else:  # a Cluster node rejoins from its nodes.conf as the new master's replica
            await asyncio.to_thread(victim.start)
        while True:
            try:
                if await asyncio.to_thread(replica_back, group, victim):
                    break
            except Exception:
                pass
            await asyncio.sleep(0.1)
        chaos.counts["replica-back-ms"] = int((time.monotonic() - t0) * 1000)
        chaos.counts["acked-at-replica-back"] = chaos.counts["acked"]

    return disaster


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--store", choices=["cluster", "sentinel"], default="cluster")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--drop-rate", type=float, default=0.03)
    ap.add_argument("--ack-replicas", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the report as one JSON line")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix=f"nyumba-failover-{args.store}-"))
    group = ValkeyCluster(tmp / "cluster") if args.store == "cluster" else SentinelGroup(tmp)
    group.start()
    try:
        chaos = Chaos(
            tmp,
            games=args.games,
            seconds=args.seconds,
            drop_rate=args.drop_rate,
            seed=args.seed,
            think=0.25,  # games must outlast the failover
            store=Started(group),
            nodes=2,
            env={"NYUMBA_ACK_REPLICAS": str(args.ack_replicas)},
            disasters=make_disaster(group),
        )
        report = {"store": args.store, "ack_replicas": args.ack_replicas, **chaos.run()}
    finally:
        group.stop()
    bad = report["lost"] + report["duplicated"] + report["mismatched"]
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>22} {value}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
