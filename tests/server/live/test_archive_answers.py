"""What the archive's and the lobby's HTTP answers carry, as PROTOCOL.md and the OpenAPI
document say, on a real node with a rated game archived: a Standing names its player and
gives the volatility, wherever it is read; an archived game's row has no stray ``record``;
``players`` and ``page`` out of bounds are refused, clearly; the quick pools list every
option as ``paired`` does, with labels players read."""

from __future__ import annotations

import httpx
import pytest
from archivekit import Player, rated_game, wait_archived
from pgkit import sqlite_url
from wsclient import Client

from server.ratings import glicko2 as G

POOLS = "kalah@180+2,kalah:seeds=3@4+0,oware@30+0,kalah@90+1"


def _node(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, NYUMBA_QUICK_POOLS=POOLS, DATABASE_URL=sqlite_url(tmp_path))
    return node


def test_standings_name_their_player_and_give_the_volatility(lobby_nodes, tmp_path):
    node = _node(lobby_nodes, tmp_path)
    eshe, juma = Player(node.url, "Eshe"), Player(node.url, "Juma")
    final = rated_game(node, node, eshe, juma)
    archived = wait_archived(node.url, final["archive"])
    assert "record" not in archived["game"], archived["game"].keys()
    page = httpx.get(f"{node.url}/api/players/{eshe.id}", timeout=5).json()
    (mine,) = page["ratings"]
    assert mine["name"] == "Eshe" and mine["player"] == eshe.id
    assert mine["volatility"] == pytest.approx(G.START_VOLATILITY, abs=0.01)
    both = httpx.get(
        f"{node.url}/api/ratings/kalah", params={"players": f"{eshe.id},{juma.id}"}, timeout=5
    ).json()
    assert {p: s["name"] for p, s in both.items()} == {eshe.id: "Eshe", juma.id: "Juma"}
    assert all("volatility" in s for s in both.values())


def test_players_and_page_out_of_bounds_are_refused_clearly(lobby_nodes, tmp_path):
    node = _node(lobby_nodes, tmp_path)
    ratings = f"{node.url}/api/ratings/kalah"
    assert httpx.get(ratings, timeout=5).json() == {}
    nine = ",".join(f"p{i}" for i in range(9))
    for players in (nine, "", "a,,b", "not an id", "a" * 25):
        r = httpx.get(ratings, params={"players": players}, timeout=5)
        assert r.status_code == 400 and r.json()["code"] == "bad-players", (players, r.text)
        assert "1 to 8 player ids" in r.json()["message"]
    eight = ",".join(f"p{i}" for i in range(8))
    assert httpx.get(ratings, params={"players": eight}, timeout=5).json() == {}
    r = httpx.get(f"{node.url}/api/ratings/no-such-game", timeout=5)
    assert r.status_code == 404 and r.json()["code"] == "bad-game"
    me = Player(node.url)
    for page in ("-1", "10001", "1.5", "x", " 1"):
        r = httpx.get(f"{node.url}/api/players/{me.id}", params={"page": page}, timeout=5)
        assert r.status_code == 400 and r.json()["code"] == "bad-page", (page, r.text)
    for page in ("0", "3", "10000"):
        r = httpx.get(f"{node.url}/api/players/{me.id}", params={"page": page}, timeout=5)
        assert r.status_code == 200 and r.json()["page"] == int(page), r.text


def test_quick_pools_list_every_option_and_say_their_clocks_as_players_do(lobby_nodes, tmp_path):
    node = _node(lobby_nodes, tmp_path)
    quick = httpx.get(f"{node.url}/api/lobby", timeout=5).json()["quick"]
    assert [(q["game"], q["options"], q["label"]) for q in quick] == [
        ("kalah", {"empty_capture": False, "seeds": 4}, "3+2"),
        ("kalah", {"empty_capture": False, "seeds": 3}, "4s+0"),
        ("oware", {}, "½+0"),
        ("kalah", {"empty_capture": False, "seeds": 4}, "1½+1"),
    ]
    # a seek made from a pool is paired with the options the pool lists
    a, b = Client(node.ws_url), Client(node.ws_url)
    pool = quick[1]
    for who, c in (("a", a), ("b", b)):
        c.send(t="seek", game=pool["game"], options=pool["options"], clock=pool["clock"], id=who)
    paired = a.expect("paired", id="a")
    assert paired["options"] == pool["options"] and paired["clock"] == pool["clock"]
    assert b.expect("paired", id="b")["options"] == pool["options"]
    a.close()
    b.close()
