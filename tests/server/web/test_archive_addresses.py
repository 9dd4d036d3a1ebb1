"""The archive's page addresses over HTTP: ``/g/{id}`` and ``/p/{id}`` of a game or player the
archive has answer their page; of anything else — never there, or a player deleted — 404 with
the page that says so (client/missing.html); a game played alone on one device is listed
once on its player's page."""

from __future__ import annotations

import httpx
import pytest
from archivekit import Player, local_game


@pytest.fixture(scope="module")
def played(server):
    """A named player and the game they played alone on one device."""
    player = Player(server.url, "Imani")
    return player, local_game(server, player)


def page(server, path: str) -> httpx.Response:
    return httpx.get(server.url + path, headers={"accept": "text/html"}, timeout=10)


def test_addresses_of_nothing_answer_404_and_say_so(server, played):
    player, game_id = played
    for path, script in ((f"/g/{game_id}", "game.js"), (f"/p/{player.id}", "player.js")):
        known = page(server, path)
        assert known.status_code == 200 and script in known.text, path
    for path in ("/g/nothing-here", "/g/not.an.id", "/p/nobody-here", "/p/" + "x" * 30):
        missing = page(server, path)
        assert missing.status_code == 404, path
        assert "text/html" in missing.headers["content-type"] and "missing.js" in missing.text

    gone = Player(server.url, "Gone")
    assert page(server, f"/p/{gone.id}").status_code == 200
    assert gone.request("DELETE", "/api/me").status_code == 204
    deleted = page(server, f"/p/{gone.id}")
    assert deleted.status_code == 404 and "missing.js" in deleted.text


def test_a_game_played_alone_on_one_device_is_listed_once(server, played):
    player, game_id = played
    listed = player.request("GET", f"/api/players/{player.id}").json()["games"]
    assert [(g["id"], g["mode"], g["side"]) for g in listed] == [(game_id, "local", 0)]
