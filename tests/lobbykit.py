"""A lobby player's steps, for the lobby's tests across real nodes (tests/server/live/test_lobby_*.py;
their nodes and store are tests/server/live/conftest.py's ``lobby_nodes``)."""

from __future__ import annotations

import random
import time

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


class Watching:
    """A lobby watcher's list as its ``lobby`` messages build it (``server/PROTOCOL.md``, "The
    lobby"): ``full`` replaces it, then each update adds ``seeks`` and removes ``gone``."""

    def __init__(self, client: Client, **filters) -> None:
        self.client, self.seeks, self.more, self.updates = client, {}, {}, 0
        client.send(t="lobby", **filters)
        self.take(client.expect("lobby"))
        assert self.full["full"] is True

    def take(self, message: dict) -> None:
        if message["full"]:
            self.full = message
            self.seeks.clear()
        else:
            self.updates += 1
        self.seeks.update({s["id"]: s for s in message["seeks"]})
        for gone in message["gone"]:
            del self.seeks[gone]  # a removal names only what the list holds
        self.more = message.get("more", {})

    def until(self, pred, timeout: float = 10.0) -> Watching:
        """Take updates until ``pred(self)`` holds."""
        deadline = time.monotonic() + timeout
        while not pred(self):
            self.take(self.client.expect("lobby", timeout=max(0.01, deadline - time.monotonic())))
        return self
