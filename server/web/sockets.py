"""``/ws``: the WebSocket upgrade's guards (origin, the address's opens and sockets) and the
socket's life, handed to ``server/live/connection.py`` once admitted; ``/ws`` without an
upgrade is answered 426."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.requests import Request
from starlette.responses import Response
from starlette.status import WS_1008_POLICY_VIOLATION
from starlette.websockets import WebSocket

from server.live import connection
from server.live.addrcap import AddressCap
from server.live.arrivals import REFUSAL_PAUSE_S
from server.live.node import Node
from server.ops import metrics
from server.ops.config import Settings
from server.web import players as identity
from server.web.httpguard import problem as _problem


def _node(ws: WebSocket) -> Node:
    node: Node = ws.app.state.node
    return node


def _settings(ws: WebSocket) -> Settings:
    settings: Settings = ws.app.state.settings
    return settings


def origin_allowed(ws: WebSocket) -> bool:
    """Browsers send Origin on WebSocket upgrades; other clients may not (and
    are let in). Allowed: the configured origins (``NYUMBA_ALLOWED_ORIGINS``),
    or else the page's own (Origin's host is the Host the request was sent to)."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    allowed = _settings(ws).allowed_origins
    if allowed:
        return origin in allowed
    return origin.split("://", 1)[-1] == ws.headers.get("host", "")


async def refuse_upgrade(ws: WebSocket, code: str, message: str) -> None:
    """Refuse the upgrade with HTTP 403 and a problem document (or, on a server without
    the denial-response extension, a bare 403)."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        nosniff = {"x-content-type-options": "nosniff"}  # no middleware sees a denial
        await ws.send_denial_response(_problem(403, code, message, headers=nosniff))
    else:
        await ws.close(code=WS_1008_POLICY_VIOLATION)


async def socket_over_http(request: Request) -> Response:
    """``/ws`` asked for without an upgrade (a browser's address bar, a crawler)."""
    return _problem(
        426,
        "upgrade-required",
        "/ws is a WebSocket: open it with an upgrade (server/PROTOCOL.md).",
        headers={"upgrade": "websocket"},
    )


async def socket(ws: WebSocket) -> None:
    if not origin_allowed(ws):
        # Before accept: the upgrade is refused with HTTP 403.
        await refuse_upgrade(ws, "cross-site", "WebSockets are opened from nyumba's own pages.")
        return
    address = ws.client.host if ws.client else "unknown"
    opens = _node(ws).arrivals.opens
    if not await opens.spend(address):
        # Over the address's opens this minute: 429, never accepted, after a pause
        # (server/live/arrivals.py says why).
        await asyncio.sleep(REFUSAL_PAUSE_S)
        refusal = f"At most {opens.limit} new connections a minute from one address, please."
        retry = {"retry-after": str(opens.retry_after_s())}
        with contextlib.suppress(OSError):  # the client did not wait for the answer
            await ws.send_denial_response(_problem(429, "rate-limited", refusal, headers=retry))
        return
    extensions = ws.scope.get("extensions", {})
    write_now = extensions.get("nyumba.write_text")
    conn = connection.Conn(ws.send_text, lambda code, reason: ws.close(code, reason), write_now)
    conn.write_many = extensions.get("nyumba.write_texts")
    conn.address = address
    conn.session = identity.session_of(ws)
    cap: AddressCap = ws.app.state.addrcap
    if not await cap.admit(address, conn.id):
        # Over the address's socket cap: 403, never accepted.
        limit = _settings(ws).sockets_per_address
        await refuse_upgrade(ws, "too-many-sockets", f"At most {limit} WebSockets an address.")
        return
    metrics.SOCKETS.inc()
    try:
        await connection.serve(ws, conn, _node(ws))
    finally:
        metrics.SOCKETS.dec()
        await cap.release(address, conn.id)
