"""A newcomer behind a network that has made as many new players as it may this minute (a
school behind one address, NYUMBA_IDENTITIES_PER_MINUTE): the start page says so in the
page's language, and the game is played all the same, its seat linked to no player."""

from __future__ import annotations

import re

import httpx
import pytest
from clientkit import DESKTOP, attr, play_first, start_game
from serverproc import make_server
from wsclient import Client

SAID = {
    "en": "Many new players came from your network this minute",
    "ja": "あなたのネットワークから新しいプレイヤーがたくさん作られました",
}


@pytest.fixture
def busy(store_kind, tmp_path, key_prefix):
    srv = make_server(store_kind, tmp_path, key_prefix + "busy:", NYUMBA_IDENTITIES_PER_MINUTE="1")
    yield srv
    srv.stop()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_newcomer_on_a_busy_network_plays_without_a_player(browser, busy, lang):
    for _ in range(3):  # a minute may begin between spending the budget and the page's ask
        for _ in range(2):  # the network's other newcomers take this minute's player
            httpx.post(busy.url + "/api/me", timeout=10)
        context = browser.new_context(
            base_url=busy.url, viewport=DESKTOP, locale="ja-JP" if lang == "ja" else "en-US"
        )
        page = context.new_page()
        page.goto("/")
        page.wait_for_selector("#me:not([hidden])")
        line = page.inner_text("#me .me-line")
        if page.get_attribute("#me", "data-player") == "":
            break
        context.close()
    assert SAID[lang] in line
    start_game(page, "kalah", mode="computer")
    version = int(attr(page, "version"))
    play_first(page)
    room = re.search(r"/r/([A-Za-z0-9_-]+)$", page.url)[1]
    watcher = Client(busy.ws_url)
    watcher.join(room)
    watcher.wait_state(lambda s: s["version"] > version)  # the page's move was played
    # The page asks for a player again at Start: when a new minute of the budget began in
    # between, it has one, and its seat is linked to it; else no seat is linked to anyone.
    me = context.request.get("/api/me").json()["player"]
    linked = [s["player"] for s in watcher.state["seats"] if s["player"] is not None]
    assert linked == ([me] if me else [])
    watcher.close()
    context.close()
