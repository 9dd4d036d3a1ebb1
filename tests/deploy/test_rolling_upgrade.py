"""A rolling upgrade across one release, as deploy/README.md ("Upgrading") tells it, with
games in progress: two nodes of the release before (its commit exported from git) on one
store and one archive; A replaced by a node of this release, play on across both; B replaced;
``nyumba layout current``; the games finished. Every acknowledged move is in the archive, and
every game is archived once. Without the scheme (a new node writing its own layout at once)
the old node's games break: the second test."""

from __future__ import annotations

import collections
import os
import random
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis
from archivekit import wait_archived
from clusterkit import ValkeyCluster
from pgkit import sqlite_url
from redis.cluster import RedisCluster
from serverproc import ROOT, ServerProcess
from wsclient import Client, create_room

from server.rooms.layout import CURRENT, PREVIOUS, UNSET, mark

# The release before this one (main with the arenas, before a clocked move's record carried
# the clock, layout 4): it reads layouts 1-3 and writes 2 or 3 as the store's flag says. The
# one before it (8597019, when the layouts got their numbers) wrote 2 and knew nothing of the
# flag. The next release that makes a layout records its own here.
PREVIOUS_RELEASE = "282a84ca1273a9af2a439863b8a3196eb5cf6989"
ENV = {
    "NYUMBA_TICK_MS": "300",
    "NYUMBA_ARCHIVE_RETRY_MS": "500",
    "NYUMBA_ABSENT_MS": "60000",  # nobody is judged gone while their node is replaced
}


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory) -> Path:
    """The release before, exported (its server runs on this venv's dependencies: the
    export's own packages come first on the path, as for ``load.py --roots``)."""
    out = tmp_path_factory.mktemp("previous-release")
    tree = subprocess.run(
        ["git", "archive", PREVIOUS_RELEASE], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(out)], input=tree.stdout, check=True)
    return out


