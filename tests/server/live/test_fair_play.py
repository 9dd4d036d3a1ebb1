"""Fair play across real nodes (``server/rooms/fairplay.py``, ``server/rooms/leaving.py``;
PROTOCOL.md, "Fair play"): no result before each side has made two moves, and a rated game
whose player left is claimed by the other, never handed to the computer."""

from __future__ import annotations

import time

import httpx
import pytest
from archivekit import Player, opening, wait_archived
from wsclient import Client

from server.ratings import glicko2 as G

CLOCK = {"initial_ms": 60_000, "increment_ms": 0}
TIMERS = {"NYUMBA_TICK_MS": "300", "NYUMBA_PRESENCE_TTL_MS": "1000"}


def _rated_pair(a, b, south: Player, north: Player, clock=CLOCK) -> dict[int, Client]:
    """South (on node ``a``) and North (on ``b``) paired by a rated lobby seek, in their room."""
    first = Client(a.ws_url, headers=south.cookie)
    second = Client(b.ws_url, headers=north.cookie)
    first.send(t="seek", game="kalah", options={"seeds": 4}, rated=True, side="south", clock=clock)
    first.expect("seeking", status="open")
    second.send(t="seek", game="kalah", options={"seeds": 4}, rated=True, clock=clock)
    p2, p1 = second.expect("paired"), first.expect("paired")
    assert p1["rated"] and p2["rated"] and p1["side"] == 0
    players = {}
    for node, paired, player in ((a, p1, south), (b, p2, north)):
        c = Client(node.ws_url, paired["room"], paired["token"], headers=player.cookie)
        c.join()
        players[paired["side"]] = c
    players[0].wait_state(lambda s: all(seat["present"] for seat in s["seats"]))
    return players


def _plies(players: dict[int, Client], n: int) -> dict:
    """The side to move plays its first legal move, ``n`` times; the state after."""
    state = players[0].wait_state(lambda s: True)
    for _ in range(n):
        mover = players[state["to_move"]]
        mover.wait_state(lambda s, v=state["version"]: s["version"] >= v)
        mover.move(state["legal"][0]["move"], state["version"])
        state = players[0].wait_state(lambda s, v=state["version"]: s["version"] > v)
    return state


def _ratings(base: str, player: Player) -> list[dict]:
    return httpx.get(f"{base}/api/players/{player.id}", timeout=5).json()["ratings"]


def _nodes(lobby_nodes, tmp_path, **env: str):
    """Two nodes on one store and one archive (SQLite, shared)."""
    return lobby_nodes(2, DATABASE_URL=f"sqlite:///{tmp_path / 'archive.db'}", **env)


def test_a_resignation_a_draw_or_a_flag_before_two_moves_each_aborts_and_rates_nothing(
    lobby_nodes, tmp_path
) -> None:
    a, b = _nodes(lobby_nodes, tmp_path)
    south, north = Player(a.url, "Asha"), Player(b.url, "Juma")
    for plies in (0, 1, 2, 3):
        players = _rated_pair(a, b, south, north)
        _plies(players, plies)
        resigner = players[plies % 2]
        resigner.send(t="resign", room=resigner.room, id=f"r{plies}")
        assert resigner.expect("ack", id=f"r{plies}")
        for p in players.values():
            over = p.wait_state(lambda s: s["outcome"] is not None)
            assert over["adjudication"] == "aborted" and over["outcome"]["winner"] is None
            assert over["archive"] is None and over["plies"] == plies
            p.close()
    # An agreed draw after two plies (one move each) aborts too.
    players = _rated_pair(a, b, south, north)
    _plies(players, 2)
    players[0].send(t="offer", room=players[0].room, kind="draw", id="d")
    players[1].expect("offer", status="open")
    players[1].send(t="reply", room=players[1].room, kind="draw", accept=True, id="y")
    over = players[0].wait_state(lambda s: s["outcome"] is not None)
    assert over["adjudication"] == "aborted" and over["archive"] is None
    # A flag once the clocks run (each side has moved once) aborts too, with nobody sending.
    players = _rated_pair(a, b, south, north, clock={"initial_ms": 1000, "increment_ms": 0})
    running = _plies(players, 2)
    assert running["clock"]["running"] is not None
    over = players[1].wait_state(lambda s: s["outcome"] is not None, timeout=10)
    assert over["adjudication"] == "aborted" and over["archive"] is None
    # Then a game with a result: the only one on the players' pages and in their ratings.
    players = _rated_pair(a, b, south, north)
    opening(players)
    players[1].send(t="resign", room=players[1].room, id="real")
    over = players[0].wait_state(lambda s: s["outcome"] is not None)
    assert over["adjudication"] == "resignation" and over["archive"]
    wait_archived(a.url, over["archive"])
    won, lost = G.game(G.Rating(), G.Rating(), 1.0)
    deadline = time.monotonic() + 20
    while not _ratings(b.url, north):  # the ratings are written with the game
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert [r["rating"] for r in _ratings(a.url, south)] == [pytest.approx(won.rating)]
    assert [r["rating"] for r in _ratings(b.url, north)] == [pytest.approx(lost.rating)]
    games = httpx.get(f"{b.url}/api/players/{north.id}", timeout=5).json()["games"]
    assert [g["id"] for g in games] == [over["archive"]]


