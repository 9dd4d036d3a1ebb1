"""Rated means decided at the start, and one person plays one side (server/rooms/ratedness.py),
on two real nodes sharing one store and one archive: a rated room needs a clock; the state
says from the first move whether the game is rated and why not; a seat linked to its player
only later does not make the game rated; two seats from one address, or one player on both
seats, farm no rating however many games they play. Two client addresses on one machine:
127.0.0.1 and 127.0.0.2 (the node reads the socket's peer)."""

from __future__ import annotations

import httpx
import pytest
from archivekit import RATED_ROOM, Player, opening, wait_archived
from pgkit import sqlite_url
from wsclient import Client

OTHER = "127.0.0.2"  # a second client address on loopback


@pytest.fixture
def nodes(lobby_nodes, tmp_path):
    # The production rule (off: one address plays unrated), which the test kit lifts elsewhere;
    # a farm's socket sends hundreds of intents in seconds (the per-socket budget is lifted).
    return lobby_nodes(
        2,
        NYUMBA_RATED_SAME_ADDRESS="off",
        NYUMBA_RATED_PAIR_DAILY="2",
        DATABASE_URL=sqlite_url(tmp_path),
        NYUMBA_RATE_MESSAGES="1000000",
    )


def _room(node, creator: Player, **body) -> dict:
    r = creator.request("POST", node.url + "/api/rooms", json={**RATED_ROOM, **body})
    assert r.status_code == 201, r.text
    return r.json()


def _seated(a_node, b_node, south: Player, north: Player | None, north_from=None):
    """A rated room South made on ``a_node``; North takes the other seat on ``b_node``
    (anonymous when ``north`` is None), from ``north_from`` (None: 127.0.0.1)."""
    room = _room(a_node, south)
    a = Client(a_node.ws_url, headers=south.cookie)
    a.join(room["room"], room["token"])
    b = Client(b_node.ws_url, headers=north.cookie if north else None, source=north_from)
    b.join(room["room"])
    return room, a, b


def _play(clients: list[Client], plies: int) -> dict:
    """``plies`` moves, each by the client whose side is to move; the state after them."""
    for _ in range(plies):
        st = max((c.state for c in clients), key=lambda s: s["version"])
        mover = next(c for c in clients if st["to_move"] in c.sides)
        mover.move(st["legal"][0]["move"], st["version"])
        for c in clients:
            c.wait_state(lambda s, v=st["version"]: s["version"] > v)
    return clients[0].state


def _ratings(node, player: Player) -> list[dict]:
    return httpx.get(f"{node.url}/api/players/{player.id}", timeout=5).json()["ratings"]


def test_a_rated_room_without_a_clock_is_refused(nodes):
    a, _ = nodes
    amina = Player(a.url, "Amina")
    r = amina.request("POST", "/api/rooms", json={"game": "kalah", "mode": "friend", "rated": True})
    assert r.status_code == 400
    assert r.json()["code"] == "rated-needs-clock"
    assert "clock" in r.json()["message"]
    unrated = amina.request("POST", "/api/rooms", json={"game": "kalah", "mode": "friend"})
    assert unrated.status_code == 201


def test_the_state_says_from_the_first_move_whether_the_game_is_rated(nodes):
    a_node, b_node = nodes
    south, north = Player(a_node.url, "Amina"), Player(b_node.url, "Baraka")
    room, a, b = _seated(a_node, b_node, south, north, north_from=OTHER)
    assert a.state["rated"] is True and a.state["unrated"] is None  # asked for; not yet fixed
    st = _play([a, b], 1)
    assert st["unrated"] is None and st["rated"] is True
    assert b.state["rated"] is True
    opening({0: a, 1: b})  # a result needs two moves by each side (fair play)
    b.send(t="resign", room=room["room"], id="r1")
    final = a.wait_state(lambda s: s["outcome"] is not None)
    assert final["rated"] is True
    assert wait_archived(a_node.url, final["archive"])["game"]["rated"] is True
    # The same two players from one address: unrated from the first move, and said why.
    room, a, b = _seated(a_node, b_node, south, north)
    st = _play([a, b], 1)
    assert st["rated"] is False and st["unrated"] == "same-address"
    a.close()
    b.close()


