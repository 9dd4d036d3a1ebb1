"""Clocks in rooms made over HTTP (``POST /api/rooms`` with ``clock``): the computer plays on
the clock, a seat handed to it too, and a rematch starts with the same control afresh."""

from __future__ import annotations

import time

from wsclient import Client, create_room

CLOCK = {"initial_ms": 60_000, "increment_ms": 2000}


def test_a_computer_room_on_a_clock_charges_both_sides(server) -> None:
    made = create_room(
        server.url, "oware", mode="computer", side="south", level="expert", clock=CLOCK
    )
    me = Client(server.ws_url, made["room"], made["token"])
    me.join()
    assert me.state["clock"]["remaining"] == [60_000, 60_000]
    me.move(me.state["legal"][0]["move"])
    me.wait_state(lambda s: s["plies"] == 2)  # the computer's first move: no clock ran yet
    time.sleep(0.3)
    me.move(me.state["legal"][0]["move"])
    after = me.wait_state(lambda s: s["plies"] == 4, timeout=20)  # the computer's answer
    south, north = after["clock"]["remaining"]
    assert 60_000 < south <= 61_800  # 0.3 s and more spent, 2 s back
    # The computer thought on its own clock, within a tenth of it (expert's 10 s cap would
    # not fit: it played at a level whose cap does), and got its increment.
    assert 56_000 <= north <= 62_000 and after["clock"]["running"] == 0


def test_a_seat_handed_to_the_computer_plays_on_its_clock_and_a_rematch_keeps_the_control(server):
    made = create_room(server.url, "oware", mode="friend", side="south", clock=CLOCK)
    south = Client(server.ws_url, made["room"], made["token"])
    south.join()
    north = Client(server.ws_url, made["room"])
    north.join()
    south.wait_state(lambda s: s["seats"][1]["holder"] == "person")
    assert south.state["clock"]["abort_ms"] > 0  # the first moves' window runs once both are in
    south.move(south.state["legal"][0]["move"])
    north.wait_state(lambda s: s["to_move"] == 1)
    north.move(north.state["legal"][0]["move"])
    south.wait_state(lambda s: s["plies"] == 2)
    south.move(south.state["legal"][0]["move"])
    south.wait_state(lambda s: s["plies"] == 3 and s["to_move"] == 1)
    north.close()  # North goes away on its turn; its clock runs
    gone = south.wait_state(lambda s: not s["seats"][1]["present"], timeout=10)
    time.sleep(gone["seats"][1]["handover_ms"] / 1000 + 0.3)  # the absence window (1.5 s)
    south.send(t="hand_over", room=made["room"], id="h1")
    played = south.wait_state(lambda s: s["plies"] >= 4 and s["to_move"] == 0, timeout=20)
    assert played["seats"][1]["holder"] == "computer" and played["clock"]["running"] == 0
    # North was charged its absence (1.5 s at least) and the computer's thought, then +2 s.
    assert played["clock"]["remaining"][1] <= 60_500
    south.send(t="resign", room=made["room"], id="r1")
    south.wait_state(lambda s: s["outcome"] is not None)
    south.send(t="offer", room=made["room"], kind="rematch", id="o1")
    back = Client(server.ws_url, made["room"], north.token)  # North comes back and accepts
    back.join()
    back.wait_state(lambda s: s["offer"] is not None)
    back.send(t="reply", room=made["room"], kind="rematch", accept=True, id="a1")
    fresh = south.wait_state(lambda s: s["game_no"] == 2, timeout=20)
    assert fresh["clock"]["initial_ms"] == 60_000 and fresh["clock"]["remaining"] == [
        60_000,
        60_000,
    ]
