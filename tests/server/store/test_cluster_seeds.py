"""Several seeds for a Cluster: ``REDIS_URL=redis://host:port,host:port…/0`` names
nodes that are tried in turn, so a node (re)started while one of them is down still
finds the cluster; the link reloads its slot map from any node it knows; a list of
nodes that turns out to be no Cluster is refused before anything starts.

The cluster here is this module's own (3 masters + 3 replicas): a test kills one of
its masters.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from asynckit import run
from clusterkit import ValkeyCluster
from serverproc import ServerProcess, free_port
from wsclient import Client, create_room

from server.run.cli import embedded_valkey
from server.store.cluster import ClusterLink, slot_of

PREFIX = "seeds:"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = ValkeyCluster(tmp_path_factory.mktemp("seeds-cluster")).start()
    yield c
    c.stop()


def test_a_node_started_while_its_first_seed_is_down_serves_a_game(cluster, tmp_path):
    first = cluster.servers[0]  # a master: its slots move to its replica
    promoted = cluster.fail_over(first)
    others = [s for s in cluster.servers if s.alive and s is not promoted][:2]
    url = cluster.seeds_url([first, *others])
    node = ServerProcess(
        redis_url=url, data_dir=tmp_path, env={"NYUMBA_KEY_PREFIX": PREFIX}
    ).start()
    try:
        # A room whose slot the promoted replica now owns: the map the node loaded is
        # the one after the failover.
        for _ in range(60):
            r = create_room(node.url, "kalah")
            if cluster.master_of_slot(slot_of(f"{PREFIX}room:{{{r['room']}}}")) is promoted:
                break
        else:
            pytest.fail("no room landed on the promoted master in 60 tries")
        south, north = Client(node.ws_url), Client(node.ws_url)
        south.join(r["room"], r["token"])
        north.join(r["room"])
        players = {0: south, 1: north}
        for _ in range(2):
            st = south.wait_state(lambda s: True)
            mover = players[st["to_move"]]
            mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
            intent = mover.move(st["legal"][0]["move"], version=st["version"])
            assert mover.expect("ack", id=intent)["version"] == st["version"] + 1
            for c in (south, north):
                c.wait_state(lambda s, v=st["version"]: s["version"] > v)
        for c in (south, north):
            c.close()
    finally:
        node.stop()
    assert "Traceback" not in node.log(), node.log()


def test_both_store_clients_pass_over_a_dead_seed(cluster):
    """The per-message link and redis-py's client (the rest) are both given every seed."""
    from server.store.store import Store

    dead = f"127.0.0.1:{free_port()}"
    live = [s for s in cluster.servers if s.alive][:2]
    url = cluster.seeds_url(live).replace("redis://", f"redis://{dead},")

    async def scenario() -> tuple[bytes | None, bytes | None, list[str]]:
        store = Store(url, PREFIX + "both:")
        try:
            await store.start()
            assert store.sharded
            await store.create("r", 0, b"data", int(time.time() * 1000) + 60_000)
            await store.redis.set(PREFIX + "both:plain", b"yes", ex=60)
            data, _ = await store.load("r")
            return data, await store.redis.get(PREFIX + "both:plain"), store.link.map_sources()
        finally:
            await store.close()

    data, plain, sources = run(scenario())
    assert (data, plain) == (b"data", b"yes")
    # Where the map is reloaded from: every live node (replicas learned from the map), and
    # last the dead seed, which the map does not name.
    assert {f"127.0.0.1:{s.port}" for s in cluster.servers if s.alive} <= set(sources)
    assert sources[-1] == dead


def test_the_link_reloads_its_map_from_a_replica_when_no_master_answers(cluster):
    """The replicas named in the slot map count as places to ask: with every master
    stalled (SIGSTOP: connections accepted, nothing answered) the map still loads."""
    masters = cluster.masters()
    assert any(s.alive and s not in masters for s in cluster.servers)  # a replica is up

    async def scenario() -> tuple[int, float]:
        link = ClusterLink(cluster.seeds_url(masters[:1]), command_timeout=0.5)
        try:
            await link.refresh()
            before = link.refreshes
            for m in masters:
                m.pause()
            try:
                t0 = time.monotonic()
                await link.refresh()
                took = time.monotonic() - t0
            finally:
                for m in masters:
                    m.resume()
            return link.refreshes - before, took
        finally:
            link.close()

    loads, took = run(scenario())
    assert loads == 1
    assert took < 5, took  # three stalled masters at 0.5 s each, then a replica
    cluster.wait_ok()


def _serve(url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NYUMBA_")}
    env["REDIS_URL"] = url
    return subprocess.run(
        [sys.executable, "-m", "server.run.cli", "serve", "--port", str(free_port())],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_several_nodes_that_are_no_cluster_are_refused(tmp_path):
    """Two plain Valkeys (and a dead address first): the one that answers is no
    Cluster node, so the list is a mistake (exit 2, one line naming the variable,
    without its password)."""
    with embedded_valkey(tmp_path / "a") as a, embedded_valkey(tmp_path / "b") as b:
        for u in (a, b):
            with redis.Redis.from_url(u) as client:
                client.config_set("requirepass", "secret")
        dead = f"127.0.0.1:{free_port()}"
        hosts = [u.split("//")[1].split("/")[0] for u in (a, b)]
        url = f"redis://:secret@{dead},{hosts[0]},{hosts[1]}/0"
        done = _serve(url, tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "REDIS_URL=" in lines[0] and "not allowed" in lines[0] and "Cluster" in lines[0]
    assert hosts[0] in lines[0]  # the node that answered
    assert "secret" not in lines[0]


def test_the_store_alone_refuses_several_nodes_that_are_no_cluster(tmp_path):
    from server.store.store import Store
    from server.store.topology import NotACluster

    async def scenario(url: str) -> None:
        store = Store(url, PREFIX)
        try:
            await store.start()
        finally:
            await store.close()

    with embedded_valkey(tmp_path / "a") as a, embedded_valkey(tmp_path / "b") as b:
        url = a.removesuffix("/0") + "," + b.split("//")[1]
        with pytest.raises(NotACluster):
            run(scenario(url))
