"""nyumba on a real Valkey Cluster (3 masters + 3 replicas, started here):
every profile played to the end through two nodes, spectators on the other
node, presence and hand-over, expiry, the room quota, and slots holding live
rooms migrated between masters mid-game.

The cluster is module-scoped (it takes a few seconds to form); every node
here names only one cluster node in REDIS_URL and finds the rest itself.
"""

from __future__ import annotations

import asyncio
import gc
import random
import threading
import time
import warnings

import httpx
import pytest
from asynckit import run
from clusterkit import ValkeyCluster
from serverproc import ServerProcess
from wsclient import Client, create_room

import engine
from server.store.cluster import ClusterLink, slot_of
from server.store.store import Store

TIMERS = {
    "NYUMBA_ABSENT_MS": "1500",
    "NYUMBA_TICK_MS": "300",
    "NYUMBA_PRESENCE_TTL_MS": "1000",
    "NYUMBA_COMPUTER_LEASE_MS": "1500",
}
PREFIX = "cl:"


class Recorder(Client):
    """A client that keeps every state version and every error it was sent."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.versions: list[int] = []
        self.errors: list[dict] = []

    def _take(self, timeout: float) -> dict:
        msg = super()._take(timeout)
        if msg["t"] == "state":
            self.versions.append(msg["version"])
        elif msg["t"] == "error":
            self.errors.append(msg)
        return msg


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = ValkeyCluster(tmp_path_factory.mktemp("cluster")).start()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def two_nodes(cluster, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cluster-nodes")
    started = []
    try:
        for i in range(2):
            started.append(
                ServerProcess(
                    # Each node is told a different cluster node: any one will do.
                    redis_url=f"redis://127.0.0.1:{cluster.servers[i].port}/0",
                    data_dir=tmp / f"node{i}",
                    # Games here play as fast as the store answers: past a person's message
                    # budget per socket (that limit has tests of its own).
                    env={"NYUMBA_KEY_PREFIX": PREFIX, "NYUMBA_RATE_MESSAGES": "1000000", **TIMERS},
                ).start()
            )
        yield started
    finally:
        for s in started:
            s.stop()
    for s in started:
        assert "Traceback" not in s.log(), s.log()


def replay(record: dict) -> tuple[str, int]:
    game = engine.load(record["game"], **record["options"])
    state = game.start()
    for text in record["moves"]:
        state = game.play(state, game.parse(state, text))
    return game.describe(state), len(record["moves"])


def room_slot(room: str) -> int:
    return slot_of(f"{PREFIX}room:{{{room}}}")


def step(players: dict, watcher: Client, rng: random.Random, acked: list) -> dict:
    """One move by whoever is to move; returns the state after it."""
    st = watcher.wait_state(lambda s: True)
    mover = players[st["to_move"]]
    mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
    intent = mover.move(rng.choice(st["legal"])["move"], version=st["version"])
    try:
        acked.append((intent, mover.expect("ack", id=intent, timeout=20)["version"]))
    except TimeoutError as exc:
        raise AssertionError(f"no ack for {intent}; errors seen: {mover.errors}") from exc
    return watcher.wait_state(lambda s, v=st["version"]: s["version"] > v, timeout=20)


@pytest.mark.parametrize("game", [p.name for p in engine.profiles()])
def test_every_profile_plays_to_the_end_across_two_nodes(cluster, two_nodes, game):
    a, b = two_nodes
    r = create_room(a.url, game)
    south = Recorder(a.ws_url)
    south.join(r["room"], r["token"])
    north = Recorder(b.ws_url)
    north.join(r["room"])
    watcher = Recorder(b.ws_url)  # a spectator on the node the creator is not on
    assert watcher.join(r["room"])["sides"] == []
    rng = random.Random(game)
    acked: list = []
    st = watcher.state
    while st["outcome"] is None:
        st = step({0: south, 1: north}, watcher, rng, acked)
    record = httpx.get(f"{a.url}/api/rooms/{r['room']}/history").json()
    assert replay(record) == (st["position"], st["plies"])
    assert [i for i, _ in acked] == record["ids"]
    # The spectator on the other node saw every version, in order.
    assert sorted(set(watcher.versions)) == list(range(st["version"] + 1))
    assert not (south.errors or north.errors or watcher.errors)
    for c in (south, north, watcher):
        c.close()


def test_rooms_land_on_every_master_and_each_node_names_one(cluster, two_nodes):
    a, _ = two_nodes
    owners = set()
    for _ in range(60):  # random room ids: 12 missed a master one run in ~40
        room = create_room(a.url, "kalah")["room"]
        owners.add(cluster.master_of_slot(room_slot(room)).port)
        assert httpx.get(f"{a.url}/api/rooms/{room}/record").status_code == 200
        if len(owners) == 3:
            break
    assert len(owners) == 3
    assert httpx.get(a.url + "/healthz").json()["ok"] is True


def test_presence_and_hand_over_across_nodes(two_nodes):
    a, b = two_nodes
    r = create_room(a.url, "kalah")
    south = Client(a.ws_url)
    south.join(r["room"], r["token"])
    north = Client(b.ws_url)
    north.join(r["room"])
    st = south.wait_state(lambda s: s["seats"][1]["present"])
    token = north.token
    north.close()
    south.wait_state(lambda s: not s["seats"][1]["present"], timeout=10)
    time.sleep(1.6)
    south.send(t="hand_over", room=r["room"], id="now")
    south.wait_state(lambda s: s["seats"][1]["holder"] == "computer")
    st = south.state
    south.move(st["legal"][0]["move"], version=st["version"])
    south.expect("ack")
    st = south.wait_state(lambda s: s["plies"] >= 2 and s["to_move"] == 0, timeout=20)
    assert st["last"]["side"] == 1  # the computer answered for North
    back = Client(b.ws_url)
    assert back.join(r["room"], token)["sides"] == [1]
    back.send(t="reclaim", room=r["room"])
    st = back.wait_state(lambda s: s["seats"][1]["holder"] == "person")
    assert south.wait_state(lambda s: s["seats"][1]["present"])
    for c in (south, back):
        c.close()


def _status(srv: ServerProcess, room: str) -> int:
    return httpx.get(f"{srv.url}/api/rooms/{room}/record").status_code


def _until(cond, timeout: float) -> float:
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < timeout
        time.sleep(0.05)
    return time.monotonic()


def test_rooms_expire_and_the_room_quota_holds(cluster, tmp_path):
    srv = ServerProcess(
        redis_url=cluster.url,
        data_dir=tmp_path,
        env={
            "NYUMBA_KEY_PREFIX": PREFIX + "exp:",
            "NYUMBA_ROOM_TTL_MS": "4000",
            "NYUMBA_IDLE_TTL_MS": "1000",
            "NYUMBA_TICK_MS": "200",
            "NYUMBA_PRESENCE_TTL_MS": "600",
            "NYUMBA_ROOMS_PER_MINUTE": "3",
        },
    ).start()
    try:
        idle = create_room(srv.url, "kalah")
        kept = create_room(srv.url, "kalah")
        created = time.monotonic()
        c = Client(srv.ws_url)
        c.join(kept["room"], kept["token"])
        # The quota counts per address and minute: 3 fit, then 429 (five more tries cover
        # a minute boundary falling between them).
        codes = [httpx.post(srv.url + "/api/rooms", json={"game": "kalah"}) for _ in range(5)]
        refused = [r for r in codes if r.status_code == 429]
        assert refused and refused[0].json()["code"] == "rate-limited"
        # Nobody was ever in `idle`: gone after the idle TTL, while `kept` is held open...
        _until(lambda: _status(srv, idle["room"]) == 404, 5)
        assert _status(srv, kept["room"]) == 200
        # ...but not past the room TTL from creation.
        gone = _until(lambda: _status(srv, kept["room"]) == 404, 10)
        assert gone - created > 3.0
        c.close()
    finally:
        srv.stop()
    assert "Traceback" not in srv.log()


def test_resharding_under_play_loses_and_repeats_nothing(cluster, two_nodes):
    a, b = two_nodes
    rng = random.Random(18)
    games = []
    for i in range(4):
        r = create_room(a.url, "oware")
        south = Recorder((a, b)[i % 2].ws_url)
        south.join(r["room"], r["token"])
        north = Recorder((b, a)[i % 2].ws_url)
        north.join(r["room"])
        watcher = Recorder((b, a)[i % 2].ws_url)
        watcher.join(r["room"])
        games.append((r["room"], {0: south, 1: north}, watcher, []))
    for _ in range(4):
        for _room, players, watcher, acked in games:
            step(players, watcher, rng, acked)

    # Move every live room's slot to another master, a key at a time with pauses,
    # while the games go on.
    owners_before = {room: cluster.master_of_slot(room_slot(room)) for room, *_ in games}
    moved: list[int] = []

    def reshard():
        for room, *_ in games:
            source = cluster.master_of_slot(room_slot(room))
            target = next(m for m in cluster.masters() if m is not source)
            moved.append(cluster.migrate_slot(room_slot(room), target, pause=0.15))

    mover = threading.Thread(target=reshard)
    mover.start()
    while mover.is_alive():
        for _room, players, watcher, acked in games:
            if watcher.state["outcome"] is None:
                step(players, watcher, rng, acked)
    mover.join()
    for room, *_ in games:
        assert cluster.master_of_slot(room_slot(room)) is not owners_before[room], room
    assert sum(moved) >= len(games) * 2, moved  # the room and its presence, at least
    # ...and the games go on to their end on the new owners.
    for _room, players, watcher, acked in games:
        while watcher.state["outcome"] is None:
            step(players, watcher, rng, acked)
    for room, players, watcher, acked in games:
        record = httpx.get(f"{b.url}/api/rooms/{room}/history").json()
        assert replay(record) == (watcher.state["position"], watcher.state["plies"]), room
        assert [i for i, _ in acked] == record["ids"], (acked, record["ids"])  # none lost or twice
        missed = set(range(watcher.state["version"] + 1)) - set(watcher.versions)
        assert not missed, f"{room}: the spectator missed versions {sorted(missed)}"
        for c in (*players.values(), watcher):
            assert not c.errors, c.errors
            c.close()


def test_store_follows_moved_slots_and_waits_for_replicas(cluster):
    async def scenario():
        store = Store(cluster.url, PREFIX + "store:")
        await store.start()
        try:
            assert store.sharded
            now = int(time.time() * 1000)
            assert await store.create("moving", 0, b"r0", now + 60_000)
            slot = slot_of(store.room_key("moving"))
            source = cluster.master_of_slot(slot)
            target = next(m for m in cluster.masters() if m is not source)
            await asyncio.to_thread(cluster.migrate_slot, slot, target)
            # The link still believes the old owner: MOVED, then the new owner answers.
            assert await store.cas("moving", 0, 1, b"r1", now + 60_000, b"n") == 0
            assert store.link.address_of(store.room_key("moving")) == f"127.0.0.1:{target.port}"
            assert store.link.redirects["MOVED"] >= 1
            # One replica per master: one is enough, two never come (the timeout answers).
            assert await store.replicated("moving", 1, 1000)
            two = Store(cluster.url, PREFIX + "store:")
            await two.start()
            assert not await two.replicated("moving", 2, 300)
            await two.close()
            # Confirmations asked for together share WAITs (group commit).
            rooms = [f"g{i}" for i in range(30)]
            for r in rooms:
                await store.create(r, 0, b"x", now + 60_000)
            before = store._replicas.sent
            assert all(await asyncio.gather(*(store.replicated(r, 1, 1000) for r in rooms)))
            assert store._replicas.sent - before < len(rooms)
        finally:
            await store.close()

    run(scenario())


def test_store_follows_ask_and_waits_out_a_split_room(cluster):
    """Mid-migration: the room's hash already moved, its presence not yet. A read
    of the room follows ASK; the compare-and-set (both keys) gets TRYAGAIN until
    the migration ends, then lands once."""

    async def scenario():
        store = Store(cluster.url, PREFIX + "ask:")
        await store.start()
        try:
            now = int(time.time() * 1000)
            assert await store.create("split", 0, b"r0", now + 60_000)
            await store.touch("split", {"0:a": now + 60_000}, now + 60_000)
            room, presence = store.room_key("split"), store.presence_key("split")
            slot = slot_of(room)
            source = cluster.master_of_slot(slot)
            target = next(m for m in cluster.masters() if m is not source)
            src, dst = source.client(), target.client()
            dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src.cluster("MYID"))
            src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst.cluster("MYID"))
            src.execute_command("MIGRATE", "127.0.0.1", target.port, room, 0, 5000)
            data, members = await store.load("split")
            assert data == b"r0" and [m for m, _ in members] == [b"0:a"]
            assert store.link.redirects["ASK"] >= 1

            def finish():
                time.sleep(0.5)
                src.execute_command("MIGRATE", "127.0.0.1", target.port, presence, 0, 5000)
                for c in (dst, src):
                    c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst.cluster("MYID"))

            done = asyncio.create_task(asyncio.to_thread(finish))
            assert await store.cas("split", 0, 1, b"r1", now + 60_000, b"n") == 0
            await done
            assert store.link.redirects["TRYAGAIN"] >= 1
            assert (await store.load("split"))[0] == b"r1"
        finally:
            await store.close()

    run(scenario())


def test_closing_the_link_closes_the_connections_still_opening(cluster):
    """A slot-map refresh in flight when the link closes: the socket it was opening is
    closed too, not left for the garbage collector to find (an "unclosed transport"
    warning in whatever runs then)."""

    async def scenario():
        link = ClusterLink(cluster.url)
        link.refresh_soon()  # connecting to the seed node now
        await asyncio.sleep(0)
        link.close()
        await asyncio.sleep(0.5)  # time for a connect that ignored the close to finish
        return link.conns

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        conns = run(scenario())
        gc.collect()
    assert conns == {}
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
