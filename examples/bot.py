"""A bot that plays one whole game against nyumba's computer, from server/PROTOCOL.md alone.

    python examples/bot.py http://127.0.0.1:8000 [--game kalah] [--level beginner]

It needs only the ``websockets`` package (and the standard library). It creates a computer
room over HTTP, joins it over the WebSocket, and on every ``state`` where it is to move sends
one ``move`` (the first legal one) with a fresh id, waiting for that id's answer before the
next; it resends an unanswered intent with the same id after a reconnect, so nothing is
played twice. It prints the result and exits 0 when the game is over.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

import websockets


class Refused(Exception):
    """The server answered an HTTP error: its problem document's code and sentence."""


def create_room(base: str, game: str, level: str) -> dict:
    """POST /api/rooms -> {room, url, token, sides}; Refused with the server's
    problem document ({code, message}, every HTTP error) when it says no."""
    body = json.dumps({"game": game, "mode": "computer", "side": "south", "level": level})
    request = urllib.request.Request(
        base + "/api/rooms",
        data=body.encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        with error:
            try:
                problem = json.load(error)
            except ValueError:
                problem = {"code": str(error.code), "message": error.reason}
        raise Refused(f"{error.code} {problem['code']}: {problem['message']}") from None


class Bot:
    def __init__(self, base: str, room: dict):
        self.room = room["room"]
        # The room in the URL: a proxy may route a room's sockets to one node (PROTOCOL.md)
        self.ws_url = base.replace("http", "ws", 1) + "/ws?room=" + urllib.parse.quote(self.room)
        self.token = room["token"]
        self.sides = room["sides"]
        self.ids = (f"bot-{n}" for n in itertools.count(1))
        self.pending: dict | None = None  # the intent sent and not yet answered
        self.moved_at = -1  # the version the last move was made at (wait for a newer state)

    async def play(self) -> dict:
        """Play until the game is over (reconnecting if the link drops); the last state."""
        while True:
            try:
                async with websockets.connect(self.ws_url) as ws:
                    return await self._session(ws)
            except (OSError, websockets.ConnectionClosed) as exc:
                print(f"link lost ({exc}); reconnecting", file=sys.stderr)
                await asyncio.sleep(1)

    async def _session(self, ws) -> dict:
        await ws.send(json.dumps({"t": "join", "room": self.room, "token": self.token}))
        if self.pending is not None:  # answered or not, the same id gets the same answer
            await ws.send(json.dumps(self.pending))
        state = None
        async for frame in ws:
            msg = json.loads(frame)
            if msg["t"] == "welcome":
                self.sides = msg["sides"]
            elif msg["t"] == "state" and (state is None or msg["version"] >= state["version"]):
                state = msg
            elif msg["t"] in ("ack", "error") and self.pending is not None:
                if msg.get("id") == self.pending["id"]:
                    self.pending = None  # answered (an error such as stale: wait for a state)
            if state is None:
                continue
            if state["outcome"] is not None:
                return state
            mine = state["to_move"] in self.sides and state["version"] != self.moved_at
            if self.pending is None and mine:
                # One intent at a time, each answered before the next: far below the rate limit.
                self.pending = {
                    "t": "move",
                    "room": self.room,
                    "version": state["version"],
                    "move": state["legal"][0]["move"],
                    "id": next(self.ids),
                }
                self.moved_at = state["version"]
                await ws.send(json.dumps(self.pending))
        raise websockets.ConnectionClosed(None, None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--level", default="beginner")
    args = parser.parse_args()
    base = args.url.rstrip("/")
    try:
        room = create_room(base, args.game, args.level)
    except Refused as refused:
        print(f"the server refused the room: {refused}", file=sys.stderr)
        return 2
    final = asyncio.run(Bot(base, room).play())
    outcome = final["outcome"]
    who = {0: "South (the bot)", 1: "North (the computer)", None: "nobody"}[outcome["winner"]]
    print(f"game over after {final['plies']} moves: {who} won ({outcome['reason']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
