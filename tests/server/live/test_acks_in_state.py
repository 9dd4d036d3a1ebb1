"""``join`` with ``acks: "state"``: an applied move is acknowledged by the state it made
(PROTOCOL.md, "Acks in the state"); everything else is answered as before."""

from __future__ import annotations

from wsclient import Client, create_room


def join(server, room: str, token: str | None, acks: str | None) -> Client:
    c = Client(server.ws_url, room, token)
    extra = {} if acks is None else {"acks": acks}
    c.send(t="join", room=room, token=token, **extra)
    welcome = c.expect("welcome")
    c.sides, c.token = welcome["sides"], welcome.get("token") or token
    c.expect("state")
    return c


def test_a_move_is_acknowledged_by_its_state_and_a_resend_by_an_ack(server):
    r = create_room(server.url, mode="friend", side="south")
    south = join(server, r["room"], r["token"], "state")
    north = join(server, r["room"], None, None)  # the default: ack frames
    first = south.state["legal"][0]["move"]
    south.move(first, id="s1")
    st = south.wait_state(lambda s: s["version"] == 1)
    assert st["last"]["id"] == "s1"
    north.wait_state(lambda s: s["version"] == 1)
    assert not [m for m in south.drain() if m["t"] == "ack"]  # the state was the ack

    south.move(first, version=0, id="s1")  # resent: answered with its ack, not applied again
    assert south.expect("ack", id="s1")["version"] == 1

    mover, other = (north, south) if north.state["to_move"] == 1 else (south, north)
    mover.move(mover.state["legal"][0]["move"], id="n1")
    v = mover.state["version"]
    if mover is north:  # joined without acks: the ack frame as before
        assert north.expect("ack", id="n1")["version"] == v + 1
    other.wait_state(lambda s: s["version"] == v + 1)

    south.send(t="move", room=r["room"], version=0, move=first, id="bad")  # stale: an error
    assert south.expect("error", id="bad")["code"] in ("stale", "not-your-turn")
    south.send(t="offer", room=r["room"], kind="draw", id="o1")  # other intents keep their ack
    if south.state["outcome"] is None:
        assert south.expect("ack", id="o1")["version"] == -1
    for c in (south, north):
        c.close()


def test_acks_must_be_frame_or_state(server):
    r = create_room(server.url, mode="friend", side="south")
    c = Client(server.ws_url, r["room"], r["token"])
    c.send(t="join", room=r["room"], token=r["token"], acks="sometimes")
    assert c.expect("error")["code"] == "bad-message"
    c.close()
