"""Arena players for the arenas' tests across real nodes (tests/server/live/test_arena_nodes.py):
asyncio bots, each an identified player (``POST /api/me``'s cookie) on one socket that joins the
arena, plays each game it is paired into — random legal moves, a resignation now and then once
both sides have made two moves, berserk before its first move now and then — and asks for the
next game at each game's end, as the room page does (``server/PROTOCOL.md``, "Arenas"). A bot
whose node dies opens a socket on another node, joins its game again with its seat token and
goes on. Each bot keeps what it saw: its pairings and each game's end as its socket heard it."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import connect


@dataclass
class Game:
    room: str
    side: int
    token: str
    paired_at: float  # time.time() when ``arena-paired`` came
    ended_at: float | None = None
    outcome: dict | None = None
    berserked: bool = False


@dataclass
class Bot:
    """One player: ``cookie`` (its session), ``urls`` (the nodes' bases; it uses the first that
    answers, starting at ``home``)."""

    player: str
    cookie: str
    urls: list[str]
    home: int
    rng: random.Random
    delay: float = 0.0  # seconds before each move (a slow player's games outlast the arena)
    berserk_odds: float = 0.0
    resign_odds: float = 0.3
    games: list[Game] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    reconnects: int = 0
    closes: list[str] = field(default_factory=list)
    dead: set[int] = field(default_factory=set)  # nodes known down

    async def run(self, arena: str, until: float) -> None:
        """Play in ``arena`` until ``until`` (time.time()) and the last game is over."""
        while True:
            try:
                await self._session(arena, until)
                return
            except Exception as exc:  # the node went (refused, reset, closed): another one
                if not isinstance(exc, OSError | asyncio.TimeoutError) and (
                    "ConnectionClosed" not in type(exc).__name__
                ):
                    raise
                self.closes.append(repr(exc))
                self.reconnects += 1
                if isinstance(exc, OSError | asyncio.TimeoutError):
                    self.dead.add(self.home)  # (a closed socket's node may still be up)
                alive = [i for i in range(len(self.urls)) if i not in self.dead]
                assert alive and len(self.closes) < 20, f"{self.player}: {self.closes}"
                self.home = (
                    alive[(alive.index(self.home) + 1) % len(alive)]
                    if self.home in alive
                    else alive[0]
                )
                await asyncio.sleep(0.2)

    async def _session(self, arena: str, until: float) -> None:
        url = self.urls[self.home].replace("http://", "ws://") + "/ws"
        headers = {"cookie": f"nyumba_player={self.cookie}"}
        async with connect(url, additional_headers=headers, open_timeout=10) as ws:
            current = self.games[-1] if self.games and self.games[-1].ended_at is None else None
            if current is not None:  # back on another node: the game goes on
                await ws.send(
                    json.dumps({"t": "join", "room": current.room, "token": current.token})
                )
            else:
                await ws.send(json.dumps({"t": "arena-join", "arena": arena}))
            asked = time.monotonic()
            moved: dict[int, int] = {}  # version -> side that made it (this game's)
            while True:
                if current is None and time.time() > until:
                    return  # the arena's end: no game, none to come
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    if current is None and time.monotonic() - asked > 3:
                        # A pause for a missed first move (a dead node's game): join again.
                        await ws.send(json.dumps({"t": "arena-join", "arena": arena}))
                        asked = time.monotonic()
                    continue
                msg = json.loads(raw)
                t = msg.get("t")
                if t == "arena-paired":
                    assert current is None, f"{self.player} paired while in {current}"
                    current = Game(msg["room"], msg["side"], msg["token"], time.time())
                    self.games.append(current)
                    moved = {}
                    await ws.send(
                        json.dumps({"t": "join", "room": current.room, "token": current.token})
                    )
                elif t == "error":
                    self.errors.append(msg)
                elif t == "state" and current is not None and msg["room"] == current.room:
                    if msg["last"] is not None:
                        moved[msg["version"]] = msg["last"]["side"]
                    if msg["outcome"] is not None:
                        current.ended_at, current.outcome = time.time(), msg["outcome"]
                        current = None
                        await ws.send(json.dumps({"t": "arena-join", "arena": arena}))
                        asked = time.monotonic()
                        continue
                    await self._turn(ws, msg, current, moved)

    async def _turn(self, ws: Any, state: dict, game: Game, moved: dict[int, int]) -> None:
        if state["to_move"] != game.side:
            return
        mine = sum(1 for s in moved.values() if s == game.side)
        if mine == 0 and not game.berserked and state.get("berserk") is not None:
            game.berserked = True
            if self.rng.random() < self.berserk_odds:
                await ws.send(json.dumps({"t": "berserk", "room": game.room}))
        if self.delay:
            await asyncio.sleep(self.delay)
        theirs = len(moved) - mine
        if mine >= 2 and theirs >= 2 and self.rng.random() < self.resign_odds:
            await ws.send(json.dumps({"t": "resign", "room": game.room}))
            return
        move = self.rng.choice(state["legal"])["move"]
        await ws.send(
            json.dumps(
                {
                    "t": "move",
                    "room": game.room,
                    "version": state["version"],
                    "move": move,
                    "id": f"{game.room[:6]}-{state['version']}",
                }
            )
        )


def new_player(base: str, name: str) -> tuple[str, str]:
    """A player with a name: (id, session cookie)."""
    r = httpx.post(base + "/api/me", timeout=30)
    assert r.status_code == 201, r.text
    player, session = r.json()["player"], r.cookies["nyumba_player"]
    cookie = {"cookie": f"nyumba_player={session}"}
    assert (
        httpx.patch(base + "/api/me", json={"name": name}, headers=cookie, timeout=30).status_code
        == 200
    )
    return player, session


def wait_for(pred, timeout: float, what: str, every: float = 0.25) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = pred()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(every)
