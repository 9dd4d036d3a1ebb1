"""The lobby and clocks on a real Valkey Cluster (3 masters, started here): seeks from two
nodes pair through the one-slot script, and a clocked game flags with nobody sending — the
lobby's keys in the ``{lobby}`` slot, the deadline index in ``{deadlines}``, rooms in their
own."""

from __future__ import annotations

import time

import pytest
from clusterkit import ValkeyCluster
from serverproc import ServerProcess
from wsclient import Client

CLOCK = {"initial_ms": 2000, "increment_ms": 0}


@pytest.fixture(scope="module")
def nodes(tmp_path_factory):
    cluster = ValkeyCluster(tmp_path_factory.mktemp("lobby-cluster")).start()
    tmp = tmp_path_factory.mktemp("lobby-cluster-nodes")
    started = []
    try:
        for i in range(2):
            started.append(
                ServerProcess(
                    redis_url=f"redis://127.0.0.1:{cluster.servers[i].port}/0",
                    data_dir=tmp / f"node{i}",
                    env={"NYUMBA_KEY_PREFIX": "lcl:", "NYUMBA_SEEKS_PER_ADDRESS": "1000"},
                ).start()
            )
        yield started
    finally:
        for s in started:
            s.stop(kill=True)
        cluster.stop()


def test_seeks_on_two_nodes_pair_and_the_game_flags_on_a_cluster(nodes) -> None:
    a, b = nodes
    watcher = Client(b.ws_url)
    watcher.send(t="lobby")
    watcher.expect("lobby")
    first, second = Client(a.ws_url), Client(b.ws_url)
    first.send(t="seek", game="oware", clock=CLOCK, side="south")
    opened = first.expect("seeking")["seek"]
    assert [s["id"] for s in watcher.expect("lobby")["seeks"]] == [opened]
    second.send(t="seek", game="oware", clock=CLOCK)
    p2, p1 = second.expect("paired"), first.expect("paired")
    assert p1["room"] == p2["room"] and (p1["side"], p2["side"]) == (0, 1)
    assert watcher.expect("lobby")["gone"] == [opened]
    south, north = (
        Client(a.ws_url, p1["room"], p1["token"]),
        Client(b.ws_url, p2["room"], p2["token"]),
    )
    south.join()
    north.join()
    for ply in range(4):  # two moves a side (Oware alternates): a flag before them aborts
        mover = (south, north)[ply % 2]
        mover.wait_state(lambda s, ply=ply: s["plies"] == ply and s["to_move"] == ply % 2)
        mover.move(mover.state["legal"][0]["move"])
    south.wait_state(lambda s: s["plies"] == 4)
    started = time.monotonic()
    for player in (south, north):
        over = player.wait_state(lambda s: s["outcome"] is not None, timeout=8)
        assert over["adjudication"] == "timeout" and over["outcome"]["winner"] == 1
    assert time.monotonic() - started < 4
