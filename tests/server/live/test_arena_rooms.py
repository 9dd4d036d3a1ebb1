"""An arena game on a real node, as its two players' sockets see it (server/PROTOCOL.md,
"Arenas"): they join, are paired, one goes berserk (half its time, one point more for the win),
the room refuses a rematch offer, a watcher's view shows the score; and what is refused: an
arena without a cookie, an unknown arena, a creation that does not validate or is not allowed."""

from __future__ import annotations

import time

import httpx
from archivekit import Player
from pgkit import sqlite_url
from wsclient import Client

ENV = {"NYUMBA_ARENA_MIN_MS": "5000", "NYUMBA_ARENA_CREATOR_GAMES": "0"}
ARENA = {
    "game": "kalah", "options": {"seeds": 3}, "clock": {"initial_ms": 60000, "increment_ms": 0},
    "starts_in_ms": 0, "duration_ms": 60000, "rated": True, "berserk": True,
}  # fmt: skip


def _socket(node, player: Player) -> Client:
    return Client(node.ws_url, headers=player.cookie)


def _state_after(clients: list[Client], version: int) -> dict:
    return max(
        (c.wait_state(lambda s: s["version"] >= version) for c in clients),
        key=lambda s: s["version"],
    )


def test_two_players_are_paired_one_goes_berserk_wins_and_scores_three(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), **ENV)
    amina, baraka = Player(node.url, "Amina"), Player(node.url, "Baraka")
    r = amina.request("POST", "/api/arenas", json=ARENA)
    assert r.status_code == 201, r.text
    arena = r.json()["id"]
    watcher = Client(node.ws_url)
    watcher.send(t="arena", arena=arena)
    view = watcher.expect("arena")
    assert view["full"] is True and view["status"] == "running" and view["players"] == 0
    sockets = {}
    for player in (amina, baraka):
        ws = _socket(node, player)
        ws.send(t="arena-join", arena=arena, id="j")
        assert ws.expect("arena-joined", id="j")["paused"] is False
        sockets[player.id] = ws
    paired = {pid: ws.expect("arena-paired") for pid, ws in sockets.items()}
    rooms = {p["room"] for p in paired.values()}
    assert len(rooms) == 1 and sorted(p["side"] for p in paired.values()) == [0, 1]
    room = rooms.pop()
    by_side = {}
    for pid, ws in sockets.items():
        ws.join(room, paired[pid]["token"])
        by_side[paired[pid]["side"]] = ws
    assert by_side[0].state["arena"] == arena and by_side[0].state["berserk"] == [False, False]
    # North goes berserk before its first move: half its time.
    by_side[1].send(t="berserk", room=room, id="b")
    by_side[1].expect("ack", id="b")
    state = by_side[0].wait_state(lambda s: s["berserk"] == [False, True])
    assert state["clock"]["remaining"] == [60000, 30000]
    # Both sides make two moves each, then South resigns: North wins, berserked.
    counts, version = [0, 0], 0
    while min(counts) < 2:
        state = _state_after(list(by_side.values()), version)
        mover = state["to_move"]
        by_side[mover].move(state["legal"][0]["move"], state["version"])
        counts[mover] += 1
        version = state["version"] + 1
    _state_after(list(by_side.values()), version)
    by_side[0].send(t="resign", room=room, id="r")
    by_side[0].expect("ack", id="r")
    over = by_side[1].wait_state(lambda s: s["outcome"] is not None)
    assert over["outcome"]["winner"] == 1
    # No rematch in an arena: the arena pairs them again.
    by_side[1].send(t="offer", room=room, kind="rematch", id="o")
    refused = by_side[1].expect("error", id="o")
    assert refused["code"] == "not-allowed"
    north = next(pid for pid, p in paired.items() if p["side"] == 1)

    def scored(view: dict) -> bool:
        return any(row["player"] == north and row["points"] == 3 for row in view["standings"])

    while not scored(view):  # the watcher's paced updates: the rows that changed
        view = watcher.expect("arena")
    assert view["full"] is False
    row = next(
        r
        for r in httpx.get(node.url + f"/api/arenas/{arena}").json()["standings"]
        if r["player"] == north
    )
    assert (row["points"], row["wins"], row["berserks"], row["sheet"]) == (3, 1, 1, [3])
    listed = httpx.get(node.url + "/api/arenas").json()
    assert [a["id"] for a in listed["running"]] == [arena]


def test_what_an_arena_refuses(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), NYUMBA_ARENA_MIN_MS="5000")
    zawadi = Player(node.url, "Zawadi")
    # Creating: 5 rated games or a passkey (NYUMBA_ARENA_CREATOR_GAMES), a player, a valid spec.
    assert zawadi.request("POST", "/api/arenas", json=ARENA).json()["code"] == "arena-not-allowed"
    anonymous = httpx.post(node.url + "/api/arenas", json=ARENA)
    assert (anonymous.status_code, anonymous.json()["code"]) == (403, "arena-not-allowed")
    (tmp_path / "o").mkdir()
    other = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path / "o"), **ENV)[-1]
    juma = Player(other.url, "Juma")
    short = juma.request("POST", "/api/arenas", json={**ARENA, "duration_ms": 1000})
    assert (short.status_code, short.json()["code"]) == (400, "bad-arena")
    bad_game = juma.request("POST", "/api/arenas", json={**ARENA, "game": "chess"})
    assert (bad_game.status_code, bad_game.json()["code"]) == (400, "bad-arena")
    assert juma.request("POST", "/api/arenas", json=ARENA).status_code == 201
    again = juma.request("POST", "/api/arenas", json=ARENA)
    assert (again.status_code, again.json()["code"]) == (409, "arena-limit")
    assert httpx.get(other.url + "/api/arenas/nope").json()["code"] == "no-arena"
    assert httpx.get(other.url + "/t/nope").status_code == 404
    # Playing needs a player; an unknown arena is refused.
    ws = Client(other.ws_url)
    arena = httpx.get(other.url + "/api/arenas").json()["running"][0]["id"]
    ws.send(t="arena-join", arena=arena, id="x")
    assert ws.expect("error", id="x")["code"] == "not-identified"
    mine = _socket(other, juma)
    mine.send(t="arena-join", arena="unknown", id="y")
    assert mine.expect("error", id="y")["code"] == "no-arena"


def test_the_schedule_makes_each_arena_once_whichever_nodes_see_it(lobby_nodes, tmp_path):
    entry = "kalah 3+2 hourly 30m"
    nodes = lobby_nodes(
        2,
        DATABASE_URL=sqlite_url(tmp_path),
        NYUMBA_ARENAS=f"{entry}; oware 5+3 daily@19:00 60m casual berserk",
    )
    deadline = time.monotonic() + 15
    while True:  # each node's first round looks at the schedule
        listed = httpx.get(nodes[1].url + "/api/arenas").json()
        made = [a for a in listed["upcoming"] + listed["running"] if a["schedule"] == entry]
        if made or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert len(made) == 1 and made[0]["by"] is None and made[0]["rated"] is True
    assert made[0]["clock"] == {"initial_ms": 180000, "increment_ms": 2000}
    assert made[0]["ends_ms"] - made[0]["starts_ms"] == 30 * 60_000
    time.sleep(1.5)  # both nodes have had a round with it: still one, counted once
    created = 0.0
    for node in nodes:
        for line in httpx.get(node.url + "/metrics").text.splitlines():
            if line.startswith('nyumba_arenas_created_total{by="schedule"}'):
                created += float(line.split()[-1])
    assert created == 1.0
