"""An arena's watchers on a real node past ``ALL_ROWS`` players (server/live/arenawatch.py):
each update gives every watcher its own row, and the node reads those rows in one round trip
to the store per update, not one per watcher (its ``nyumba_store_command_seconds_count``)."""

from __future__ import annotations

import uuid

import httpx
from archivekit import Player
from asynckit import run
from pgkit import sqlite_url
from prometheus_client.parser import text_string_to_metric_families
from wsclient import Client

from server.live.arenawatch import ALL_ROWS
from server.store.arena import ArenaStore
from server.store.store import Store

ENV = {"NYUMBA_ARENA_MIN_MS": "5000", "NYUMBA_ARENA_CREATOR_GAMES": "0"}
ARENA = {
    "game": "kalah", "options": {"seeds": 3}, "clock": {"initial_ms": 60000, "increment_ms": 0},
    "starts_in_ms": 0, "duration_ms": 600000, "rated": False,
}  # fmt: skip
WATCHERS = 100
UPDATES = 5


def _round_trips(node) -> float:
    text = httpx.get(node.url + "/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "nyumba_store_command_seconds_count":
                return sample.value
    raise AssertionError("no nyumba_store_command_seconds_count")


def _join(lobby_nodes, arena: str, players: list[str]) -> None:
    """Join the players in the store the node uses (as its own sockets would)."""

    async def go() -> None:
        store = Store(lobby_nodes.store, lobby_nodes.prefix)
        await store.start()
        try:
            arenas = ArenaStore(store.link, store.prefix, store.sharded)
            for p in players:
                await arenas.join(arena, p, None, 1500)
        finally:
            await store.close()

    run(go())


def test_each_update_reads_the_watchers_own_rows_in_one_round_trip(lobby_nodes, tmp_path):
    (node,) = lobby_nodes(1, DATABASE_URL=sqlite_url(tmp_path), **ENV)
    maker = Player(node.url, "Msafiri")
    arena = maker.request("POST", "/api/arenas", json=ARENA).json()["id"]
    players = [Player(node.url) for _ in range(WATCHERS)]
    crowd = [f"c-{uuid.uuid4().hex[:10]}" for _ in range(ALL_ROWS + 20)]
    _join(lobby_nodes, arena, [p.id for p in players] + crowd)
    joined = WATCHERS + len(crowd)
    sockets = []
    for player in players:
        ws = Client(node.ws_url, headers=player.cookie)
        ws.send(t="arena", arena=arena)
        view = ws.expect("arena", full=True)
        assert view["players"] == joined and view["me"]["player"] == player.id
        sockets.append(ws)
    before = _round_trips(node)
    for k in range(UPDATES):  # a join each: an update each, to every watcher
        _join(lobby_nodes, arena, [f"late-{k}-{uuid.uuid4().hex[:6]}"])
        for ws, player in ((sockets[0], players[0]), (sockets[-1], players[-1])):
            update = ws.expect("arena", full=False, players=joined + k + 1)
            assert update["me"]["player"] == player.id
    spent = _round_trips(node) - before
    # One per watcher would be WATCHERS * UPDATES (500) on top of the node's own rounds (~100).
    assert spent < WATCHERS * UPDATES / 2, spent
