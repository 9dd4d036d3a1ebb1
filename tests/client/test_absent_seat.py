"""An absent friend's seat: handed to the computer after the (shortened) window, then reclaimed.
While the computer holds the seat, its owner sees only the way to take it back (not Resign,
Draw or Takeback); when they do, the opponent is told.

The shared server fixture runs with NYUMBA_ABSENT_MS=1500."""

from __future__ import annotations

from clientkit import attr, play_first, start_game, wait_open, wait_settled


def test_hand_absent_seat_to_computer_then_reclaim(open_page):
    host = open_page()
    url = start_game(host, "kalah", {"seeds": 4})
    friend_ctx = open_page.context()
    friend = open_page(friend_ctx, path=url)
    wait_open(friend)
    assert not host.is_visible("#handover")

    # South plays c (an extra turn: last seed in the store) and then another pit, so it is North's turn.
    host.wait_for_selector("#app[data-myturn='1']")
    while attr(host, "myturn") == "1" or attr(host, "busy") == "1":
        if attr(host, "myturn") == "1":
            before = attr(host, "version")
            play_first(host)
            host.wait_for_function(
                "v => document.querySelector('#app').dataset.version !== v", arg=before
            )
        wait_settled(host)
    plies = int(attr(host, "plies"))

    friend.close()
    host.wait_for_selector("#seats li[data-side='1'].absent")
    host.wait_for_selector("#handover:not([hidden])")
    host.wait_for_selector("#handover:not([disabled])", timeout=10_000)
    host.click("#handover")
    # The computer takes North's seat and plays its turn.
    host.wait_for_selector("#seats li[data-side='1'].present")
    assert "computer" in host.inner_text("#seats li[data-side='1']")
    host.wait_for_function(
        "n => Number(document.querySelector('#app').dataset.plies) > n", arg=plies, timeout=20_000
    )
    host.wait_for_selector("#app[data-myturn='1']", timeout=20_000)
    assert not host.is_visible("#handover")
    # Nobody to ask for a takeback while the computer sits there (issue 17).
    assert not host.is_visible("#takeback")

    # The friend comes back (same browser profile, same token) and takes the seat back.
    back = open_page(friend_ctx, path=url)
    wait_open(back)
    assert attr(back, "sides") == "1"
    back.wait_for_selector("#reclaim:not([hidden])")
    assert "absent player" in back.inner_text("#seats li[data-side='1']")
    # The game's buttons are not the owner's while the computer plays their seat.
    for button in ("#resign", "#draw", "#takeback"):
        assert not back.is_visible(button), f"{button} shown while the computer holds the seat"
    back.click("#reclaim")
    back.wait_for_selector("#reclaim", state="hidden")
    back.wait_for_selector("#resign:not([hidden])")
    assert back.is_visible("#draw")
    host.wait_for_function(
        "() => !document.querySelector(\"#seats li[data-side='1']\").textContent.includes('computer')"
    )
    assert "player" in host.inner_text("#seats li[data-side='1']")
    # The opponent is told, from the seats in the states (the server sends no message of its own).
    host.wait_for_selector("#notice:not([hidden])")
    assert host.inner_text("#notice") == "North took their seat back from the computer."
    assert not back.is_visible("#notice") or "took their seat back" not in back.inner_text(
        "#notice"
    )

    # North is a person again: when North's turn comes, the friend is asked to play.
    for _ in range(20):
        wait_settled(host)
        wait_settled(back)
        if attr(back, "myturn") == "1":
            break
        if attr(host, "myturn") == "1":
            before = attr(host, "version")
            play_first(host)
            host.wait_for_function(
                "v => document.querySelector('#app').dataset.version !== v", arg=before
            )
        else:
            back.wait_for_timeout(100)
    assert attr(back, "myturn") == "1"
    assert "Your turn" in back.inner_text("#status")
    assert "computer" not in back.inner_text("#seats")
