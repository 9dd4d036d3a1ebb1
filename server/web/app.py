"""The Starlette application: HTTP routes, the WebSocket, security headers.

HTTP
    GET  /                         the start page (client/index.html)
    GET  /r/{room}                 a room's page (client/room.html)
    GET  /static/...               the client's files (also /static/v/<version>/..., cached
                                   for a year: server/web/static.py)
    GET  /healthz                  200 when the store answers, else 503 (with version)
    GET  /livez, /readyz           the process answers; the store answers and not draining
    GET  /metrics                  Prometheus metrics (server/ops/metrics.py)
    GET  /api/games                profiles and their options
    POST /api/rooms                create a room → {room, url, token, sides}
    GET  /api/rooms/{room}/record  the room's game record (engine/RECORDS.md), as a download
    GET  /api/rooms/{room}/history the room's plies with sides and intent ids
    POST /api/replay               a record → every position of it, for a replay view
    POST /api/reports              what only the page sees, as counts (server/web/reports.py)
    POST /api/analysis             a record → its analysis, or how far it is (server/computer/analysis.py)
    GET|DELETE /api/analysis/{key} how far an analysis is; cancel it
    GET  /g/{id}, /p/{id}, ...     a finished game's page, a player's page, leaderboards, the
                                   privacy page, and their API (server/web/archive.py)
    /api/me, /api/passkeys/...     the player's identity and passkeys (server/web/players.py)
    GET  /api/protocol.json        the WebSocket protocol's JSON Schema
    GET  /api/openapi.json         this HTTP API as OpenAPI 3.1 (server/web/openapi.py)
WebSocket
    /ws                            see PROTOCOL.md (over plain HTTP: 426 upgrade-required)

Every HTTP error is a problem document ``{code, message}`` (``server/web/httpguard.py``),
a refused WebSocket upgrade too.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import secrets
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket

import engine
from server.archive.db import Database
from server.computer.analysis import Analyses
from server.computer.replays import Busy, Offload, record_job, replay_view_job
from server.live.addrcap import AddressCap
from server.live.identity import Identities
from server.live.node import Node
from server.ops import dburl, metrics
from server.ops import health as H
from server.ops.config import Settings
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms import stored, view
from server.store.layouts import Layouts
from server.store.store import Store
from server.web import archive as archive_pages
from server.web import httpguard, quota, reports, static
from server.web import players as identity
from server.web.analysis import routes as analysis_routes
from server.web.api import Health, RoomCreated, create_request
from server.web.arenas import routes as arena_routes
from server.web.httpguard import problem as _problem
from server.web.lobby import routes as lobby_routes
from server.web.openapi import document as openapi
from server.web.sockets import socket, socket_over_http

log = logging.getLogger("nyumba.app")

MAX_RECORD = 64 * 1024  # bytes of an uploaded record: the proxy's client_max_body_size
MAX_ROOM_REQUEST = 64 * 1024  # bytes of a room request (a few hundred in practice)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """Adds the security headers to every HTTP response, and ``no-store`` to every
    answer that has no cache policy of its own (the client's files and pages have:
    server/web/static.py)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *SECURITY_HEADERS]
                if not any(name == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _json(body: Any, status: int = 200) -> Response:
    """A body encoded from its declaration (``server/web/api.py``)."""
    return Response(msgspec.json.encode(body), status, media_type="application/json")


def _busy() -> Response:
    return _problem(
        503,
        "busy",
        "The server is busy replaying games; try again in a moment.",
        headers={"retry-after": str(Busy.retry_after_s)},
    )


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _node(request: Request | WebSocket) -> Node:
    node: Node = request.app.state.node
    return node


def _settings(request: Request | WebSocket) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def healthz(request: Request) -> Response:
    node = _node(request)
    why = await H.store_answers(node.store.ping)  # a deadline; outages logged once (health.py)
    if why is not None:
        return _problem(503, "store-down", why)
    # worker and pid: which process answered (server/run/workers.py; tests kill one)
    worker = _settings(request).worker
    return _json(Health(ok=True, node=node.node_id, worker=worker, pid=os.getpid()))


async def games(request: Request) -> Response:
    return _json(list(engine.profiles()))


async def protocol_schema(request: Request) -> Response:
    return JSONResponse(P.schema())


async def openapi_document(request: Request) -> Response:
    return JSONResponse(openapi())


async def create_room(request: Request) -> Response:
    if httpguard.cross_site(request, _settings(request).allowed_origins):
        return _problem(403, "cross-site", "Rooms are created from nyumba's own pages.")
    body = await httpguard.read_body(request, MAX_ROOM_REQUEST)
    try:
        spec = create_request(body)
    except msgspec.ValidationError as exc:
        return _problem(400, "bad-message", f"The room request is not valid: {exc}.")
    except (msgspec.DecodeError, RecursionError):
        return _problem(400, "bad-json", "The room request is not valid JSON.")
    limit = _settings(request).rooms_per_minute  # counted in the store, for every node
    refused = await quota.over(
        request, "rooms", limit, f"At most {limit} new rooms a minute, please."
    )
    if refused is not None:
        return refused
    room_id = secrets.token_urlsafe(12)  # 96 random bits
    player = None  # the creator's seat is linked to their player (server/web/players.py)
    identities = _node(request).identities
    if identities is not None:
        player = await identities.player(identity.session_of(request))
    try:
        room, token, sides = R.create(
            room_id,
            spec.game,
            spec.options,
            spec.mode,
            spec.side,
            spec.level,
            _node(request).now(),
            player=player,
            rated=spec.rated,
            clock=spec.clock,
            abort_ms=_settings(request).abort_ms,
        )
    except engine.BadOptions as exc:
        return _problem(400, "bad-game", str(exc))
    except R.Refused as r:
        return _problem(400, r.code, r.message)
    if not await _node(request).create_room(room):
        return _problem(409, "busy", "That room id is taken; try again.")
    created = RoomCreated(room=room.id, url=f"/r/{room.id}", token=token, sides=sides)
    return _json(created, 201)


def _offload(request: Request) -> Offload:
    offload: Offload = request.app.state.offload
    return offload


async def room_record(request: Request) -> Response:
    """The current game's record, as a download (made in a worker process)."""
    data, _ = await _node(request).store.load(request.path_params["room"])
    if data is None:
        return _problem(404, "no-room", P.ERRORS["no-room"])
    try:
        body, name = await _offload(request).run(_address(request), record_job, data)
    except Busy:
        return _busy()
    return Response(
        body,
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


async def room_history(request: Request) -> Response:
    data, _ = await _node(request).store.load(request.path_params["room"])
    if data is None:
        return _problem(404, "no-room", P.ERRORS["no-room"])
    return _json(view.history(stored.decode_room(data)))


async def replay(request: Request) -> Response:
    """A record (any game, either format) replayed for a client to step through."""
    if httpguard.cross_site(request, _settings(request).allowed_origins):
        return _problem(403, "cross-site", "Replays are asked for from nyumba's own pages.")
    body = await httpguard.read_body(request, MAX_RECORD)
    try:
        ok, answer = await _offload(request).run(
            _address(request), replay_view_job, body, cache_key=body, size=lambda a: len(a[1])
        )
    except Busy:
        return _busy()
    if not ok:
        return _problem(400, "bad-record", answer.decode())
    return Response(answer, media_type="application/json")


async def store_down(request: Request, exc: Exception) -> Response:
    H.STORE.failed(exc)  # logged once per outage
    return _problem(503, "store-down", f"The store is unreachable; try again ({exc}).")


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    store = Store(
        settings.redis_url or "",
        settings.key_prefix,
        connect_timeout=settings.store_connect_timeout_ms / 1000,
        command_timeout=settings.store_timeout_ms / 1000,
    )
    await store.start()  # a Cluster is found out here
    archive: Database = app.state.archive
    await archive.start()  # migrated, or said why not (play goes on; writes wait)
    app.state.identities.store = store  # sessions revoked on one node, refused on all
    node = Node(settings, store, archive, app.state.identities)
    layouts = Layouts(store, node.node_id)
    with contextlib.suppress(RedisError):  # (unread, it writes the previous layout: safe)
        await layouts.renew()  # a flag naming a layout this release cannot write stops it here
    await node.start()
    app.state.node = node
    H.STORE.watch(store.ping)  # notices the end of an outage
    offload = app.state.offload = node.offload = Offload(settings.replay_workers)
    offload.warm()
    cap = app.state.addrcap = AddressCap(store, settings.sockets_per_address)
    analyses = app.state.analyses = Analyses(
        store.redis,
        settings.key_prefix,
        node.computer.analyse,
        keep_s=settings.room_ttl_ms // 1000,
        archive=archive_pages.AnalysisShelf(archive),
    )
    renewing = asyncio.create_task(cap.renew_forever(), name="addrcap")
    following = asyncio.create_task(layouts.follow(), name="layout")
    probing = asyncio.create_task(
        metrics.probe_pubsub(lambda data: store.publish_to_node(node.node_id, data)),
        name="pubsub-probe",
    )
    try:
        yield
    finally:
        renewing.cancel()
        probing.cancel()
        following.cancel()
        with contextlib.suppress(RedisError, OSError):
            await layouts.leave()
        analyses.close()
        offload.close()
        H.STORE.close()
        await node.stop()
        await store.close()
        await archive.close()


def create_app(settings: Settings) -> Starlette:
    client = static.Client(settings.client_dir)
    files = static.Files(client)
    archive = Database(settings.database_url or dburl.default_url(settings.data_dir))
    identities = Identities(archive)
    routes = [
        Route("/", static.page(client, "index.html")),
        Route("/r/{room}", static.page(client, "room.html")),
        Route("/static/rules.html", static.page(client, "rules.html")),
        Route("/healthz", healthz),
        Route("/livez", H.livez),
        Route("/readyz", H.readyz),
        Route("/metrics", metrics.endpoint),
        Route("/api/games", games),
        Route("/api/protocol.json", protocol_schema),
        Route("/api/openapi.json", openapi_document),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{room}/record", room_record),
        Route("/api/rooms/{room}/history", room_history),
        Route("/api/replay", replay, methods=["POST"]),
        Route("/api/reports", reports.receive, methods=["POST"]),
        *analysis_routes(lambda: app.state.analyses, settings.allowed_origins),
        *archive_pages.routes(lambda: archive, functools.partial(static.page, client)),
        *identity.routes(archive, identities, settings),
        *lobby_routes(lambda: app.state.node.lobby, settings.quick_pools),
        *arena_routes(
            lambda: app.state.node, lambda: archive, functools.partial(static.page, client)
        ),
        WebSocketRoute("/ws", socket),
        Route("/ws", socket_over_http),
        Mount(static.PREFIX + "/{version}", files),
        Mount("/static", files),
    ]
    handlers = {RedisError: store_down, HTTPException: httpguard.http_error}
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=handlers)
    app.state.settings = settings
    app.state.archive, app.state.identities = archive, identities
    app.state.health = H.Health()  # the CLI turns readiness off on SIGTERM
    app.state.report_rate = reports.Rate(settings.reports_per_minute)  # in memory only
    app.add_middleware(httpguard.Problems)  # inside SecurityHeaders: added first
    # Answers of 500 bytes and more (the client's files, the analysis, the schemas) go
    # gzipped, at level 6: 208 KB of client in 69 KB (level 9: 69 KB too; brotli 11: 59 KB,
    # tests/bench/weight.py). Secrets (a seat token, a cancel token) travel only in smaller
    # answers, which are sent as they are: nothing for a compression oracle (BREACH).
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6)
    app.add_middleware(SecurityHeaders)
    return app
