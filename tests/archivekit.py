"""Players and finished games on real servers, for the archive's tests and its bench (imported
by name: ``from archivekit import Player, rated_game``)."""

from __future__ import annotations

import re
import time

import httpx
import msgspec
from wsclient import Client

from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R


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


def seated_as(node, player: Player) -> tuple[str | None, str | None]:
    """The player linked to a seat taken with ``player``'s cookie on ``node``: by creating a
    room over HTTP, and by joining one over the WebSocket."""
    r = player.request("POST", node.url + "/api/rooms", json={"game": "kalah", "mode": "friend"})
    assert r.status_code == 201, r.text
    room = r.json()
    creator = Client(node.ws_url)  # no cookie: the seat keeps whom the HTTP request linked
    creator.join(room["room"], room["token"])
    made = creator.state["seats"][creator.sides[0]]["player"]
    friend = Client(node.ws_url, headers=player.cookie)
    friend.join(room["room"])
    joined = friend.state["seats"][friend.sides[0]]["player"]
    creator.close()
    friend.close()
    return made, joined


def refused_within(node, player: Player, seconds: float) -> tuple[float, tuple]:
    """How long after now ``node`` stopped linking seats to ``player`` (HTTP and WebSocket
    both), tried until ``seconds`` have passed; and what it linked last."""
    start = time.monotonic()
    while True:
        seen = seated_as(node, player)
        waited = time.monotonic() - start
        if seen == (None, None) or waited > seconds:
            return waited, seen


# A rated friend room's request (a rated game needs a clock: server/rooms/ratedness.py).
RATED_ROOM = {"game": "kalah", "mode": "friend", "rated": True, "clock": {"initial_ms": 600_000}}


def rated_game(south_node, north_node, south: Player, north: Player, winner: int = 0) -> dict:
    """A rated friend game: South creates it on ``south_node``, North takes the other seat on
    ``north_node``, South's move ``c`` and then ``opening``, then the loser resigns. Returns
    South's final state."""
    r = south.request("POST", south_node.url + "/api/rooms", json=RATED_ROOM)
    assert r.status_code == 201, r.text
    room = r.json()
    a = Client(south_node.ws_url, headers=south.cookie)
    a.join(room["room"], room["token"])
    b = Client(north_node.ws_url, headers=north.cookie)
    b.join(room["room"])
    a.move("c", id="m1")
    a.wait_state(lambda s: s["version"] >= 1)
    opening({0: a, 1: b}, made=(1, 0))  # a result needs two moves by each side (fair play)
    loser = b if winner == 0 else a
    loser.send(t="resign", room=room["room"], id="r1")
    final = a.wait_state(lambda s: s["outcome"] is not None)
    a.close()
    b.close()
    return final


def local_game(node, player: Player) -> str:
    """A Kalah game (3 seeds) ``player`` plays alone on one device to its end (both seats
    theirs), each side playing its first legal move; its archive id, once archived."""
    r = player.request(
        "POST",
        node.url + "/api/rooms",
        json={"game": "kalah", "mode": "local", "options": {"seeds": 3}},
    )
    assert r.status_code == 201, r.text
    both = Client(node.ws_url, headers=player.cookie)
    both.join(r.json()["room"], r.json()["token"])
    while both.state["outcome"] is None:
        version = both.state["version"]
        both.move(both.state["legal"][0]["move"])
        both.wait_state(lambda s, v=version: s["version"] > v)
    game_id = both.state["archive"]
    both.close()
    wait_archived(node.url, game_id)
    return game_id


def opening(players: dict[int, Client], made: tuple[int, int] = (0, 0), least: int = 2) -> dict:
    """Both sides play their first legal move until each has made ``least`` moves of its own
    (two: the least for a game to have a result, server/rooms/fairplay.py), ``made`` already
    made; South's state after them."""
    made_now = list(made)
    version = max(p.wait_state(lambda s: True)["version"] for p in players.values())
    while min(made_now) < least:
        state = players[0].wait_state(lambda s, v=version: s["version"] >= v)
        if state["outcome"] is not None:
            break
        mover = players[state["to_move"]]
        mover.wait_state(lambda s, v=version: s["version"] >= v)
        mover.move(state["legal"][0]["move"], state["version"], id=f"opening-{version}")
        made_now[state["to_move"]] += 1
        version = state["version"] + 1
    for p in players.values():
        p.wait_state(lambda s, v=version: s["version"] >= v)
    return players[0].state


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


def opened(room: R.Room) -> R.Room:
    """``room`` after each side's first two legal moves: the least for a result (fair play)."""
    game = R.game_of(room)
    state, history = game.start(), []
    while min(sum(1 for p in history if p.side == side) for side in (0, 1)) < 2:
        side = game.to_move(state)
        done = game.apply(state, game.parse(state, game.choices(state)[0].move))
        history.append(R.Played(done.notation, side))
        state = done.after
    return msgspec.structs.replace(
        room, history=history, state=R.encode_state(state), version=len(history)
    )


def won_by_south(room_id: str, south: str, north: str, at: int) -> R.Finished:
    """A rated friend game between players ``south`` and ``north`` that South won at ``at``
    (North resigned), as the judge hands it to the archive (``games.write`` takes it)."""
    room, _, _ = R.create(room_id, "kalah", {}, "friend", "south", "beginner", at)
    seats = [R.SeatRec("person", f"t{i}", None, at, None, p) for i, p in enumerate([south, north])]
    room = opened(msgspec.structs.replace(room, seats=seats, rated=True, ratedness="rated"))
    ctx = R.Context(sides=[1], who="k", now_ms=at + 60_000)
    return J.judge(room, P.Resign(room=room_id, id="r"), ctx).room.waiting[0]
