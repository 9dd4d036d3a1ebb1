"""A bot that plays in one of nyumba's arenas until it ends, from server/PROTOCOL.md alone.

    python examples/arena_bot.py http://127.0.0.1:8000 [ARENA] [--name Bot] [--berserk]

It needs only the ``websockets`` package (and the standard library). An arena pairs only
players, so it first gets one: ``POST /api/me`` answers with the player and sets its cookie,
which the bot sends with the WebSocket upgrade (and with ``PATCH /api/me`` to take ``--name``).
Without an ``ARENA`` id it takes the first running arena of ``GET /api/arenas`` (else the
first upcoming one). On the socket it sends ``arena`` (watch the arena: its view, then paced
updates) and ``arena-join`` (in the standings, waiting to be paired). On ``arena-paired`` it
joins the room with the seat token, on the same socket, and on every ``state`` where it is to
move sends a legal move (paced: well under the rate limit) with a fresh id and its measured
lag; with ``--berserk`` it first halves its clock for the extra point a win then earns, when
the arena allows it. When a game is over it says ``arena-join`` again, to be paired again, and
so on until the arena's view says ``finished``; then it prints its final row (from
``GET /api/arenas/{id}``: rank, points, games and the points of each) and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import websockets

PACE_S = 0.25  # at most 4 intents a second: the limit is 100 per 20 s a socket


class Refused(Exception):
    """The server answered an HTTP error: its problem document's code and sentence."""


def say(text: str) -> None:
    print(text, flush=True)


def http(
    base: str, method: str, path: str, body: dict | None = None, cookie: str = ""
) -> tuple[dict, str]:
    """One HTTP request -> (its JSON answer, ``{}`` for none; the cookie it sets, as
    ``name=value``, or ""); ``Refused`` with the server's problem document ({code, message},
    every HTTP error) when it says no."""
    headers = {"content-type": "application/json"}
    if cookie:
        headers["cookie"] = cookie
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            raw = answer.read()
            set_cookie = answer.headers.get("set-cookie", "").split(";", 1)[0]
            return (json.loads(raw) if raw else {}), set_cookie
    except urllib.error.HTTPError as error:
        with error:
            try:
                problem = json.load(error)
            except ValueError:
                problem = {"code": str(error.code), "message": error.reason}
        raise Refused(f"{error.code} {problem['code']}: {problem['message']}") from None


def become_player(base: str, name: str | None) -> tuple[str, str]:
    """POST /api/me: (the player's id, the cookie to send with requests and the socket)."""
    me, cookie = http(base, "POST", "/api/me")
    if name:
        http(base, "PATCH", "/api/me", {"name": name}, cookie)
    return me["player"], cookie


def pick_arena(base: str) -> str | None:
    """The first running arena, else the first upcoming one (GET /api/arenas)."""
    listing, _ = http(base, "GET", "/api/arenas")
    for spec in listing["running"] + listing["upcoming"]:
        return spec["id"]
    return None


def final_row(base: str, arena: str, player: str) -> str:
    """The player's line of the arena's final standings (GET /api/arenas/{id}, page by page)."""
    for page in itertools.count():
        answer, _ = http(base, "GET", f"/api/arenas/{urllib.parse.quote(arena)}?page={page}")
        if not answer["standings"]:
            return "final: not in the standings"
        for row in answer["standings"]:
            if row["player"] == player:
                return (
                    f"final: rank {row['rank']}, {row['points']} points in {row['games']} games "
                    f"({row['wins']} won, {row['draws']} drawn, {row['losses']} lost, "
                    f"{row['berserks']} berserk), sheet {' '.join(map(str, row['sheet'])) or '-'}"
                )
    raise AssertionError("unreachable")


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/ws"