def _leave_on_turn(players: dict[int, Client], leaver: int) -> tuple[Client, dict]:
    """Play until each side has made two moves and it is ``leaver``'s turn; ``leaver``'s
    socket closes. The opponent's client, and its state once it sees the seat absent."""
    state = opening(players)
    if state["to_move"] != leaver:
        state = _plies(players, 1)
        while state["to_move"] != leaver:  # an extra turn: the other side moves again
            state = _plies(players, 1)
    stays = players[1 - leaver]
    players[leaver].close()
    return stays, stays.wait_state(lambda s: not s["seats"][leaver]["present"])


def _claim_until_answered(client: Client, kind: str, deadline_s: float = 20) -> dict:
    """Claim until the wait is over (refused ``not-absent`` before): the ack."""
    deadline = time.monotonic() + deadline_s
    n = 0
    while True:
        n += 1
        client.send(t="claim", room=client.room, kind=kind, id=f"c{n}")
        msg = _answer(client, f"c{n}")
        if msg["t"] == "ack":
            return msg
        assert msg["code"] == "not-absent", msg
        assert time.monotonic() < deadline, "the claim was never allowed"
        time.sleep(0.2)


def _answer(client: Client, intent_id: str) -> dict:
    """The ``ack`` or ``error`` that answers ``intent_id``."""
    deadline = time.monotonic() + 10
    while True:
        for i, msg in enumerate(client.inbox):
            if msg["t"] in ("ack", "error") and msg.get("id") == intent_id:
                return client.inbox.pop(i)
        msg = client._take(max(0.01, deadline - time.monotonic()))
        if msg["t"] in ("ack", "error") and msg.get("id") == intent_id:
            return msg
        if msg["t"] != "state":
            client.inbox.append(msg)


def test_a_player_who_leaves_a_rated_game_loses_when_the_opponent_claims_after_the_wait(
    lobby_nodes, tmp_path
) -> None:
    # Presence noticed within a tick (0.3 s), well inside the wait (4 s): the early claim is early.
    a, b = _nodes(lobby_nodes, tmp_path, NYUMBA_ABSENT_MS="4000", **TIMERS)
    south, north = Player(a.url, "Asha"), Player(b.url, "Juma")
    players = _rated_pair(a, b, south, north)
    stays, seen = _leave_on_turn(players, leaver=1)  # North leaves on its turn
    assert seen["seats"][1]["handover_ms"] > 0
    stays.send(t="claim", room=stays.room, kind="win", id="early")
    early = _answer(stays, "early")
    assert early["t"] == "error" and early["code"] == "not-absent"  # before the wait
    stays.send(t="hand_over", room=stays.room, id="h")
    refused = _answer(stays, "h")
    assert refused["code"] == "not-allowed"  # a rated game is never the computer's
    ack = _claim_until_answered(stays, "win")
    over = stays.wait_state(lambda s: s["outcome"] is not None)
    assert over["adjudication"] == "abandoned" and over["outcome"]["winner"] == 0
    stays.send(t="claim", room=stays.room, kind="win", id=ack["id"])  # answered the same again
    assert _answer(stays, ack["id"]) == ack
    wait_archived(b.url, over["archive"])
    won, lost = G.game(G.Rating(), G.Rating(), 1.0)
    deadline = time.monotonic() + 20
    while not _ratings(b.url, north):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert [r["rating"] for r in _ratings(b.url, south)] == [pytest.approx(won.rating)]
    assert [r["rating"] for r in _ratings(a.url, north)] == [pytest.approx(lost.rating)]


def test_the_opponent_of_a_player_who_left_may_claim_a_draw_but_not_on_its_own_turn(
    lobby_nodes, tmp_path
) -> None:
    a, b = _nodes(lobby_nodes, tmp_path, NYUMBA_ABSENT_MS="1000", **TIMERS)
    south, north = Player(a.url), Player(b.url)
    players = _rated_pair(a, b, south, north)
    state = opening(players)
    leaver = 1 - state["to_move"]  # the side that just moved leaves: the stayer is to move
    stays = players[1 - leaver]
    players[leaver].close()
    stays.wait_state(lambda s: not s["seats"][leaver]["present"])
    deadline = time.monotonic() + 20
    n = 0
    while True:  # past the wait, its own turn is still refused: move first
        n += 1  # a new id each time: a resent id is answered as it was the first time
        stays.send(t="claim", room=stays.room, kind="draw", id=f"own{n}")
        refused = _answer(stays, f"own{n}")
        if refused["code"] == "not-allowed":
            break
        assert refused["code"] == "not-absent" and time.monotonic() < deadline
        time.sleep(0.2)
    state = stays.wait_state(lambda s: True)
    while state["to_move"] != leaver:
        stays.move(state["legal"][0]["move"], state["version"])
        state = stays.wait_state(lambda s, v=state["version"]: s["version"] > v)
    _claim_until_answered(stays, "draw")
    over = stays.wait_state(lambda s: s["outcome"] is not None)
    assert over["adjudication"] == "abandoned" and over["outcome"]["winner"] is None
    game = wait_archived(a.url, over["archive"])["game"]
    assert game["rated"] and game["outcome"]["adjudication"] == "abandoned"
