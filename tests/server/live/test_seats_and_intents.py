"""What PROTOCOL.md says of seats and intent ids, against a real server: the welcome leaves
out a token it does not give, a seat nobody has taken counts no hand-over down, the computer
holding your seat is the answer whoever is to move, and an id is scoped to seat and game."""

from __future__ import annotations

import time

from wsclient import Client, create_room, seated_pair


def test_a_welcome_without_a_new_seat_has_no_token_field(server):
    r, south, north = seated_pair(server)
    watcher = Client(server.ws_url)
    watcher.send(t="join", room=r["room"])
    welcome = watcher.expect("welcome")
    assert welcome["sides"] == [] and "token" not in welcome
    again = Client(server.ws_url)
    again.send(t="join", room=r["room"], token=r["token"])  # a seat it holds already
    welcome = again.expect("welcome")
    assert welcome["sides"] == [0] and "token" not in welcome


def test_a_seat_nobody_has_taken_counts_no_hand_over_down(server):
    r = create_room(server.url, "kalah", mode="friend")
    south = Client(server.ws_url)
    south.join(r["room"], r["token"])
    time.sleep(1.6)  # past the session server's absence window (1.5 s)
    south.send(t="ping")
    south.expect("pong")
    st = south.state
    free = st["seats"][1]
    assert free["holder"] == "empty" and not free["owned"]
    assert free["handover_ms"] is None and free["absent_ms"] == 0
    south.send(t="hand_over", room=r["room"], id="h")
    assert south.expect("error", id="h")["code"] == "not-allowed"


def test_the_computer_holding_your_seat_is_the_answer_whoever_is_to_move(server):
    r, south, north = seated_pair(server)
    token = north.token
    north.close()
    south.wait_state(lambda s: not s["seats"][1]["present"])
    time.sleep(1.6)
    south.send(t="hand_over", room=r["room"], id="give")
    south.expect("ack", id="give")
    back = Client(server.ws_url)
    back.join(r["room"], token)
    st = back.wait_state(lambda s: s["seats"][1]["holder"] == "computer" and s["to_move"] == 0)
    # South to move: North's move is refused for the computer holding it, not for the turn.
    back.send(t="move", room=r["room"], version=st["version"], move="A", id="n1")
    assert back.expect("error", id="n1")["code"] == "not-allowed"


def test_an_id_of_an_earlier_game_is_a_new_intent_and_a_rematch_is_kept_with_its_game(server):
    r = create_room(server.url, "kalah", mode="computer", level="beginner")
    me = Client(server.ws_url)
    me.join(r["room"], r["token"])
    me.send(t="resign", room=r["room"], id="r")
    first = me.expect("ack", id="r")["version"]
    me.wait_state(lambda s: s["outcome"] is not None)
    me.send(t="offer", room=r["room"], kind="rematch", id="m")
    started = me.expect("ack", id="m")["version"]
    me.wait_state(lambda s: s["game_no"] == 2 and s["outcome"] is None)
    # Game 2: the same id and content as game 1's resign is a new intent, and resigns it.
    me.send(t="resign", room=r["room"], id="r")
    second = me.expect("ack", id="r")["version"]
    assert second > started > first
    st = me.wait_state(lambda s: s["game_no"] == 2 and s["outcome"] is not None)
    assert st["outcome"]["reason"] == "resignation"
    # The rematch that started game 2 belongs to it: its resend is answered, not replayed.
    me.send(t="offer", room=r["room"], kind="rematch", id="m")
    assert me.expect("ack", id="m")["version"] == started
    me.drain(0.5)
    assert me.state["game_no"] == 2
