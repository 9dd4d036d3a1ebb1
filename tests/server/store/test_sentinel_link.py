"""The store's link through Sentinel talks to the master only.

A Sentinel that has not yet heard of a failover names the old master; restarted as a replica
of the new one and still syncing, it holds no data and answers reads — and scripts that read
before they write — from nothing: CI saw a live room's players told "the room has expired"
right after a failover (``test_store_rollback.py``). Here the link's resolver names a real
replica first (of a master it cannot reach: an empty data set, as mid-sync), then the master.
"""

from __future__ import annotations

from asynckit import run
from clusterkit import _Server, free_ports

from server.store.resp import Link


def test_a_link_through_sentinel_passes_over_a_replica_it_is_named(tmp_path) -> None:
    master_port, replica_port, nowhere = free_ports(3)
    master = _Server(master_port, tmp_path / "master")
    replica = _Server(replica_port, tmp_path / "replica")
    master.start()
    replica.start("--replicaof", "127.0.0.1", str(nowhere))
    named: list[int] = []

    async def resolve() -> tuple[str, int]:
        port = replica_port if not named else master_port  # a lagging Sentinel, then one that knows
        named.append(port)
        return "127.0.0.1", port

    async def scenario() -> int:
        link = Link("redis://127.0.0.1/0", resolve=resolve, retry_delays=(0.05, 0.1))
        try:
            return int(await link.execute("EXISTS", "the-room"))
        finally:
            link.close()

    try:
        master.client().set("the-room", "data")
        assert replica.client().execute_command("ROLE")[0] == "slave"
        assert run(scenario()) == 1
        assert named == [replica_port, master_port]
    finally:
        master.stop()
        replica.stop()
