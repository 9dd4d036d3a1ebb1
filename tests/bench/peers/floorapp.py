"""The stack's floor, as apps for ``uvicorn`` (run by ``tests/bench/peers/floor.py``).

``bare``: uvicorn (uvloop, websockets-sansio, h11) and Starlette, as a nyumba node runs them; a
socket joins a room by name, and a move is one frame in and one ~150-byte frame out to each of
the room's two sockets. ``store``: the same, but a move is one script on nyumba's own
multiplexed store link (``HSET`` + ``PEXPIRE`` + ``PUBLISH``, the move's text) and the two
sockets get it from the room's pub/sub channel through nyumba's subscriber — one durable write
and one fan-out a move, as a node does, with no judging, no message but the move, no presence,
no acks. What nyumba does beyond that is its own cost.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from server.store.resp import Link
from server.store.subscriber import Subscriber

PAD = "x" * 100  # a moved message's size, about
STORE_URL = os.environ.get("FLOOR_STORE_URL", "")
rooms: dict[bytes, list[WebSocket]] = {}

if STORE_URL:
    link = Link(STORE_URL)
    subscriber = Subscriber(Link(STORE_URL))
    write = link.script(
        "redis.call('HSET', KEYS[1], 'data', ARGV[1]) redis.call('PEXPIRE', KEYS[1], 60000) "
        "redis.call('PUBLISH', KEYS[1], ARGV[1]) return 0"
    )

    def deliver(channel: bytes, data: bytes) -> None:
        text = data.decode()
        for socket in rooms.get(channel, ()):
            asyncio.ensure_future(socket.send_text(text))

    subscriber.deliver = deliver


async def endpoint(socket: WebSocket) -> None:
    await socket.accept()
    room = b""
    try:
        while True:
            msg: dict[str, Any] = json.loads(await socket.receive_text())
            if msg["t"] == "join":
                room = ("floor:" + msg["room"]).encode()
                if room not in rooms:
                    rooms[room] = []
                    if STORE_URL:
                        await subscriber.subscribe(room)
                rooms[room].append(socket)
                await socket.send_text(json.dumps({"t": "state", "version": 0}))
                continue
            out = json.dumps({"t": "moved", "version": msg["version"] + 1, "pad": PAD})
            if STORE_URL:
                await write([room], [out])
            else:
                for other in rooms[room]:
                    await other.send_text(out)
    except Exception:  # the socket closed
        pass
    finally:
        if socket in rooms.get(room, []):
            rooms[room].remove(socket)


app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