class ArenaBot:
    def __init__(self, base: str, arena: str, cookie: str, berserk: bool, seed: int | None):
        self.base, self.arena, self.cookie, self.berserk = base, arena, cookie, berserk
        self.ids = (f"arena-bot-{n}" for n in itertools.count(1))
        self.rng = random.Random(seed)
        self.lag_ms = 0
        self.sent_ping = 0.0
        self.room: str | None = None  # the arena game this socket plays, while it plays it
        self.sides: list[int] = []
        self.latest: dict | None = None  # the newest state of that room
        # The state we last moved from: a state of its version or older that arrives after
        # the move (the opponent's seat coming online, say) must not make us move again.
        self.moved_from: dict | None = None
        self.waiting: str | None = None  # the move id sent and not yet answered
        self.berserked = False
        self.last_sent = 0.0
        self.games = 0
        self.joined = False  # arena-joined came: the player is in the standings

    async def send(self, ws, **msg) -> None:
        await ws.send(json.dumps(msg))

    async def play(self) -> int:
        """Play until the arena is finished: 0, or 1 when it was refused before playing."""
        headers = {"cookie": self.cookie}
        async with websockets.connect(ws_url(self.base), additional_headers=headers) as ws:
            self.sent_ping = time.monotonic()
            await self.send(ws, t="ping", n=1)
            await self.send(ws, t="arena", arena=self.arena, id=next(self.ids))
            await self.send(ws, t="arena-join", arena=self.arena, id=next(self.ids))
            async for raw in ws:
                msg = json.loads(raw)
                done = await self.on_message(ws, msg)
                if done is not None:
                    return done
                await self.maybe_move(ws)
        return 1

    async def on_message(self, ws, msg: dict) -> int | None:
        kind = msg["t"]
        if kind == "pong":
            self.lag_ms = int((time.monotonic() - self.sent_ping) * 500)
        elif kind == "arena":
            if msg["status"] == "finished":
                say(f"the arena is finished after {self.games} games")
                return 0
        elif kind == "arena-joined":
            self.joined = True
            say(f"joined arena {msg['arena']}" + (" (paused)" if msg["paused"] else ""))
        elif kind == "arena-paired":
            self.room, self.latest, self.waiting, self.berserked = msg["room"], None, None, False
            self.moved_from = None
            say(f"paired: room {self.room}, side {msg['side']}, against {msg.get('opponent')}")
            await self.send(ws, t="join", room=self.room, token=msg["token"])
        elif kind == "welcome":
            self.sides = msg["sides"]
            self.sent_ping = time.monotonic()
            await self.send(ws, t="ping", n=2)
        elif kind == "error":
            say(f"refused: {msg['code']}: {msg['message']}")
            if msg["code"] == "arena-over":  # it ends: no more pairings; watch it finish
                return None if self.joined else 1
            if self.room is None and msg["code"] in ("no-arena", "not-identified"):
                return 1
            if msg.get("id") == self.waiting:  # refused: the move was not played
                self.waiting = None
                if msg["code"] != "stale":  # (a stale one is followed by the current state)
                    self.latest, self.moved_from = self.moved_from, None
        elif kind == "ack" and msg["id"] == self.waiting:
            self.waiting = None
        elif kind == "state" and msg["room"] == self.room:
            newer = self.moved_from is None or msg["version"] > self.moved_from["version"]
            if newer and (self.latest is None or msg["version"] >= self.latest["version"]):
                self.latest = msg
            if msg["outcome"] is not None:
                self.games += 1
                say(f"over: {msg['outcome']} (adjudication {msg['adjudication']})")
                self.room, self.latest = None, None
                await self.send(ws, t="arena-join", arena=self.arena, id=next(self.ids))
        return None

    async def maybe_move(self, ws) -> None:
        state = self.latest
        if state is None or self.waiting is not None or state["to_move"] not in self.sides:
            return
        if not state["legal"]:
            return
        await asyncio.sleep(max(0.0, self.last_sent + PACE_S - time.monotonic()))
        self.last_sent = time.monotonic()
        self.waiting = next(self.ids)
        if self.berserk and not self.berserked and state.get("berserk") is not None:
            self.berserked = True  # before our first move: half our time, +1 for a win
            await self.send(ws, t="berserk", room=self.room, id=self.waiting)
            return
        move = self.rng.choice(state["legal"])["move"]
        frame = {"t": "move", "room": self.room, "version": state["version"], "move": move}
        await ws.send(json.dumps({**frame, "id": self.waiting, "lag": self.lag_ms}))
        self.latest, self.moved_from = None, state  # moved at this version: wait for a later one


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the server, e.g. http://127.0.0.1:8000")
    ap.add_argument("arena", nargs="?", help="the arena's id (default: the first running one)")
    ap.add_argument("--name", default=None, help="the player's name in the standings")
    ap.add_argument("--berserk", action="store_true", help="berserk every game (when allowed)")
    ap.add_argument("--seed", type=int, default=None, help="the random moves' seed")
    args = ap.parse_args()
    base = args.base.rstrip("/")
    try:
        player, cookie = become_player(base, args.name)
        arena = args.arena or pick_arena(base)
        if arena is None:
            say("no arena is running or upcoming")
            return 1
        bot = ArenaBot(base, arena, cookie, args.berserk, args.seed)
        code = asyncio.run(bot.play())
        if code == 0:
            say(final_row(base, arena, player))
        return code
    except Refused as refused:
        print(f"the server refused: {refused}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
