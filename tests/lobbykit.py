"""A lobby player's steps, for the lobby's tests across real nodes (tests/server/live/test_lobby_*.py;
their nodes and store are tests/server/live/conftest.py's ``lobby_nodes``)."""

from __future__ import annotations

import random

from wsclient import Client


def seek(client: Client, **body) -> dict:
    client.send(t="seek", **{"game": "kalah", "options": {"seeds": 4}, **body})
    return client.expect("seeking", status="open")


def join_paired(ws_url: str, paired: dict) -> Client:
    player = Client(ws_url, paired["room"], paired["token"])
    player.join()
    assert player.sides == [paired["side"]]
    return player


def play_out(players: dict[int, Client], rng: random.Random) -> dict:
    """Both sides move at random until the game is over; the final state."""
    while True:
        state = players[0].wait_state(lambda s: True)
        state = max(
            (p.wait_state(lambda s: True) for p in players.values()), key=lambda s: s["version"]
        )
        if state["outcome"] is not None:
            return state
        mover = players[state["to_move"]]
        mover.move(rng.choice(state["legal"])["move"], state["version"])
        version = state["version"]
        for p in players.values():
            p.wait_state(lambda s, v=version: s["version"] > v)
