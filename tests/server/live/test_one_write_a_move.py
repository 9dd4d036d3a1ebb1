"""One write a socket a move (issue 49): a mover that takes acks as frames (``acks`` "frame", the
default) gets its move's ``state`` and its ``ack`` in one write, not two.

Counted on a real node as the write calls it makes (``syscw`` of /proc/PID/io) over a stretch of
moves in one room whose two players sit on that node: a move is then one write to the mover
(state and ack), one to the opponent and one to the store (its compare-and-set). Two writes to
the mover would make it four. The node's timers (presence, pings, the flags' watch, the arenas'
rounds) write a few times a second whatever the moves: what they write in as long again with no
move is taken off (a loaded machine stretches the moves, and the timers' share with them).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from serverproc import make_server
from wsclient import Client, create_room

MOVES = 40


def write_calls(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("syscw:"):
            return int(line.split()[1])
    raise AssertionError("no syscw in /proc/PID/io")


@pytest.fixture
def node(store_kind, tmp_path, key_prefix):
    if not Path("/proc/self/io").exists():
        if os.environ.get("CI"):  # CI runs on Linux: the count must be taken there
            pytest.fail("no /proc/PID/io: CI's Linux should have it")
        pytest.skip("no /proc/PID/io on this system (a Linux file)")
    server = make_server(store_kind, tmp_path, key_prefix + "onewrite:")
    yield server
    server.stop()


def seated(node) -> dict[int, Client]:
    r = create_room(node.url, "kalah", options={"seeds": 6})
    south, north = Client(node.ws_url), Client(node.ws_url)
    south.join(r["room"], r["token"])
    north.join(r["room"])
    return {0: south, 1: north}


def test_a_frame_acked_movers_state_and_ack_leave_in_one_write(node):
    players = seated(node)
    calls = 0
    started = time.monotonic()
    try:
        for _ in range(MOVES):
            south, north = players[0], players[1]
            st = south.state if south.state["version"] >= north.state["version"] else north.state
            if st["outcome"] is not None:  # a new room, its writes not counted
                south.close()
                north.close()
                players = seated(node)
                st = players[0].state
            mover, other = players[st["to_move"]], players[1 - st["to_move"]]
            before = write_calls(node.proc.pid)
            intent = mover.move(st["legal"][0]["move"], version=st["version"])
            mover.expect("ack", id=intent)
            mover.wait_state(lambda s, v=st["version"]: s["version"] > v)
            other.wait_state(lambda s, v=st["version"]: s["version"] > v)
            calls += write_calls(node.proc.pid) - before
        took = time.monotonic() - started
        idle = write_calls(node.proc.pid)
        time.sleep(took)  # a window as long as the moves', none played: the timers' writes
        calls -= write_calls(node.proc.pid) - idle
        assert calls <= 3.5 * MOVES, f"{calls / MOVES:.2f} write calls a move"
    finally:
        for c in players.values():
            c.close()
