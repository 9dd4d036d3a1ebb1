"""The room says whether its game is rated: asked for until the first move, then fixed by the
server (server/PROTOCOL.md, "Rated games"), in the player's language; a rated room is made
only with a clock."""

from __future__ import annotations

from clientkit import start_game, wait_open, wait_settled


def test_a_rated_friend_room_says_rated_from_the_first_move(open_page):
    host = open_page()
    host.goto("/")
    host.wait_for_selector("body[data-ready='1']")
    host.check("input[name=mode][value='friend']")
    host.select_option("#clock", "600000+5000")
    host.check("#rated")
    url = start_game(host, "kalah", {"seeds": 3}, mode="friend", side="south")
    friend = open_page(path=url, lang="ja")
    wait_open(friend)
    host.wait_for_selector("#ratedness:visible")
    assert host.inner_text("#ratedness") == "Rated — decided at the first move"
    wait_settled(host)
    host.click("[data-pit].lit >> nth=0")
    host.wait_for_selector("#app[data-plies='1']")
    friend.wait_for_selector("#app[data-plies='1']")
    host.wait_for_selector("#ratedness[data-rated='1']")
    assert host.inner_text("#ratedness") == "Rated"
    assert friend.inner_text("#ratedness") == "レーティング対局"


def test_a_casual_room_says_nothing_of_ratings(open_page):
    host = open_page()
    start_game(host, "kalah", {"seeds": 3}, mode="friend", side="south")
    assert not host.is_visible("#ratedness")
