"""A room in the store is a base and the moves appended after it (server/rooms/stored.py);
a room stored whole by an earlier version is still played, and is rewritten in the new
layout by its next change."""

from __future__ import annotations

import time

import pytest
import redis
from serverproc import ServerProcess
from wsclient import seated_pair

from server.rooms.layout import CURRENT, UNSET, mark
from server.rooms.room import encode_room
from server.rooms.stored import decode_room

LOG = mark(UNSET)  # what a node writes until the store's flag says otherwise


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


def _follows(db: redis.Redis, prefix: str, layout: int) -> None:
    """Set the store's flag and wait until the node says it writes that layout."""
    flag = f"{prefix}layout:{{layout}}"
    db.set(flag, str(layout))
    deadline = time.monotonic() + 10
    while not all(v.endswith(b" %d" % layout) for v in db.hgetall(flag + ":info").values()):
        assert time.monotonic() < deadline, "the node did not follow the flag"
        time.sleep(0.05)


def _written(db, key, south, north, moves: int) -> list[tuple[bool, int]]:
    """Each move's write: whether it appended to what was stored, and the bytes it wrote."""
    out = []
    for _ in range(moves):
        before = db.hget(key, "data")
        _move(south, north)
        after = db.hget(key, "data")
        appended = after.startswith(before)
        out.append((appended, len(after) - len(before) if appended else len(after)))
    return out


def test_a_clocked_move_is_appended_once_the_store_writes_layout_4(node, shared_store):
    """Read from the store: under layout 2 (a store nobody switched) every clocked move writes
    the whole room; under layout 4 it appends a record about as small as an untimed move's."""
    db = redis.Redis.from_url(shared_store)
    clock = {"initial_ms": 600_000, "increment_ms": 2000}
    r, south, north = seated_pair(node, clock=clock)
    key = f"{node.prefix}room:{{{r['room']}}}"
    _move(south, north)
    whole = _written(db, key, south, north, 3)  # (each the first legal move: the 10th ends)
    assert not any(appended for appended, _ in whole), whole
    _, plain_south, plain_north = seated_pair(node)
    plain_key = f"{node.prefix}room:{{{_['room']}}}"
    _move(plain_south, plain_north)
    plain = _written(db, plain_key, plain_south, plain_north, 4)
    assert all(appended for appended, _ in plain), plain
    _follows(db, node.prefix, CURRENT)
    _move(south, north)  # the room, stored in layout 2, is written whole in layout 4
    assert db.hget(key, "data")[:1] == mark(CURRENT)
    timed = _written(db, key, south, north, 3)
    assert all(appended for appended, _ in timed), timed
    most = max(size for _, size in plain)
    assert all(size < most + 250 for _, size in timed), (timed, plain)  # (the clocks: ~130 B)
    assert all(size > 2 * most for _, size in whole), (whole, plain)
    flag = f"{node.prefix}layout:{{layout}}"
    db.delete(flag, flag + ":nodes", flag + ":info")
    for c in (south, north, plain_south, plain_north):
        c.close()
