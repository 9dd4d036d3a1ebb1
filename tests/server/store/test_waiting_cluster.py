"""The archive's waiting set on a real Valkey Cluster (3 masters, started here): a script
touches one slot, so a room's compare-and-set puts it in line in its own slot's set, and every
node's sweep reads all the slots' sets in turn.

Node A's archive is a file of its own that the test keeps locked (A never writes a game, and
never puts a room in line: its tries only put off a turn already taken), so a game A ends
reaches node B's archive only through the place in line its compare-and-set gave the room.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time

import pytest
from archivekit import wait_archived
from asynckit import run
from clusterkit import ValkeyCluster
from pgkit import sqlite_url
from serverproc import ServerProcess
from wsclient import Client, create_room

from server.store import waiting
from server.store.cluster import slot_of
from server.store.slots import SLOTS
from server.store.store import Store

PREFIX = "wcl:"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = ValkeyCluster(tmp_path_factory.mktemp("waiting-cluster")).start()
    yield c
    c.stop()


def test_a_room_is_put_in_line_in_its_own_slot_and_taken_out_by_its_writes(cluster):
    async def scenario():
        store = Store(cluster.url, prefix=PREFIX + "s:")
        await store.start()
        try:
            assert store.sharded
            now = 1_000_000  # (a due time: any number will do)
            later = int(time.time() * 1000) + 600_000  # the rooms' expiry
            rooms = [f"line{i}" for i in range(12)]
            for room in rooms:
                key = store.waiting_key(room)
                assert slot_of(key) == slot_of(store.room_key(room))
                assert await store.create(room, 0, b"r0", later)
                assert await store.cas(room, 0, 1, b"r1", later, b"", waiting=str(now)) == 0
                # a later change while the game waits never puts its turn off (NX)
                assert await store.cas(room, 1, 2, b"r2", later, b"", waiting=str(now + 9)) == 0
                assert float(await store.link.execute("ZSCORE", key, room)) == now
            assert len({slot_of(store.room_key(r)) for r in rooms}) == len(rooms)
            found: set[str] = set()
            for first in range(0, SLOTS, 4096):  # the sweep's slices: every slot once
                found |= set(await waiting.due(store, now, first, 4096))
            assert found == set(rooms)
            assert await waiting.due(store, now - 1, 0, SLOTS) == []  # not due yet
            done, kept = rooms[0], rooms[1]
            assert await store.cas(done, 2, 3, b"r3", later, b"", waiting="done") == 0
            await waiting.done(store, kept, 1)  # written since revision 1: kept in line
            assert await store.link.execute("ZSCORE", store.waiting_key(done), done) is None
            assert await store.link.execute("ZSCORE", store.waiting_key(kept), kept) is not None
        finally:
            await store.close()

    run(scenario())


def test_games_ended_on_a_node_without_archive_are_archived_by_another_on_a_cluster(
    cluster, tmp_path
):
    url = sqlite_url(tmp_path)
    env = {
        "NYUMBA_KEY_PREFIX": PREFIX + "p:",
        "NYUMBA_TICK_MS": "300",
        "NYUMBA_ARCHIVE_RETRY_MS": "1000",
    }
    with contextlib.ExitStack() as stack:
        a = ServerProcess(redis_url=cluster.url, data_dir=tmp_path / "a", env=env).start()
        stack.callback(a.stop)
        lock = stack.enter_context(
            contextlib.closing(
                sqlite3.connect(a.data_dir / "archive.sqlite3", isolation_level=None)
            )
        )
        lock.execute("BEGIN EXCLUSIVE")  # A's writes wait out SQLite's busy timeout and fail
        stack.callback(lock.execute, "ROLLBACK")
        b_env = {**env, "DATABASE_URL": url}
        b = ServerProcess(redis_url=cluster.url, data_dir=tmp_path / "b", env=b_env).start()
        stack.callback(b.stop)
        ended = {}
        for _ in range(4):
            r = create_room(a.url, "kalah")
            south, north = Client(a.ws_url), Client(a.ws_url)
            south.join(r["room"], r["token"])
            north.join(r["room"])
            south.move(south.state["legal"][0]["move"])
            north.wait_state(lambda s: s["version"] >= 1)
            north.send(t="resign", room=r["room"], id="r1")
            ended[r["room"]] = south.wait_state(lambda s: s["outcome"] is not None)["archive"]
            south.close()
            north.close()
        for room, game_id in ended.items():
            assert wait_archived(b.url, game_id, timeout=20)["game"]["room"] == room
        with contextlib.closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db:
            rows = db.execute("SELECT room, count(*) FROM games GROUP BY room").fetchall()
        assert dict(rows) == {room: 1 for room in ended}
