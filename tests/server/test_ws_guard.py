"""Hardening, WebSocket side (issue 16): names that disguise themselves, seats
nobody took, budgets that count everything, caps that hold under races."""

from __future__ import annotations

import time

from wsclient import Client, create_room


def test_names_that_hide_or_impersonate_are_refused(server):
    r = create_room(server.url, "kalah", mode="friend")
    c = Client(server.ws_url)
    for bad in (
        "\u202eretupmoC",  # right-to-left override: shows as "Computer"
        "Jo\u200bhn",  # zero-width space
        "next\u0085line",  # C1 control (NEL)
        "   ",  # only spaces
        "\u3000",  # only an ideographic space
        "Computer",
        "computer (advanced)",
        "\u0421omputer",  # Cyrillic Es
        "C0MPUTER",
    ):
        c.send(t="join", room=r["room"], token=r["token"], name=bad)
        assert c.expect("error")["code"] == "bad-message", repr(bad)
    c.send(t="join", room=r["room"], token=r["token"], name="Zoë wa Bao")
    c.expect("welcome")
    c.wait_state(lambda s: s["seats"][0]["name"] == "Zoë wa Bao")


def test_a_seat_nobody_took_cannot_be_handed_to_the_computer(server):
    """The invited friend must still find the seat free, however long they take."""
    r = create_room(server.url, "kalah", mode="friend", side="south")
    south = Client(server.ws_url)
    south.join(r["room"], r["token"])
    time.sleep(2.0)  # past the test server's 1.5 s absence window
    south.send(t="hand_over", room=r["room"], id="h1")
    assert south.expect("error", id="h1")["code"] == "not-allowed"
    friend = Client(server.ws_url)
    assert friend.join(r["room"])["sides"] == [1]
