"""Arenas on a real Valkey Cluster (3 masters, started here): every key of an arena hashes to
its one slot ``{arena:<id>}`` (the listing's index to another, ``{arenas}``, written
separately), its news go out on its sharded channel, and a crowd of players pairing through
three connections is paired by the one-slot script exactly as on one store."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from arenakit import check_crowd, crowd, new_arena
from asynckit import run
from clusterkit import ValkeyCluster

from server.store.arena import ArenaStore
from server.store.cluster import slot_of
from server.store.store import Store

PREFIX = "acl:"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = ValkeyCluster(tmp_path_factory.mktemp("arena-cluster"), masters=3, replicas=0).start()
    yield c
    c.stop()


def test_an_arena_lives_in_one_slot_and_pairs_a_crowd_on_a_cluster(cluster):
    async def scenario():
        stores = [Store(cluster.url, prefix=PREFIX) for _ in range(3)]
        for s in stores:
            await s.start()
        nodes = [ArenaStore(s.link, s.prefix, s.sharded) for s in stores]
        heard: list[dict] = []
        pubsub = stores[0].pubsub()
        pubsub.deliver = lambda channel, data: heard.append(json.loads(data))
        try:
            assert all(s.sharded for s in stores)
            # Arenas on other masters than the index's: created, listed, read back.
            specs = [await new_arena(nodes[i % 3]) for i in range(6)]
            index_master = stores[0].link.address_of(nodes[0].index)
            masters = {stores[0].link.address_of(nodes[0].keys(s.id) + "meta") for s in specs}
            assert masters - {index_master}, "every arena landed on the index's master"
            listed = {a.id for a in await nodes[1].listing(0)}
            assert {s.id for s in specs} <= listed
            spec = specs[0]
            await pubsub.subscribe(nodes[0].channel(spec.id))
            players = [f"c{i:02d}" for i in range(60)]
            for i, p in enumerate(players):
                await nodes[i % 3].join(spec.id, p, None, 1400 + 5 * i)
            seen = await crowd(nodes, spec.id, players, seconds=2.0, seed=7)
            print(f"{len(seen.pairings)} games on the cluster")
            assert len(seen.pairings) > 60
            await check_crowd(nodes[0], spec.id, seen, 10**9)
            # Every key the scripts wrote is in the arena's one slot.
            k = nodes[0].keys(spec.id)
            slot = slot_of(k + "meta")
            owner = cluster.master_of_slot(slot).client()
            written = [str(key) for key in owner.keys(k + "*")]
            assert len(written) >= 6, written  # (the emptied ones are gone)
            assert {slot_of(key) for key in written} == {slot}
            assert slot_of(nodes[0].channel(spec.id)) == slot != slot_of(nodes[0].index)
            deadline = time.monotonic() + 5
            while len([h for h in heard if h["k"] == "finished"]) < len(seen.pairings):
                assert time.monotonic() < deadline, len(heard)
                await asyncio.sleep(0.01)
            assert len([h for h in heard if h["k"] == "paired"]) == len(seen.pairings)
            await nodes[2].mark_finished(spec.id)
            assert spec.id not in {a.id for a in await nodes[0].listing(0)}
        finally:
            await pubsub.aclose()
            for s in stores:
                await s.close()

    run(scenario())
