"""Creating arenas on real nodes (server/PROTOCOL.md, "Arenas"): one upcoming or running arena
per player however many creations come at once, and ``/metrics`` counting the arenas by
status (upcoming, running, ending)."""

from __future__ import annotations

import asyncio
import time

import httpx
from archivekit import Player
from asynckit import run
from pgkit import sqlite_url
from prometheus_client.parser import text_string_to_metric_families
from wsclient import Client

ENV = {"NYUMBA_ARENA_MIN_MS": "1000", "NYUMBA_ARENA_CREATOR_GAMES": "0"}
ARENA = {
    "game": "kalah", "options": {"seeds": 3}, "clock": {"initial_ms": 60000, "increment_ms": 0},
    "starts_in_ms": 0, "duration_ms": 600000, "rated": False,
}  # fmt: skip


def test_ten_creations_at_once_by_one_player_make_one_arena(lobby_nodes, tmp_path):
    nodes = lobby_nodes(2, DATABASE_URL=sqlite_url(tmp_path), **ENV)
    juma = Player(nodes[0].url, "Juma")

    async def create_ten() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30, headers=juma.cookie) as http:
            asks = [http.post(nodes[i % 2].url + "/api/arenas", json=ARENA) for i in range(10)]
            return await asyncio.gather(*asks)

    answers = run(create_ten())
    assert sorted(r.status_code for r in answers) == [201] + [409] * 9, [r.text for r in answers]
    made = next(r.json() for r in answers if r.status_code == 201)
    for refused in (r.json() for r in answers if r.status_code == 409):
        assert refused["code"] == "arena-limit" and made["id"] in refused["message"]
    for node in nodes:
        listed = httpx.get(node.url + "/api/arenas").json()
        mine = [a["id"] for a in listed["upcoming"] + listed["running"] if a["by"] == juma.id]
        assert mine == [made["id"]]
    # The limit is the player's: another may create one.
    assert Player(nodes[1].url, "Neema").request("POST", "/api/arenas", json=ARENA).is_success


def _arenas_gauge(node) -> dict[str, float]:
    text = httpx.get(node.url + "/metrics", timeout=10).text
    return {
        sample.labels["status"]: sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "nyumba_arenas"
        for sample in family.samples
    }


def test_the_arenas_gauge_counts_upcoming_running_and_ending_apart(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), **ENV)
    makers = [Player(node.url, name) for name in ("Asha", "Bakari", "Chiku")]
    later = {**ARENA, "starts_in_ms": 600_000}
    short = {**ARENA, "duration_ms": 3000}  # ends while its one game is still played
    for maker, body in zip(makers, (later, ARENA, short), strict=True):
        assert maker.request("POST", "/api/arenas", json=body).status_code == 201
    listed = httpx.get(node.url + "/api/arenas").json()
    ending = next(a["id"] for a in listed["running"] if a["by"] == makers[2].id)
    sockets = [Client(node.ws_url, headers=p.cookie) for p in (makers[2], Player(node.url))]
    for ws in sockets:
        ws.send(t="arena-join", arena=ending, id="j")
    for ws in sockets:  # paired; nobody moves
        ws.expect("arena-paired", id="j")
    want = {"upcoming": 1.0, "running": 1.0, "ending": 1.0}
    deadline = time.monotonic() + 20
    while (seen := _arenas_gauge(node)) != want:  # the rounds count them every second
        assert time.monotonic() < deadline, seen
        time.sleep(0.2)
