"""Fair play in the lobby across real nodes (server/rooms/cooldowns.py, server/PROTOCOL.md
"Fair play in the lobby"): a rated seek needs a clock; the nearest rating is paired first; a
player paired who never joins is refused a new seek on every node, for longer each time; one
address has one pairing in flight, so it cannot take every pairing of a pool."""

from __future__ import annotations

import asyncio
import secrets
import time

from archivekit import Player
from lobbykit import join_paired, seek
from wsclient import Client

from server.rooms import seeks as S
from server.store.lobby import LobbyStore, seek_rules
from server.store.store import Store

KALAH = {"game": "kalah", "options": {"seeds": 4}}
FAIR = {  # a small join deadline and cooldowns, so the test waits seconds, not minutes
    "NYUMBA_JOIN_DEADLINE_MS": "1500",
    "NYUMBA_SEEK_COOLDOWNS_MS": "3000,600000",
    "NYUMBA_PAIRINGS_PER_ADDRESS": "1",
}


POLL_S = 0.2  # between polls of a refusal that lasts a while (a socket's rate limit is 5 a second)


def _as(address: str, **headers: str) -> dict[str, str]:
    return {"X-Forwarded-For": address, **headers}  # believed from 127.0.0.1 (the default)


def _answer(client: Client, timeout: float = 10.0) -> dict:
    """The next answer to a lobby request: ``seeking``, ``paired`` or ``error``."""
    deadline = time.monotonic() + timeout
    while True:
        for i, msg in enumerate(client.inbox):
            if msg["t"] in ("seeking", "error", "paired"):
                return client.inbox.pop(i)
        client.inbox.append(client._take(max(0.01, deadline - time.monotonic())))


def _refused(client: Client) -> dict:
    """A seek's answer, which must be a refusal."""
    client.send(t="seek", **KALAH)
    answer = _answer(client)
    assert answer["t"] == "error", answer
    return answer


