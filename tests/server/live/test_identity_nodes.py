"""Players' identities across nodes (two nodes, one store, one archive): a session that ends on
one node is refused by the other at once, though it remembered the session a moment before;
and one address's new players and passkey challenges are one budget for all the nodes."""

from __future__ import annotations

import sqlite3
import time

import httpx
import redis
from archivekit import Player, refused_within, seated_as
from pgkit import sqlite_url

FLOOD_LIMIT = 10


def test_a_deleted_players_cookie_is_refused_on_the_other_node_at_once(lobby_nodes, tmp_path):
    a, b = lobby_nodes(2, DATABASE_URL=sqlite_url(tmp_path))
    amina = Player(a.url, "Amina")
    assert seated_as(b, amina) == (amina.id, amina.id)  # b remembers who the cookie is
    assert amina.request("DELETE", "/api/me").status_code == 204
    waited, seen = refused_within(b, amina, 1.0)
    assert seen == (None, None), f"b still seats the deleted player after {waited:.2f} s"
    assert waited < 1.0
    assert httpx.get(b.url + "/api/me", headers=amina.cookie).json()["player"] is None


def test_a_player_is_marked_used_when_its_cookie_first_takes_a_seat(lobby_nodes, tmp_path):
    """Retention deletes players never used a day after they were made (docs/privacy.md): a
    page asking who it is leaves a player unused, a seat taken with its cookie does not."""
    url = sqlite_url(tmp_path)
    a, b = lobby_nodes(2, DATABASE_URL=url)
    zawadi = Player(a.url)

    def used() -> bool:
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            seen, made = db.execute(
                "select seen_ms, created_ms from players where id = ?", (zawadi.id,)
            ).fetchone()
        return seen > made

    assert httpx.get(b.url + "/api/me", headers=zawadi.cookie).json()["player"] == zawadi.id
    assert not used()
    assert seated_as(b, zawadi) == (zawadi.id, zawadi.id)
    deadline = time.monotonic() + 5  # written beside the join, which did not wait for it
    while not used():
        assert time.monotonic() < deadline, "the seat did not mark the player used"


def test_a_signed_out_cookie_is_refused_on_the_other_node_at_once(lobby_nodes, tmp_path):
    a, b = lobby_nodes(2, DATABASE_URL=sqlite_url(tmp_path))
    baraka = Player(a.url, "Baraka")
    assert seated_as(b, baraka) == (baraka.id, baraka.id)
    assert baraka.request("POST", "/api/me/signout").status_code == 204
    waited, seen = refused_within(b, baraka, 1.0)
    assert seen == (None, None), f"b still seats the signed-out player after {waited:.2f} s"
    assert waited < 1.0


def test_an_identity_flood_from_one_address_is_refused_past_its_budget_on_every_node(
    lobby_nodes, shared_store, tmp_path
):
    url = sqlite_url(tmp_path)
    nodes = lobby_nodes(2, DATABASE_URL=url, NYUMBA_IDENTITIES_PER_MINUTE=str(FLOOD_LIMIT))
    answers = []
    for i in range(3 * FLOOD_LIMIT):  # new players, from one address, on both nodes in turn
        answers.append(httpx.post(nodes[i % 2].url + "/api/me", timeout=10))
    for i in range(FLOOD_LIMIT):  # and sign-in ceremonies' challenges, from the same budget
        at = nodes[i % 2].url.replace("127.0.0.1", "localhost")  # passkeys' address (the default)
        answers.append(httpx.post(at + "/api/passkeys/signin/options", timeout=10))
    made = [r for r in answers if r.status_code in (200, 201)]
    refused = [r for r in answers if r.status_code == 429]
    assert len(made) + len(refused) == len(answers)
    # The budget is the address's in each minute of the store's clock: count what the minutes
    # the flood touched allowed (one, or two if it crossed a minute).
    prefix = nodes[0].extra_env["NYUMBA_KEY_PREFIX"]
    with redis.Redis.from_url(shared_store) as r:
        counts = [int(r.get(k)) for k in r.scan_iter(match=f"{prefix}quota:identities:*")]
    assert sum(counts) == len(answers)
    assert len(made) == sum(min(c, FLOOD_LIMIT) for c in counts) <= 2 * FLOOD_LIMIT
    for r in refused:
        problem = r.json()
        assert problem["code"] == "rate-limited" and str(FLOOD_LIMIT) in problem["message"]
        assert 1 <= int(r.headers["retry-after"]) <= 60
    # A refused request wrote nothing: the archive holds the players that were made, no more.
    new_players = sum(r.status_code == 201 for r in made)
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        assert db.execute("select count(*) from players").fetchone()[0] == new_players
        assert db.execute("select count(*) from sessions").fetchone()[0] == new_players
        kept = db.execute("select count(*) from challenges").fetchone()[0]
    assert kept == len(made) - new_players
    # The budget is for identities only: the same address still makes rooms (and plays).
    room = httpx.post(nodes[1].url + "/api/rooms", json={"game": "kalah"}, timeout=10)
    assert room.status_code == 201