def test_a_seat_linked_to_its_player_only_later_gives_an_unrated_game(nodes):
    """The deferred link: North joins without its cookie, and links its seat (joining again
    with its cookie) only once it is winning. Decided at the first move: unrated."""
    a_node, b_node = nodes
    south, north = Player(a_node.url, "Amina"), Player(b_node.url, "Baraka")
    room, a, b = _seated(a_node, b_node, south, None, north_from=OTHER)
    st = _play([a, b], 2)
    assert st["rated"] is False and st["unrated"] == "anonymous"
    token = b.token
    b.close()
    linked = Client(b_node.ws_url, headers=north.cookie, source=OTHER)
    linked.join(room["room"], token)  # the seat is now North's player's
    assert linked.state["unrated"] == "anonymous"
    opening({0: a, 1: linked})
    a.send(t="resign", room=room["room"], id="r1")
    final = linked.wait_state(lambda s: s["outcome"] is not None)
    assert final["outcome"]["winner"] == 1
    assert final["rated"] is False and final["unrated"] == "anonymous"
    game = wait_archived(a_node.url, final["archive"])["game"]
    assert game["rated"] is False
    assert [s["player"] for s in game["seats"]] == [south.id, north.id]
    assert _ratings(a_node, north) == [] and _ratings(a_node, south) == []
    a.close()
    linked.close()


def test_rated_games_between_two_players_count_at_most_the_daily_limit_on_every_node(nodes):
    a_node, b_node = nodes
    south, north = Player(a_node.url, "Amina"), Player(b_node.url, "Baraka")
    shown = []
    for n, (x, y) in enumerate([(a_node, b_node), (b_node, a_node), (b_node, b_node)]):
        room, a, b = _seated(x, y, south, north, north_from=OTHER)
        _play([a, b], 1)
        opening({0: a, 1: b})
        b.send(t="resign", room=room["room"], id=f"r{n}")
        final = a.wait_state(lambda s: s["outcome"] is not None)
        shown.append((final["rated"], final["unrated"]))
        wait_archived(a_node.url, final["archive"])
        a.close()
        b.close()
    assert shown == [(True, None), (True, None), (False, "daily-limit")]
    assert [r["games"] for r in _ratings(a_node, north)] == [2]


def _farm(a_node, b_node, south: Player, north: Player, games: int, north_from=None) -> dict:
    """``games`` rated games in one room, alternately resigned after two moves each (or more), each
    followed by a rematch; the last game's final state."""
    room, a, b = _seated(a_node, b_node, south, north, north_from=north_from)
    final: dict = {}
    for n in range(games):
        opening({c.sides[0]: c for c in (a, b)})
        st = max((c.state for c in (a, b)), key=lambda s: s["version"])
        if st["outcome"] is None:
            loser = a if n % 2 else b
            loser.send(t="resign", room=room["room"], id=f"resign-{n}")
        final = a.wait_state(lambda s: s["outcome"] is not None)
        b.wait_state(lambda s: s["outcome"] is not None)
        assert final["rated"] is False, final
        if n == games - 1:
            break
        a.send(t="offer", room=room["room"], kind="rematch", id=f"offer-{n}")
        b.wait_state(lambda s: s["offer"] is not None and s["offer"]["kind"] == "rematch")
        b.send(t="reply", room=room["room"], kind="rematch", accept=True, id=f"accept-{n}")
        for c in (a, b):
            c.wait_state(lambda s, g=n + 2: s["game_no"] == g)
    a.close()
    b.close()
    return final


def test_a_resign_rematch_farm_from_one_address_moves_no_rating(nodes):
    a_node, b_node = nodes
    south, north = Player(a_node.url, "Farmer A"), Player(b_node.url, "Farmer B")
    final = _farm(a_node, b_node, south, north, 40)
    assert final["unrated"] == "same-address" and final["game_no"] == 40
    assert wait_archived(b_node.url, final["archive"])["game"]["rated"] is False
    assert _ratings(a_node, south) == [] and _ratings(b_node, north) == []


def test_one_browser_on_two_addresses_moves_no_rating(nodes):
    """One player cookie on both seats, from two addresses (a browser and its proxy)."""
    a_node, b_node = nodes
    farmer = Player(a_node.url, "Farmer")
    final = _farm(a_node, b_node, farmer, farmer, 5, north_from=OTHER)
    assert final["unrated"] == "same-player"
    assert wait_archived(a_node.url, final["archive"])["game"]["rated"] is False
    assert _ratings(a_node, farmer) == []