def _until_refused(client: Client, code: str, timeout: float = 10.0) -> dict:
    """Seek again until refused ``code`` (each earlier answer a refusal too, never a seek)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = _refused(client)
        if answer["code"] == code or time.monotonic() > deadline:
            assert answer["code"] == code, answer
            return answer
        time.sleep(POLL_S)


def _until_cooling(client: Client, timeout: float = 10.0) -> dict:
    """Seek until refused ``cooldown``, cancelling a seek listed meanwhile: the offence of an
    abort is counted just after the abort is stored, so a seek sent at once may come first."""
    deadline = time.monotonic() + timeout
    while True:
        client.send(t="seek", **KALAH)
        answer = _answer(client)
        if answer["t"] == "error" and answer["code"] == "cooldown":
            return answer
        assert answer["t"] == "seeking" and time.monotonic() < deadline, answer
        client.send(t="cancel", seek=answer["seek"])
        assert _answer(client).get("status") == "cancelled"
        time.sleep(POLL_S)


def test_an_unclocked_rated_seek_is_refused_with_its_own_code(lobby_nodes):
    (a,) = lobby_nodes(1)
    player = Player(a.url)
    client = Client(a.ws_url, headers=player.cookie)
    client.send(t="seek", **KALAH, rated=True, id="r1")
    refused = client.expect("error")
    assert refused["code"] == "rated-needs-clock" and refused["id"] == "r1"
    assert "clock" in refused["message"]
    seek(client, rated=True, clock={"initial_ms": 60_000, "increment_ms": 0})  # with one: listed


def _plant(url: str, prefix: str, ratings: list[int]) -> list[S.SeekRec]:
    """Seeks for North of players on other nodes, oldest first, each from its own address,
    rated ``ratings`` (straight in the store, as those nodes would post them)."""
    pool = "p" + secrets.token_hex(4)
    recs = [
        S.SeekRec(
            f"s{i}", "kalah", {"seeds": 4}, None, "north", False, pool, "elsewhere", f"c{i}",
            "0" * 64, f"192.0.2.{i}", f"r{rating}", None, rating,
        )  # fmt: skip
        for i, rating in enumerate(ratings)
    ]  # fmt: skip

    async def go() -> None:
        store = Store(url, prefix)
        lobby = LobbyStore(store.link, store.prefix, store.sharded)
        try:
            for r in recs:
                rules = seek_rules(300_000, 100, "r" + r.id, 0, rating=r.rating or 1500)
                assert (await lobby.seek(r.id, S.encode_rec(r), rules))[0] == "open"
        finally:
            await store.close()

    asyncio.run(go())
    return recs


def _newcomer(url: str, prefix: str, pool: str, rating: int, i: int) -> str:
    """A seek for South of the pool rated ``rating`` (from another node): the name of whom it
    is paired with."""

    async def go() -> str:
        store = Store(url, prefix)
        lobby = LobbyStore(store.link, store.prefix, store.sharded)
        rec = S.SeekRec(
            f"n{i}", "kalah", {"seeds": 4}, None, "south", False, pool, "elsewhere", f"nc{i}",
            "0" * 64, f"198.51.100.{i}", None, None, rating,
        )  # fmt: skip
        try:
            rules = seek_rules(300_000, 100, f"room{i}", 0, rating=rating)
            kind, pairing = await lobby.seek(rec.id, S.encode_rec(rec), rules)
            assert kind == "paired" and pairing is not None, kind
            return next(s.name for s in S.decode_pairing(pairing).seeks if s.id != rec.id) or ""
        finally:
            await store.close()

    return asyncio.run(go())


def test_the_nearest_rating_is_paired_first_then_the_oldest(lobby_nodes):
    lobby_nodes(2)  # their sweeps run while the seeks wait
    url, prefix = lobby_nodes.store, lobby_nodes.prefix
    recs = _plant(url, prefix, [1100, 1900, 1450, 2300])
    pool = recs[0].pool
    assert _newcomer(url, prefix, pool, 1500, 1) == "r1450"  # 50 away, the newest
    assert _newcomer(url, prefix, pool, 1500, 2) == "r1100"  # 400 away either way: the older
    assert _newcomer(url, prefix, pool, 2000, 3) == "r1900"
    assert _newcomer(url, prefix, pool, 1000, 4) == "r2300"  # the only one left


def test_a_player_paired_who_never_joins_waits_on_every_node_and_longer_each_time(lobby_nodes):
    a, b = lobby_nodes(2, **FAIR)
    shirker = Player(a.url)
    mine = Client(a.ws_url, headers=_as("198.51.100.7", **shirker.cookie))
    honest = Client(b.ws_url, headers=_as("203.0.113.5"))
    seek(mine)
    honest.send(t="seek", **KALAH)
    join_paired(b.ws_url, honest.expect("paired"))
    mine.expect("paired")  # and never joined
    # Until the join deadline the pairing is in flight (no second one from that address); past
    # it, the address and the player wait.
    assert _refused(mine)["code"] in ("pairing-pending", "cooldown")
    refused = _until_refused(mine, "cooldown")
    assert 0 < refused["retry_after_ms"] <= 3000 and " s left" in refused["message"]
    # On the other node, from the same address without the cookie, and with the cookie from
    # another address: the same cooldown.
    elsewhere = Client(b.ws_url, headers=_as("198.51.100.7"))
    assert _refused(elsewhere)["code"] == "cooldown"
    roaming = Client(a.ws_url, headers=_as("192.0.2.99", **shirker.cookie))
    assert _refused(roaming)["code"] == "cooldown"
    # Once it has passed, the seek is taken; missed again, the wait is the next step.
    deadline = time.monotonic() + 10
    while True:
        mine.send(t="seek", **KALAH)
        answer = _answer(mine)
        if answer["t"] == "seeking":
            break
        assert answer["code"] == "cooldown" and time.monotonic() < deadline, answer
        time.sleep(POLL_S)
    honest.send(t="seek", **KALAH)
    join_paired(b.ws_url, honest.expect("paired"))
    mine.expect("paired")
    again = _until_refused(elsewhere, "cooldown")
    assert 3000 < again["retry_after_ms"] <= 600_000


def test_one_address_has_one_pairing_in_flight_until_its_seat_is_joined(lobby_nodes):
    a, b = lobby_nodes(2, **{**FAIR, "NYUMBA_JOIN_DEADLINE_MS": "60000"})
    first = Client(a.ws_url, headers=_as("198.51.100.8"))
    seek(first)
    other = Client(b.ws_url, headers=_as("203.0.113.6"))
    other.send(t="seek", **KALAH)
    join_paired(b.ws_url, other.expect("paired"))
    paired = first.expect("paired")
    second = Client(b.ws_url, headers=_as("198.51.100.8"))  # the same address, another node
    second.send(t="seek", **KALAH, id="s2")
    refused = _answer(second)
    assert refused["code"] == "pairing-pending" and refused["id"] == "s2"
    assert 0 < refused["retry_after_ms"] <= 60_000
    join_paired(a.ws_url, paired)  # joined: no longer in flight
    second.send(t="seek", **KALAH, id="s3")
    assert _answer(second)["t"] == "seeking"


def test_one_address_can_no_longer_take_every_pairing_of_a_pool(lobby_nodes):
    """The sniping of the report: one address keeps 8 seeks listed (all for North, so they
    never pair with each other) and never joins; 8 players from other addresses then seek one
    after another. Before, each was paired with the sniper (paired with one another: 0 of 8);
    now the sniper's first pairing is in flight and its other seeks are passed over."""
    nodes = lobby_nodes(2, **{**FAIR, "NYUMBA_JOIN_DEADLINE_MS": "60000"})
    sniper = [Client(nodes[i % 2].ws_url, headers=_as("198.51.100.66")) for i in range(8)]
    sniped = {seek(c, side="north")["seek"] for c in sniper}
    victims = []
    for i in range(8):
        victim = Client(nodes[i % 2].ws_url, headers=_as(f"203.0.113.{20 + i}"))
        victim.send(t="seek", **KALAH, name=f"v{i}")
        victims.append((victim, _answer(victim)))
    paired = [answer for _, answer in victims if answer["t"] == "paired"]
    for victim, answer in victims:  # those listed were paired by a later victim
        if answer["t"] == "seeking":
            try:
                paired.append(victim.expect("paired", timeout=5))
            except TimeoutError:
                pass
    with_victims = [p for p in paired if (p["opponent"] or "").startswith("v")]
    with_sniper = [p for p in paired if p["seek"] not in sniped and not p["opponent"]]
    print(f"victims paired with each other: {len(with_victims)} of 8; sniped: {len(with_sniper)}")
    assert len(with_sniper) == 1 and len(with_victims) == 6


def test_a_lobby_game_aborted_by_a_missing_first_move_costs_that_side_a_cooldown(lobby_nodes):
    a, b = lobby_nodes(2, **FAIR, NYUMBA_ABORT_MS="1000")
    clock = {"initial_ms": 60_000, "increment_ms": 0}
    one = Client(a.ws_url, headers=_as("198.51.100.9"))
    seek(one, clock=clock)
    two = Client(b.ws_url, headers=_as("203.0.113.9"))
    two.send(t="seek", **KALAH, clock=clock)
    paired = {id(c): c.expect("paired") for c in (two, one)}
    for c in (one, two):
        join_paired(a.ws_url, paired[id(c)])  # both join
    south, north = (one, two) if paired[id(one)]["side"] == 0 else (two, one)
    room = Client(b.ws_url)
    room.join(paired[id(one)]["room"])
    state = room.wait_state(lambda s: s["outcome"] is not None)  # South never moves
    assert state["outcome"]["adjudication"] == "aborted"
    assert 0 < _until_cooling(south)["retry_after_ms"] <= 3000
    north.send(t="seek", **KALAH)
    assert _answer(north)["t"] == "seeking"
