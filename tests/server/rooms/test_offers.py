"""Offer news (PROTOCOL.md, "Rooms, seats and offers"): one offer open at a time."""

from __future__ import annotations

from wsclient import seated_pair


def test_a_counter_offer_withdraws_the_open_one(server):
    r, south, north = seated_pair(server)
    south.send(t="offer", room=r["room"], kind="draw", id="d1")
    assert south.expect("ack", id="d1")["version"] == -1  # an offer made: no new version
    assert north.expect("offer", status="open") == {
        "t": "offer",
        "kind": "draw",
        "by": 0,
        "status": "open",
    }
    north.send(t="offer", room=r["room"], kind="draw", id="d2")
    assert south.expect("offer", status="withdrawn")["by"] == 0
    assert south.expect("offer", status="open", by=1)["kind"] == "draw"
    st = south.wait_state(lambda s: s["offer"] == {"kind": "draw", "by": 1})
    assert st["version"] == 0


def test_a_move_withdraws_the_open_offer(server):
    r, south, north = seated_pair(server)
    south.move("a", version=0, id="m1")
    south.expect("ack", id="m1")
    south.send(t="offer", room=r["room"], kind="takeback", id="t1")
    north.expect("offer", status="open")
    north.wait_state(lambda s: s["version"] == 1)
    north.move("A", version=1, id="m2")
    assert north.expect("ack", id="m2")["version"] == 2
    assert south.expect("offer", status="withdrawn")["kind"] == "takeback"
    assert south.wait_state(lambda s: s["version"] == 2)["offer"] is None
