"""A room in the store is a base and the moves appended after it (server/rooms/stored.py);
a room stored whole by an earlier version is still played, and is rewritten in the new
layout by its next change."""

from __future__ import annotations

import pytest
import redis
from serverproc import ServerProcess
from wsclient import seated_pair

from server.rooms.layout import PREVIOUS, mark
from server.rooms.room import encode_room
from server.rooms.stored import decode_room

LOG = mark(PREVIOUS)  # what a node writes until the store's flag says otherwise


@pytest.fixture
def node(shared_store, tmp_path, key_prefix):
    prefix = key_prefix + "layout:"
    srv = ServerProcess(
        redis_url=shared_store, data_dir=tmp_path, env={"NYUMBA_KEY_PREFIX": prefix}
    )
    srv.start()
    srv.prefix = prefix
    yield srv
    srv.stop()


def _move(south, north) -> int:
    mover = south if south.state["to_move"] in south.sides else north
    v = mover.state["version"]
    mid = mover.move(mover.state["legal"][0]["move"])
    assert mover.expect("ack", id=mid)["version"] == v + 1
    for c in (south, north):
        c.wait_state(lambda s, v=v: s["version"] == v + 1)
    return v + 1


def test_moves_are_appended_to_the_stored_room(node, shared_store):
    r, south, north = seated_pair(node)
    key = f"{node.prefix}room:{{{r['room']}}}"
    db = redis.Redis.from_url(shared_store)
    _move(south, north)
    first = db.hget(key, "data")
    assert first[:1] == LOG
    version = _move(south, north)
    data = db.hget(key, "data")
    assert data[:5] == first[:5] and data.startswith(first)  # the same base, one move more
    assert decode_room(data).version == version
    for c in (south, north):
        c.close()


def test_a_room_stored_whole_by_an_earlier_version_plays_on_and_is_rewritten(node, shared_store):
    r, south, north = seated_pair(node)
    key = f"{node.prefix}room:{{{r['room']}}}"
    db = redis.Redis.from_url(shared_store)
    _move(south, north)
    room = decode_room(db.hget(key, "data"))
    room.tail = 0
    db.hset(key, "data", encode_room(room))  # as the previous version wrote every room
    assert db.hget(key, "data")[:1] != LOG
    version = _move(south, north)
    data = db.hget(key, "data")
    assert data[:1] == LOG  # written whole, in the layout the node writes
    back = decode_room(data)
    assert back.version == version and len(back.history) == len(room.history) + 1
    assert [p.move for p in back.history[:-1]] == [p.move for p in room.history]
    version = _move(south, north)  # and appended to from then on
    assert db.hget(key, "data").startswith(data)
    assert decode_room(db.hget(key, "data")).version == version
    for c in (south, north):
        c.close()