class Fleet:
    """Nodes on one store and one archive, each of a release (a checkout's root)."""

    def __init__(self, store: str, tmp: Path, prefix: str, cluster: bool = False):
        self.store, self.tmp, self.prefix = store, tmp, prefix
        self.archive = sqlite_url(tmp)
        self.started: list[ServerProcess] = []
        self.db = (RedisCluster if cluster else redis.Redis).from_url(store)

    def node(self, root: Path) -> ServerProcess:
        return self.nodes(root, 1)[0]

    def nodes(self, root: Path, n: int) -> list[ServerProcess]:
        """``n`` nodes of the release at ``root``, started side by side (a start is seconds)."""
        env = {**ENV, "DATABASE_URL": self.archive, "NYUMBA_KEY_PREFIX": self.prefix}
        made = [
            ServerProcess(
                redis_url=self.store,
                data_dir=self.tmp / f"n{len(self.started) + i}",
                env=env,
                root=root,
            )
            for i in range(n)
        ]
        self.started += made
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(ServerProcess.start, made))

    def layout_cli(self, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "NYUMBA_KEY_PREFIX": self.prefix, "REDIS_URL": self.store}
        return subprocess.run(
            [sys.executable, "-m", "server.run.cli", "layout", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )

    def stored(self, room: str) -> bytes:
        return self.db.hget(f"{self.prefix}room:{{{room}}}", "data")

    def close(self) -> None:
        for s in self.started:
            s.stop(kill=True)
        flag = f"{self.prefix}layout:{{layout}}"  # (rooms expire; these keys would not)
        self.db.delete(flag, flag + ":nodes", flag + ":info")
        self.db.close()


@pytest.fixture
def fleet(shared_store, tmp_path, key_prefix):
    f = Fleet(shared_store, tmp_path, f"{key_prefix}upgrade-{tmp_path.name[-12:]}:")
    yield f
    f.close()


class Game:
    """A friend game: South on one node, North on another, and the moves each acked."""

    def __init__(self, south_node: ServerProcess, north_node: ServerProcess, game: str, **body):
        made = create_room(south_node.url, game, mode="friend", side="south", **body)
        self.room = made["room"]
        self.south = Client(south_node.ws_url)
        self.south.join(self.room, made["token"])
        self.north = Client(north_node.ws_url)
        self.north.join(self.room)
        self.where = {"south": south_node, "north": north_node}
        self.acked: list[str] = []

    def players(self) -> list[Client]:
        return [self.south, self.north]

    def over(self) -> bool:
        return self.south.state["outcome"] is not None

    def move(self, rng: random.Random) -> None:
        """One move by the side to move, acknowledged, and seen by both players."""
        mover = self.south if self.south.state["to_move"] in self.south.sides else self.north
        v = mover.state["version"]
        text = rng.choice(mover.state["legal"])["move"]
        mid = mover.move(text)
        assert mover.expect("ack", id=mid)["version"] == v + 1
        self.acked.append(text)
        for c in self.players():
            c.wait_state(lambda s, v=v: s["version"] >= v + 1)

    def moves(self, rng: random.Random, n: int) -> None:
        for _ in range(n):
            if self.over():
                return
            self.move(rng)

    def moved_to(self, old: ServerProcess, new: ServerProcess) -> None:
        """The players whose node ``old`` was take their seats again on ``new``."""
        for name, node in self.where.items():
            if node is old:
                c: Client = getattr(self, name)
                again = Client(new.ws_url)
                again.join(self.room, c.token)
                assert again.sides == c.sides
                setattr(self, name, again)
                self.where[name] = new

    def finish(self) -> str:
        """Resign (South) unless the game is over; the archive id."""
        if not self.over():
            self.south.send(t="resign", room=self.room, id=f"resign-{self.room}")
        final = self.south.wait_state(lambda s: s["outcome"] is not None and s["archive"])
        self.north.wait_state(lambda s: s["outcome"] is not None)
        return final["archive"]


def replaced(fleet: Fleet, old: ServerProcess, root: Path, games: list[Game]) -> ServerProcess:
    """A rolling update's step: the new node starts, the old one stops (SIGTERM: its sockets
    close with 1012) and its players rejoin on the new one."""
    new = fleet.node(root)
    old.stop()
    assert old.proc.returncode == 0, old.log()
    for g in games:
        g.moved_to(old, new)
    return new


def wait_for(pred, what: str, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not (found := pred()):
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)
    return found


def following(fleet: Fleet, nodes: set[str]) -> None:
    """Wait until each of ``nodes`` says it reads this release's layout and writes it."""
    info = f"{fleet.prefix}layout:{{layout}}:info"
    both = f"{CURRENT} {CURRENT}".encode()
    wait_for(
        lambda: {k.decode() for k, v in fleet.db.hgetall(info).items() if v == both} >= nodes,
        "the nodes did not follow the flag",
    )


def rooms_counted(fleet: Fleet, games: list[Game]) -> bool:
    """Whether ``nyumba layout`` counts the games' rooms by the layouts they are stored in."""
    marks = collections.Counter(fleet.stored(g.room)[:1] for g in games)
    lines = {
        f"rooms in layout {n}: {marks[mark(n)]}"
        for n in (UNSET, PREVIOUS, CURRENT)
        if marks[mark(n)]
    }
    return lines <= set(fleet.layout_cli().stdout.splitlines())


def node_id(srv: ServerProcess) -> str:
    return httpx.get(srv.url + "/healthz", timeout=5).json()["node"]


def test_a_rolling_upgrade_loses_nothing(fleet, previous_release):
    rng = random.Random(46)
    fleet.db.set(f"{fleet.prefix}layout:{{layout}}", str(PREVIOUS))  # switched to its own
    a, b = fleet.nodes(previous_release, 2)
    clock = {"initial_ms": 600_000, "increment_ms": 2000}  # (its deadline indexed by both)
    games = [Game(a, b, "kalah"), Game(b, a, "oware"), Game(a, b, "kalah", clock=clock)]
    for g in games:
        g.moves(rng, 6)
    # A is replaced: it writes what the release before reads, and B plays on with it
    a = replaced(fleet, a, ROOT, games)
    games.append(Game(a, b, "kalah"))  # made by the new node, joined on the old one
    for _ in range(3):
        for g in games:
            g.moves(rng, 12)  # appended moves, and whole writes every 32nd, by both releases
    for g in games:
        assert fleet.stored(g.room)[:1] == mark(PREVIOUS)
    refused = fleet.layout_cli("current")  # B still runs the release before
    assert refused.returncode == 1 and node_id(b) in refused.stderr, refused
    assert fleet.db.get(f"{fleet.prefix}layout:{{layout}}") == str(PREVIOUS).encode()
    # B is replaced; every node reads both layouts, and the operator switches
    b = replaced(fleet, b, ROOT, games)
    for g in games:
        g.moves(rng, 4)
    switched = fleet.layout_cli("current")
    assert switched.returncode == 0, switched
    following(fleet, {node_id(a), node_id(b)})
    status = fleet.layout_cli()
    assert f"the store's layout: {CURRENT}" in status.stdout and status.returncode == 0
    for g in games:
        g.moves(rng, 2)
        if not g.over():
            assert fleet.stored(g.room)[:1] == mark(CURRENT)
    # a room keeps its layout until its next change: the command counts them
    wait_for(lambda: rooms_counted(fleet, games), "the rooms' layouts, counted")
    assert any(g.over() for g in games)  # (with this seed two end by play, two by resigning)
    archived = {g.room: g.finish() for g in games}
    for g in games:
        shown = wait_archived(a.url, archived[g.room])
        assert [m["move"] for m in shown["record"]["moves"]] == g.acked
    con = sqlite3.connect(fleet.archive.removeprefix("sqlite:///"))
    rows = con.execute("SELECT room, count(*) FROM games GROUP BY room").fetchall()
    assert dict(rows) == {g.room: 1 for g in games}
    for srv in (a, b):
        assert "Traceback" not in srv.log()


def test_without_the_scheme_the_old_nodes_games_break(fleet, previous_release):
    """The store asks for this release's layout while a node of the release before still
    runs (what the CLI refuses; a new release writing its own layout at once does the same):
    the rooms the new node writes are lost to the old one."""
    rng = random.Random(11)
    a, b = fleet.nodes(previous_release, 2)
    game = Game(a, b, "kalah")
    game.moves(rng, 4)
    fleet.db.set(f"{fleet.prefix}layout:{{layout}}", str(CURRENT))
    a = replaced(fleet, a, ROOT, [game])
    game.moves(rng, 1)  # South's, on the new node: the room is written in layout 4
    assert fleet.stored(game.room)[:1] == mark(CURRENT)
    mover = game.north  # on B, of the release before
    mid = mover.move(rng.choice(mover.state["legal"])["move"])
    assert mover.expect("error", id=mid)["code"] == "internal"  # it cannot read the room
    assert f"UnknownLayout: a room stored in layout {CURRENT}" in b.log()
    assert fleet.stored(game.room)[:1] == mark(CURRENT)  # and nothing changed


def test_a_node_refuses_to_start_when_the_store_asks_for_a_layout_it_cannot_write(fleet):
    """A rollback across a switch (or an upgrade skipping a release) stops at its first node
    rather than breaking the games of the rooms it cannot read."""
    fleet.db.set(f"{fleet.prefix}layout:{{layout}}", "5")
    with pytest.raises(RuntimeError, match="server exited early") as failed:
        fleet.node(ROOT)
    assert "the store asks for layout '5'; this release writes 2, 3 or 4" in str(failed.value)


def test_on_a_cluster_the_switch_waits_for_the_old_node(tmp_path, key_prefix, previous_release):
    """On a Cluster the nodes' channels are sharded, one master each: the command asks every
    master for them."""
    rng = random.Random(7)
    cluster = ValkeyCluster(tmp_path / "cluster", replicas=0).start()
    fleet = Fleet(cluster.url, tmp_path, key_prefix + "upgrade-cluster:", cluster=True)
    try:
        old, new = fleet.node(previous_release), fleet.node(ROOT)
        game = Game(old, new, "kalah")
        game.moves(rng, 6)
        refused = fleet.layout_cli("current")
        assert refused.returncode == 1 and node_id(old) in refused.stderr, refused
        assert node_id(new) not in refused.stderr
        old = replaced(fleet, old, ROOT, [game])
        game.moves(rng, 2)
        assert fleet.layout_cli("current").returncode == 0
        following(fleet, {node_id(old), node_id(new)})
        game.moves(rng, 2)
        assert fleet.stored(game.room)[:1] == mark(CURRENT)
        assert rooms_counted(fleet, [game])  # found on its master by a scan of each
        game.finish()
    finally:
        fleet.close()
        cluster.stop()
