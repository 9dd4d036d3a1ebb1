"""Clocked rooms in layout 4 (a move's record carries the clock: server/rooms/stored.py) across
real nodes: the moves each node makes are appended, the other node reads the clock from the
records, the deadline goes into the index with the move's own compare-and-set
(server/store/scripts.py ``_CAS``), and the flag falls on time with nobody sending, also when
the node that held the room's every socket was SIGKILLed."""

from __future__ import annotations

import signal
import time

import pytest
import redis
from archivekit import opening
from serverproc import ServerProcess
from wsclient import Client, create_room

from server.rooms.layout import CURRENT, mark
from server.rooms.stored import decode_room
from server.rooms.timing import flag_at

CLOCK = {"initial_ms": 2500, "increment_ms": 0}


@pytest.fixture
def layout4(lobby_nodes):
    """Two nodes on a store whose flag says layout 4, and the store."""
    db = redis.Redis.from_url(lobby_nodes.store)
    flag = f"{lobby_nodes.prefix}layout:{{layout}}"
    db.set(flag, str(CURRENT))  # as `nyumba layout current` sets it
    yield lobby_nodes(2), db, lobby_nodes.prefix
    db.delete(flag, flag + ":nodes", flag + ":info")
    db.close()


def _room(db: redis.Redis, prefix: str, room: str) -> bytes:
    return db.hget(f"{prefix}room:{{{room}}}", "data")


def _pair(south_node: ServerProcess, north_node: ServerProcess) -> tuple[str, Client, Client]:
    made = create_room(south_node.url, "kalah", mode="friend", side="south", clock=CLOCK)
    south = Client(south_node.ws_url)
    south.join(made["room"], made["token"])
    north = Client(north_node.ws_url)
    north.join(made["room"])
    return made["room"], south, north


def _wait(pred, what: str, timeout: float = 8.0):
    deadline = time.monotonic() + timeout
    while not (found := pred()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


def test_moves_on_two_nodes_append_the_clock_and_the_flag_falls_on_either(layout4) -> None:
    (a, b), db, prefix = layout4
    room, south, north = _pair(a, b)  # South's moves written by A, North's by B
    index = f"{prefix}clock:{{deadlines}}"
    opening({0: south, 1: north})  # two moves each: the clocks run, a flag ends the game
    data = _room(db, prefix, room)
    assert data[:1] == mark(CURRENT)
    stored = decode_room(data)
    assert stored.tail >= 2  # the last moves were appended, not written whole
    state = south.state
    assert stored.clock is not None and stored.clock.running == state["to_move"]
    assert stored.clock.remaining == state["clock"]["remaining"] or state["clock"]["running"] == 0
    due = flag_at(stored)
    assert due is not None and db.zscore(index, room) is not None
    assert db.zscore(index, room) <= due  # never later than the room it points at
    slow = state["to_move"]
    started = time.monotonic()
    for player in (south, north):  # nobody sends anything now
        over = player.wait_state(lambda s: s["outcome"] is not None, timeout=8)
        assert over["adjudication"] == "timeout" and over["outcome"]["winner"] == 1 - slow
        assert over["clock"]["remaining"][slow] == 0
    assert time.monotonic() - started < 6


def test_a_sigkilled_nodes_clocked_room_still_flags(layout4) -> None:
    (a, b), db, prefix = layout4
    room, south, north = _pair(a, a)  # every socket of the room on A
    opening({0: south, 1: north})
    slow = south.state["to_move"]
    assert decode_room(_room(db, prefix, room)).tail >= 2
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(timeout=10)
    ended = _wait(
        lambda: (r := decode_room(_room(db, prefix, room))).outcome is not None and r,
        "B did not flag the game of the node that died",
    )
    assert ended.outcome.adjudication == "timeout" and ended.outcome.winner == 1 - slow
    assert ended.clock is not None and ended.clock.remaining[slow] == 0
    watcher = Client(b.ws_url)  # and B shows it
    watcher.join(room)
    assert watcher.state["adjudication"] == "timeout"
