"""One name per player (issue 48, item 2) for clients that send none: a bot's socket with its
player's cookie seeks and joins without ``name``, and the lobby and the seats say the name the
player chose (``PATCH /api/me``); a name sent still wins. And a rated seek from a socket with no
player is refused with its own code (server/PROTOCOL.md, "Names" and "The lobby")."""

from __future__ import annotations

import httpx
from archivekit import Player
from lobbykit import Watching, seek
from wsclient import Client

CLOCK = {"initial_ms": 60_000, "increment_ms": 0}


def _listed_name(watching: Watching, seek_id: str) -> str | None:
    watching.until(lambda w: seek_id in w.seeks)
    return watching.seeks[seek_id]["name"]


def _friend_room(base: str) -> tuple[Client, str]:
    """A friend room made without a cookie, its creator seated: (creator, room id)."""
    r = httpx.post(base + "/api/rooms", json={"game": "kalah", "mode": "friend"}, timeout=10)
    assert r.status_code == 201, r.text
    room = r.json()
    creator = Client(base.replace("http", "ws", 1) + "/ws")
    creator.join(room["room"], room["token"])
    return creator, room["room"]


def test_a_bot_seeking_without_a_name_is_listed_and_seated_by_its_players_name(lobby_nodes):
    (a,) = lobby_nodes(1)
    eshe = Player(a.url, "Eshe")
    watcher = Client(a.ws_url)
    watching = Watching(watcher)
    bot = Client(a.ws_url, headers=eshe.cookie)
    listed = seek(bot, clock=CLOCK)  # no name, as a bot from PROTOCOL.md may send
    assert _listed_name(watching, listed["seek"]) == "Eshe"

    taker = Client(a.ws_url)
    taker.send(t="accept", seek=listed["seek"], name="Juma")
    theirs, ours = taker.expect("paired"), bot.expect("paired")
    assert theirs["opponent"] == "Eshe"
    seated = Client(a.ws_url, ours["room"], ours["token"], headers=eshe.cookie)
    seated.join()  # no name again: the seat keeps its player's
    seat = seated.state["seats"][ours["side"]]
    assert (seat["name"], seat["player"]) == ("Eshe", eshe.id)
    assert seated.state["seats"][theirs["side"]]["name"] == "Juma"
    for c in (watcher, bot, taker, seated):
        c.close()


def test_a_bot_joining_without_a_name_takes_its_players_name_and_a_rename_here(lobby_nodes):
    (a,) = lobby_nodes(1)
    eshe = Player(a.url, "Eshe")
    creator, room = _friend_room(a.url)
    bot = Client(a.ws_url, headers=eshe.cookie)
    bot.join(room)  # the free seat, no name sent
    seat = bot.state["seats"][bot.sides[0]]
    assert (seat["name"], seat["player"]) == ("Eshe", eshe.id)

    # Renamed through this node: the next nameless seek says the new name at once (the node
    # remembered the old one with the session).
    assert eshe.request("PATCH", "/api/me", json={"name": "Neema"}).status_code == 200
    watching = Watching(Client(a.ws_url))
    lobbyist = Client(a.ws_url, headers=eshe.cookie)
    assert _listed_name(watching, seek(lobbyist)["seek"]) == "Neema"
    for c in (creator, bot, lobbyist, watching.client):
        c.close()


def test_a_name_sent_wins_over_the_players_own_and_none_is_made_up(lobby_nodes):
    (a,) = lobby_nodes(1)
    eshe, nameless = Player(a.url, "Eshe"), Player(a.url)
    watching = Watching(Client(a.ws_url))
    bot = Client(a.ws_url, headers=eshe.cookie)
    named = seek(bot, name="Bot seven")["seek"]
    assert _listed_name(watching, named) == "Bot seven"
    creator, room = _friend_room(a.url)
    joiner = Client(a.ws_url, headers=eshe.cookie)
    joiner.send(t="join", room=room, name="Bot seven")
    joiner.expect("welcome")
    joiner.expect("state")
    seat = joiner.state["seats"][joiner.sides[0]]
    assert (seat["name"], seat["player"]) == ("Bot seven", eshe.id)

    # The same socket, its seek withdrawn, seeks again without a name: the player's own
    bot.send(t="cancel", seek=named)
    bot.expect("seeking", status="cancelled")
    again = seek(bot)["seek"]
    assert _listed_name(watching, again) == "Eshe"
    # A player who chose no name is listed without one: nothing is made up for them
    other = Client(a.ws_url, headers=nameless.cookie)
    apart = seek(other, clock=CLOCK)["seek"]  # another pool: not paired with the bot's seek
    assert _listed_name(watching, apart) is None
    for c in (watching.client, bot, creator, joiner, other):
        c.close()


def test_a_rated_seek_from_a_socket_without_a_player_is_refused_not_identified(lobby_nodes):
    (a,) = lobby_nodes(1)
    watching = Watching(Client(a.ws_url))
    anonymous = Client(a.ws_url)  # no player cookie
    anonymous.send(t="seek", game="kalah", options={"seeds": 4}, clock=CLOCK, rated=True, id="r")
    refused = anonymous.expect("error")
    assert (refused["code"], refused["id"]) == ("not-identified", "r")
    assert "identified player" in refused["message"] and "cookie" in refused["message"]
    # Nothing was listed: the same socket's unrated seek is, and is the only one
    listed = seek(anonymous, clock=CLOCK)
    watching.until(lambda w: listed["seek"] in w.seeks)
    assert list(watching.seeks) == [listed["seek"]]
    for c in (watching.client, anonymous):
        c.close()
