"""Arena intents resent on a real node (server/PROTOCOL.md, "Arenas": intent ids): each id is
answered the same way however often it comes, and judged once. A resent ``arena-pause`` does
not pause the player again after a later ``arena-join``; a resent ``arena-join`` after its
pairing gets its ``arena-joined`` and ``arena-paired`` again, neither lists the player as
waiting again nor pairs them twice; a resent ``arena`` is not watched again after ``on: false``;
a refusal is answered again."""

from __future__ import annotations

import time

import httpx
from archivekit import Player
from pgkit import sqlite_url
from wsclient import Client

ENV = {
    "NYUMBA_ARENA_MIN_MS": "5000",
    "NYUMBA_ARENA_CREATOR_GAMES": "0",
    "NYUMBA_ARENA_REMATCH_MS": "0",  # the same two may meet again at once
}
ARENA = {
    "game": "kalah", "options": {"seeds": 3}, "clock": {"initial_ms": 60000, "increment_ms": 0},
    "starts_in_ms": 0, "duration_ms": 600000, "rated": False,
}  # fmt: skip


def _scored_games(node, arena: str, n: int) -> None:
    """Wait until the store has scored ``n`` games of the arena (aborted ones too)."""
    deadline = time.monotonic() + 15
    while len(httpx.get(node.url + f"/api/arenas/{arena}").json()["games"]) < n:
        assert time.monotonic() < deadline, "the game was never scored"
        time.sleep(0.1)


def test_resent_arena_intents_are_answered_again_and_judged_once(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), **ENV)
    amina, baraka, chausiku = (Player(node.url, n) for n in ("Amina", "Baraka", "Chausiku"))
    r = amina.request("POST", "/api/arenas", json=ARENA)
    assert r.status_code == 201, r.text
    arena = r.json()["id"]
    a, b, c = (Client(node.ws_url, headers=p.cookie) for p in (amina, baraka, chausiku))

    # Amina joins, pauses, joins again; her pause resent is answered as it was, and she waits.
    a.send(t="arena-join", arena=arena, id="j1")
    assert a.expect("arena-joined", id="j1")["paused"] is False
    a.send(t="arena-pause", arena=arena, id="p1")
    assert a.expect("arena-joined", id="p1")["paused"] is True
    a.send(t="arena-join", arena=arena, id="j2")
    assert a.expect("arena-joined", id="j2")["paused"] is False
    a.send(t="arena-pause", arena=arena, id="p1")
    assert a.expect("arena-joined", id="p1")["paused"] is True  # the answer, not a new pause
    b.send(t="arena-join", arena=arena, id="b1")
    assert b.expect("arena-joined", id="b1")["paused"] is False
    paired = a.expect("arena-paired", id="j2")  # still waiting: paired with Baraka
    assert b.expect("arena-paired", id="b1")["room"] == paired["room"]

    # Her join resent after its pairing: the same two answers, nothing judged again.
    a.send(t="arena-join", arena=arena, id="j2")
    assert a.expect("arena-joined", id="j2")["paused"] is False
    again = a.expect("arena-paired", id="j2")
    assert again == paired
    a.send(t="arena-join", arena=arena, id="j1")  # an older id: its one answer
    assert a.expect("arena-joined", id="j1")["paused"] is False

    # The game ends (Amina resigns at once: aborted, nobody scores, both free again).
    a.join(paired["room"], paired["token"])
    a.send(t="resign", room=paired["room"], id="r")
    a.expect("ack", id="r")
    a.wait_state(lambda s: s["outcome"] is not None)
    _scored_games(node, arena, 1)

    # Amina did not ask again: Chausiku, then Baraka, come; they are paired with each other.
    c.send(t="arena-join", arena=arena, id="c1")
    assert c.expect("arena-joined", id="c1")["paused"] is False
    b.send(t="arena-join", arena=arena, id="b2")
    assert b.expect("arena-joined", id="b2")["paused"] is False
    with_c = c.expect("arena-paired", id="c1")
    assert with_c["room"] == b.expect("arena-paired", id="b2")["room"]
    assert with_c["opponent"] == "Baraka"
    # Amina asks with a new id: judged, she waits (nobody else is free).
    a.send(t="arena-join", arena=arena, id="j3")
    assert a.expect("arena-joined", id="j3")["paused"] is False
    a.drain(0.5)
    assert not [m for m in a.inbox if m["t"] == "arena-paired"]


def test_a_resent_watch_and_a_resent_refusal(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), **ENV)
    amina = Player(node.url, "Amina")
    arena = amina.request("POST", "/api/arenas", json=ARENA).json()["id"]
    watcher = Client(node.ws_url)
    watcher.send(t="arena", arena=arena, id="w1")
    assert watcher.expect("arena")["full"] is True
    watcher.send(t="arena", arena=arena, id="w1")  # still watching: the view once more
    assert watcher.expect("arena")["full"] is True
    watcher.send(t="arena", arena=arena, on=False, id="w2")
    watcher.send(t="arena", arena=arena, id="w1")  # stopped since: not watched again
    watcher.send(t="arena-join", arena=arena, id="x")  # no cookie: refused, and again
    assert watcher.expect("error", id="x")["code"] == "not-identified"
    watcher.send(t="arena-join", arena=arena, id="x")
    assert watcher.expect("error", id="x")["code"] == "not-identified"
    # Amina joins: a change its watchers are told of; this socket watches no more.
    mine = Client(node.ws_url, headers=amina.cookie)
    mine.send(t="arena", arena=arena)
    assert mine.expect("arena")["players"] == 0
    mine.send(t="arena-join", arena=arena, id="j")
    mine.expect("arena-joined", id="j")
    mine.expect("arena", timeout=5, players=1)
    watcher.drain(0.8)
    assert not [m for m in watcher.inbox if m["t"] == "arena"]
