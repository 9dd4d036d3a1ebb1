"""Two browser profiles play a complete friend game of each family through the UI."""

from __future__ import annotations

import pytest
from clientkit import PHONE, attr, counts, pending, play_out, start_game, wait_open, wait_settled

FAMILIES = [
    # (profile, options, animation speed, total seeds on the board incl. stores/hands)
    ("kalah", {"seeds": 3}, "fast", 36),
    ("oware", {}, "off", 48),
    ("bao-kujifunza", {}, "off", 64),
]


@pytest.mark.parametrize("game,options,speed,total", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_friend_game_played_to_its_result(open_page, game, options, speed, total):
    host = open_page(speed=speed)
    url = start_game(host, game, options, mode="friend", side="south")
    # The host waits for the friend, with the room's link to copy.
    assert host.is_visible("#share")
    assert host.input_value("#share-url") == url
    assert attr(host, "sides") == "0"

    friend = open_page(path=url, speed=speed, viewport=PHONE)
    wait_open(friend)
    assert attr(friend, "sides") == "1"
    # The friend is here: no more waiting, but the link stays for spectators (issue 17).
    host.wait_for_selector("#share-wait", state="hidden")
    assert host.is_visible("#share-url") and host.input_value("#share-url") == url
    # A third profile only watches: no lit pits, no game buttons; everyone sees one watcher.
    watcher = open_page(path=url, speed="off")
    wait_open(watcher)
    assert attr(watcher, "sides") == ""
    assert "watching" in watcher.inner_text("#status")
    assert watcher.input_value("#share-url") == url
    host.wait_for_selector("#seats .watchers[data-watchers='1']")
    assert "1 watching" in host.inner_text("#seats")

    # Pits carry their name and count for screen readers.
    label = host.get_attribute("[data-pit].lit >> nth=0", "aria-label")
    assert "playable" in label and ":" in label

    plies = play_out([host, friend])
    assert plies > 4
    wait_settled(watcher)
    watcher.wait_for_selector("#app[data-over='1']")

    # Everyone sees the same final board, seeds are all there, and the result is in words.
    final = counts(host)
    assert counts(friend) == final == counts(watcher)
    assert sum(final.values()) + pending(host) == total
    results = {host.inner_text("#result"), friend.inner_text("#result")}
    if "Draw." not in " ".join(results):
        assert any("You win!" in r for r in results) and any("You lose." in r for r in results)
    assert host.is_visible("#rematch") and not host.is_visible("#resign")
    assert not watcher.is_visible("#rematch")
    assert host.locator(".pit.lit").count() == 0
    # Animated moves (Kalah here: sowing, captures, the end sweep) ended on the server's board.
    assert attr(host, "drift") is None and attr(friend, "drift") is None


def test_rematch_swaps_sides_and_names_follow_their_players(open_page):
    host = open_page(path="/")
    host.wait_for_selector("body[data-ready='1']")
    host.fill("#name", "Amani")
    url = start_game(host, "kalah", {"seeds": 3})
    friend = open_page(path=url)
    wait_open(friend)
    friend.fill("#name", "<b>Bahati</b>\u0007")  # markup brackets and control characters go
    friend.press("#name", "Enter")
    friend.locator("#name").blur()
    host.wait_for_selector("#seats li[data-side='1']:has-text('bBahati/b')")
    assert "Amani" in friend.inner_text("#seats li[data-side='0']")
    assert "Amani (you)" in host.inner_text("#seats li[data-side='0']")
    host.wait_for_selector("#app[data-myturn='1']")
    host.click("#resign")
    host.click("#resign")  # the second click confirms
    for p in (host, friend):
        p.wait_for_selector("#app[data-over='1']")
    assert friend.inner_text("#result") == "Your opponent resigned: you win!"
    friend.click("#rematch")
    host.wait_for_selector("#offer:not([hidden])")
    assert "rematch" in host.inner_text("#offer-text")
    host.click("#accept")
    for p in (host, friend):
        p.wait_for_selector("#app[data-over='0']")
    host.wait_for_selector("#app[data-sides='1']")
    friend.wait_for_selector("#app[data-sides='0']")
    # The former North now moves first, and sees South's pits at the bottom.
    friend.wait_for_selector("#app[data-myturn='1']")
    assert friend.locator(".pit.lit").count() == 6
    assert "Amani" in host.inner_text("#seats li[data-side='1']")


def test_offers_draw_and_takeback_and_copying_the_link(open_page):
    host_ctx = open_page.context(speed="fast")
    host_ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    host_ctx.add_init_script("localStorage.setItem('nyumba:sound', '1')")  # the beep path runs too
    host = open_page(host_ctx)
    url = start_game(host, "kalah", {"seeds": 3})
    host.click("#copy")
    assert host.evaluate("navigator.clipboard.readText()") == url
    friend = open_page(path=url, lang="ja")
    wait_open(friend)

    # A takeback: South moves b (no extra turn), asks for it back, North accepts.
    host.wait_for_selector("#app[data-myturn='1']")
    start = counts(host)
    host.click("[data-pit='b']")
    friend.wait_for_selector("#app[data-myturn='1']")
    wait_settled(host)
    host.click("#takeback")
    friend.wait_for_selector("#offer:not([hidden])")
    assert "待った" in friend.inner_text("#offer-text")
    host.wait_for_selector("#offer:not([hidden])")
    assert "waiting" in host.inner_text("#offer-text")
    friend.click("#accept")
    host.wait_for_selector("#app[data-plies='0']")
    wait_settled(host)
    assert counts(host) == start
    host.wait_for_selector("#app[data-myturn='1']")

    # A draw: offered by North, declined once, then accepted.
    friend.click("#draw")
    host.wait_for_selector("#offer:not([hidden])")
    host.click("#decline")
    # (the takeback's "accepted" notice may still be up: wait for this one by its words)
    friend.wait_for_selector("#notice:has-text('引き分けの提案は断られました')")
    friend.click("#draw")
    host.wait_for_selector("#offer:not([hidden])")
    assert "a draw" in host.inner_text("#offer-text")
    host.click("#accept")
    for p in (host, friend):
        p.wait_for_selector("#app[data-over='1']")
    result = host.inner_text("#result")
    assert result == "Draw by agreement." and "Adjudication" not in result  # said once (issue 17)
    assert "引き分け" in friend.inner_text("#result")
