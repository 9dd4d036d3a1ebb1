"""A game whose node dies the moment it ends is archived by another node, once.

Two nodes on one store and one archive (a real SQLite file; a real PostgreSQL server in a schema
of the test's own). Node A reaches the store through
a relay (``relaykit.CutRelay``) that lets the game's final compare-and-set through and nothing
A sends after it; once the other node's spectator sees the result, A is SIGKILLed. So the store
holds exactly what a node killed right after that write leaves behind — the game ended by its
last move, or by a resignation — and node B must find it and archive it. And a room found
finished but not in line (its entry deleted by hand, as an older node's write leaves it) is
put back in line by a join, and archived.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3

import asyncpg
import pytest
import redis
from archivekit import wait_archived
from asynckit import run
from pgkit import archive_url
from relaykit import CutRelay
from serverproc import ServerProcess
from wsclient import Client, create_room

import engine
from server.store.embedded import EmbeddedValkey

# A retry delay long enough that no sweep takes a game before the test has looked at it
ENV = {"NYUMBA_TICK_MS": "300", "NYUMBA_ARCHIVE_RETRY_MS": "3000"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def world(request, tmp_path_factory, key_prefix):
    """The store, the archive, node B (which survives) and what node A needs."""
    tmp = tmp_path_factory.mktemp(f"archive-killed-{request.param}")
    with contextlib.ExitStack() as stack:
        valkey = EmbeddedValkey(tmp / "valkey").start()
        stack.callback(valkey.stop)
        url = archive_url(request.param, tmp, stack)
        env = {**ENV, "DATABASE_URL": url, "NYUMBA_KEY_PREFIX": key_prefix + "killed:"}
        b = ServerProcess(redis_url=valkey.url, data_dir=tmp / "b", env=env).start()
        stack.callback(b.stop)
        yield valkey, url, env, b, tmp


@pytest.fixture
def doomed(world, request):
    """Node A, whose link to the store is cut after the compare-and-set that ``arm`` names."""
    valkey, _, env, _, tmp = world
    relay = CutRelay(valkey.port).start()
    a = ServerProcess(redis_url=relay.url, data_dir=tmp / request.node.name, env=env).start()
    yield a, relay
    a.stop(kill=True)


def rows_of(url: str, room: str) -> int:
    """The archive's rows of the room's games, read from the database itself."""
    if url.startswith("sqlite"):
        with contextlib.closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db:
            return db.execute("SELECT count(*) FROM games WHERE room = ?", (room,)).fetchone()[0]
    base, _, schema = url.partition("?search_path=")

    async def count() -> int:
        conn = await asyncpg.connect(base, server_settings={"search_path": schema})
        try:
            return int(await conn.fetchval("SELECT count(*) FROM games WHERE room = $1", room))
        finally:
            await conn.close()

    return run(count())


def end_on_a_dying_node(world, doomed, ending: str) -> tuple[str, str]:
    """A friend game on node A, a spectator on node B; A's link is cut right after the game's
    final compare-and-set (its last move, or a resignation), then A is SIGKILLed.
    Returns the room and the game's permanent id."""
    _, _, _, b, _ = world
    a, relay = doomed
    r = create_room(a.url, "kalah")
    south, north = Client(a.ws_url), Client(a.ws_url)
    south.join(r["room"], r["token"])
    north.join(r["room"])
    watcher = Client(b.ws_url)
    watcher.join(r["room"])
    players = {side: c for c in (south, north) for side in c.sides}
    game, rng = engine.load("kalah"), random.Random(46)
    state = game.start()
    st = south.state
    if ending == "resignation":
        south.move(st["legal"][0]["move"], version=st["version"])
        st = watcher.wait_state(lambda s: s["version"] >= 1)
        relay.arm()
        north.send(t="resign", room=r["room"], id="r1")
    else:
        while True:
            mover = players[st["to_move"]]
            mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
            text = rng.choice(st["legal"])["move"]
            state = game.play(state, game.parse(state, text))
            last = game.outcome(state) is not None
            if last:
                relay.arm()
            mover.move(text, version=st["version"])
            if last:
                break
            st = watcher.wait_state(lambda s, v=st["version"]: s["version"] > v)
    assert relay.cut.wait(10), "the final compare-and-set never went out"
    final = watcher.wait_state(lambda s: s["outcome"] is not None)  # the write landed
    a.stop(kill=True)  # SIGKILL: nothing A had left to do is done
    for c in (south, north, watcher):
        with contextlib.suppress(Exception):
            c.close()
    return r["room"], final["archive"]


@pytest.mark.parametrize("ending", ["last-move", "resignation"])
def test_a_game_whose_node_dies_as_it_ends_is_archived_by_another_once(world, doomed, ending):
    _, url, _, b, _ = world
    room, game_id = end_on_a_dying_node(world, doomed, ending)
    shown = wait_archived(b.url, game_id, timeout=15)["game"]
    assert shown["room"] == room and shown["outcome"] is not None
    if ending == "resignation":
        assert shown["outcome"]["adjudication"] == "resignation"
    assert rows_of(url, room) == 1


def test_a_join_puts_a_finished_room_that_is_not_in_line_back_in_it(world, doomed, key_prefix):
    """The room's entry in the waiting set is deleted by hand (what an older node's write
    leaves when it dies between its compare-and-set and its own entry): nothing sweeps it
    until someone joins the room; then node B archives it."""
    valkey, url, env, b, _ = world
    waiting = f"{env['NYUMBA_KEY_PREFIX']}archive:{{waiting}}"
    store = redis.Redis.from_url(valkey.url)
    room, game_id = end_on_a_dying_node(world, doomed, "resignation")
    store.zrem(waiting, room)  # (B's sweep would take it 3 s after the end)
    assert store.zscore(waiting, room) is None and rows_of(url, room) == 0
    late = Client(b.ws_url)
    late.join(room)  # a spectator who comes to see the result
    late.close()
    wait_archived(b.url, game_id, timeout=15)
    assert rows_of(url, room) == 1 and store.zscore(waiting, room) is None
    store.close()
