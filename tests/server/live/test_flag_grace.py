"""The flag and a late move agree (server/PROTOCOL.md, "Clocks"): a move that comes after its
clock reached zero, but within the lag credit it claims, counts — the flag waits for the most
a move could be credited (500 ms) — and a move past that finds the game lost on time."""

from __future__ import annotations

import time

from wsclient import Client, seated_pair

CLOCK = {"initial_ms": 2000, "increment_ms": 0}


def _running(players: dict[int, Client]) -> tuple[Client, float]:
    """The player whose clock runs, and when (monotonic s) it reaches zero, from their state."""
    state = players[0].wait_state(lambda s: s["clock"]["running"] is not None)
    side = state["clock"]["running"]
    mover = players[side]
    shown = mover.wait_state(lambda s: s["version"] >= state["version"])
    return mover, time.monotonic() + shown["clock"]["remaining"][side] / 1000


def _late_move(mover: Client, zero: float, after_s: float, lag: int) -> str:
    """``mover`` sends its first legal move ``after_s`` after its zero, claiming ``lag`` ms."""
    time.sleep(max(0.0, zero + after_s - time.monotonic()))  # the instant the test is about
    state, intent = mover.state, f"late-{mover.state['version']}"
    mover.send(
        t="move", room=mover.room, version=state["version"], move=state["legal"][0]["move"],
        id=intent, lag=lag,
    )  # fmt: skip
    return intent


def test_a_move_300_ms_after_zero_claiming_500_counts_and_one_past_the_grace_is_flagged(server):
    _, south, north = seated_pair(server, "kalah", clock=CLOCK)
    players = {0: south, 1: north}
    made = {0: 0, 1: 0}
    while True:  # two moves a side: no clock runs before both moved, no result before two each
        state = south.wait_state(lambda s: s["to_move"] is not None)
        if state["clock"]["running"] is not None and min(made.values()) >= 2:
            break
        mover = players[state["to_move"]]
        mover.wait_state(lambda s, v=state["version"]: s["version"] >= v)
        mover.move(mover.state["legal"][0]["move"])
        made[state["to_move"]] += 1
        south.wait_state(lambda s, v=state["version"]: s["version"] > v)
    mover, zero = _running(players)
    side, version = mover.sides[0], mover.state["version"]
    _late_move(mover, zero, 0.3, 500)
    after = mover.wait_state(lambda s: s["version"] > version)
    assert after["outcome"] is None and after["plies"] == state["plies"] + 1  # it counted
    assert 0 < after["clock"]["remaining"][side] <= 500  # 300 ms past zero, 500 credited

    mover, zero = _running(players)
    side = mover.sides[0]
    intent = _late_move(mover, zero, 0.7, 500)  # past the grace: the flag fell before it
    assert mover.expect("error", id=intent)["code"] == "game-over"
    over = mover.wait_state(lambda s: s["outcome"] is not None)
    assert over["adjudication"] == "timeout" and over["outcome"]["winner"] == 1 - side
    assert over["clock"]["remaining"][side] == 0
