"""A bot that seeks a game in nyumba's lobby and plays it out, from server/PROTOCOL.md alone.

    python examples/lobby_bot.py http://127.0.0.1:8000 [--game oware] [--clock 300+3] [--name Bot]

It needs only the ``websockets`` package (and the standard library). It opens the WebSocket,
posts a ``seek`` (paired at once with anyone waiting in the same pool, else listed in the lobby
until someone takes it), and on ``paired`` joins the room with the seat token it was given, on
the same socket. Then, on every ``state`` where it is to move, it sends the first legal move
with a fresh id and its measured lag (half its last ping's round trip: the clock credits it
within bounds). It prints the result and exits 0 when the game is over — by the rules, on time
(``timeout``) or ``aborted``. Run two of them to watch a whole lobby game.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import time

import websockets


def say(text: str) -> None:
    print(text, flush=True)


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/ws"


async def play(base: str, game: str, clock: dict | None, name: str) -> int:
    ids = (f"{name}-{n}" for n in itertools.count(1))
    lag_ms = 0
    sides: list[int] = []  # the sides this socket holds (welcome)
    async with websockets.connect(ws_url(base)) as ws:
        sent_ping = time.monotonic()
        await ws.send(json.dumps({"t": "ping", "n": 1}))
        seek = {"t": "seek", "game": game, "clock": clock, "name": name, "id": next(ids)}
        await ws.send(json.dumps(seek))
        room = None
        waiting: str | None = None  # the move id sent and not yet answered
        latest: dict | None = None  # the newest state
        async for raw in ws:
            msg = json.loads(raw)
            kind = msg["t"]
            if kind == "pong":
                lag_ms = int((time.monotonic() - sent_ping) * 500)
            elif kind == "seeking":
                say(f"waiting in the lobby (seek {msg['seek']})")
            elif kind == "paired":
                room = msg["room"]
                say(f"paired: room {room}, side {msg['side']}, against {msg.get('opponent')}")
                await ws.send(json.dumps({"t": "join", "room": room, "token": msg["token"]}))
            elif kind == "welcome":
                sides[:] = msg["sides"]
                sent_ping = time.monotonic()
                await ws.send(json.dumps({"t": "ping", "n": 2}))
            elif kind == "error":
                say(f"refused: {msg['code']}: {msg['message']}")
                if room is None:
                    return 1
                waiting = None
            elif kind == "ack" and msg["id"] == waiting:
                waiting = None
            elif kind == "state" and (latest is None or msg["version"] >= latest["version"]):
                latest = msg
                if msg["outcome"] is not None:
                    say(f"over: {msg['outcome']} (adjudication {msg['adjudication']})")
                    return 0
            # Our turn, and no move of ours unanswered: the first legal move, with our lag.
            if latest and latest["to_move"] in sides and waiting is None and latest["legal"]:
                waiting = next(ids)
                move = latest["legal"][0]["move"]
                frame = {"t": "move", "room": room, "version": latest["version"], "move": move}
                await ws.send(json.dumps({**frame, "id": waiting, "lag": lag_ms}))
                latest = None  # moved at this version: wait for the next state
    return 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the server, e.g. http://127.0.0.1:8000")
    ap.add_argument("--game", default="oware")
    ap.add_argument("--clock", default="5+3", help="minutes+seconds, or 'none'")
    ap.add_argument("--name", default="Bot")
    args = ap.parse_args()
    clock = None
    if args.clock != "none":
        minutes, seconds = args.clock.split("+")
        clock = {"initial_ms": int(float(minutes) * 60000), "increment_ms": int(seconds) * 1000}
    return asyncio.run(play(args.base, args.game, clock, args.name))


if __name__ == "__main__":
    sys.exit(main())
