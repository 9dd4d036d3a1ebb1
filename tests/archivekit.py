"""Players and finished games on real servers, for the archive's tests and its bench (imported
by name: ``from archivekit import Player, rated_game``)."""

from __future__ import annotations

import re
import time

import httpx
from wsclient import Client


class Player:
    """An identified player: a browser's session cookie on ``base`` (POST /api/me)."""

    def __init__(self, base: str, name: str | None = None):
        self.base = base
        r = httpx.post(base + "/api/me", timeout=10)
        assert r.status_code == 201, r.text
        self.id = r.json()["player"]
        self.session = r.cookies["nyumba_player"]
        if name:
            assert self.request("PATCH", "/api/me", json={"name": name}).status_code == 200

    @property
    def cookie(self) -> dict[str, str]:
        return {"cookie": f"nyumba_player={self.session}"}

    def request(self, method: str, path: str, **kw) -> httpx.Response:
        """``path`` on this player's node (or a full URL), with the player's cookie."""
        url = path if "://" in path else self.base + path
        return httpx.request(method, url, headers=self.cookie, timeout=10, **kw)


# A rated friend room's request (a rated game needs a clock: server/rooms/ratedness.py).
RATED_ROOM = {"game": "kalah", "mode": "friend", "rated": True, "clock": {"initial_ms": 600_000}}


def rated_game(south_node, north_node, south: Player, north: Player, winner: int = 0) -> dict:
    """A rated friend game: South creates it on ``south_node``, North takes the other seat on
    ``north_node``, one move, then the loser resigns. Returns South's final state."""
    r = south.request("POST", south_node.url + "/api/rooms", json=RATED_ROOM)
    assert r.status_code == 201, r.text
    room = r.json()
    a = Client(south_node.ws_url, headers=south.cookie)
    a.join(room["room"], room["token"])
    b = Client(north_node.ws_url, headers=north.cookie)
    b.join(room["room"])
    a.move("c", id="m1")
    a.wait_state(lambda s: s["version"] >= 1)
    loser = b if winner == 0 else a
    loser.send(t="resign", room=room["room"], id="r1")
    final = a.wait_state(lambda s: s["outcome"] is not None)
    a.close()
    b.close()
    return final


def wait_archived(base: str, game_id: str, timeout: float = 20.0) -> dict:
    """The archived game once ``base`` serves it."""
    deadline = time.monotonic() + timeout
    while True:
        r = httpx.get(f"{base}/api/archive/{game_id}", timeout=5)
        if r.status_code == 200:
            return r.json()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{game_id} is not archived: {r.status_code} {r.text}")
        time.sleep(0.1)


def archived_counts(base: str) -> dict[str, float]:
    """This node's ``nyumba_archived_games_total`` by result."""
    text = httpx.get(base + "/metrics", timeout=5).text
    out: dict[str, float] = {}
    for m in re.finditer(r'^nyumba_archived_games_total\{result="(\w+)"\} (\S+)$', text, re.M):
        out[m[1]] = float(m[2])
    return out
