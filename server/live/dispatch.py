"""A message's first steps on a node: decoded once, handed to its piece, its failure answered.

``Node.handle`` calls ``handle`` for every frame a connection reads (``connection.serve``). The
lobby's messages go to ``server/live/lobby.py``, the arenas' to ``server/live/arena.py``, the
ones with a way of their own to ``server/live/handlers.py`` (``HANDLERS``), and every other
intent to ``Node.intent`` (judged and stored). A refusal becomes an ``error`` naming its code;
a store outage ``internal`` with a sentence; a bug ``internal``, and the connection stays.
Cut out of ``node.py`` along that seam: the node composes, this module routes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import Any, Protocol

import msgspec
from redis.exceptions import RedisError

from server.live.arena import Arenas
from server.live.connection import Budget, Conn
from server.live.handlers import HANDLERS, NodeParts
from server.ops import health, metrics
from server.rooms import arena, seeks
from server.rooms import protocol as P
from server.rooms.room import Refused

log = logging.getLogger("nyumba.node")


class Routed(NodeParts, Protocol):
    """What routing a message uses of the node (``server/live/node.py``'s ``Node``)."""

    budget: Budget
    arenas: Arenas

    def intent(self, conn: Conn, msg: Any) -> Awaitable[None]: ...


async def handle(node: Routed, conn: Conn, data: bytes | str) -> bool:
    """Answer one message. False: the connection must be closed (abuse)."""
    try:
        msg = P.decode(data)
    except msgspec.ValidationError as exc:
        if node.budget.over(conn):
            return False
        conn.send_msg(P.error("bad-message", f"The message does not match the protocol: {exc}."))
        return True
    except msgspec.DecodeError:
        if node.budget.over(conn):
            return False
        conn.send_msg(P.error("bad-json"))
        return True
    if node.budget.over(conn, isinstance(msg, P.Ping)):
        return False
    intent_id = getattr(msg, "id", None)
    started, result = time.perf_counter(), "ok"
    try:
        handler = HANDLERS.get(type(msg))
        if isinstance(msg, seeks.LOBBY):
            await node.lobby.handle(conn, msg)
        elif isinstance(msg, arena.ARENA):
            await node.arenas.handle(conn, msg)
        elif handler is None:  # an intent that changes the room (answers sent in one write)
            await conn.holding(node.intent(conn, msg), not node.settings.ack_replicas)
        else:
            await handler(node, conn, msg)
    except Refused as r:
        result = r.code
        conn.send_msg(P.error(r.code, r.message, intent_id, r.retry_after_ms))
    except RedisError as exc:  # the store is unreachable: nothing was acknowledged
        result = "store-down"
        health.STORE.failed(exc)  # logged once per outage
        conn.send_msg(P.error("internal", "The store is unreachable; try again.", intent_id))
    except Exception:  # a bug: say so, keep the connection
        result = "internal"
        log.exception("message %r failed", msg)
        conn.send_msg(P.error("internal", id=intent_id))
    metrics.intent(str(type(msg).__struct_config__.tag), result, started)
    return True
