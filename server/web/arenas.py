"""Arenas over HTTP: the list, one arena's standings and games, creating one, and the pages.

    GET  /api/arenas        upcoming and running arenas (the store), the last finished
                            (the archive), each finished one with its podium
    POST /api/arenas        create one (an identified player with a passkey or enough rated
                            games; one upcoming or running arena per player): 201 the spec
    GET  /api/arenas/{id}   the arena, its status, standings (``?page=``, ``PAGE`` rows a
                            page), games in progress, finished games, podium: from the store
                            while it is live, from the archive once final
    GET  /arenas, /t/{id}   the pages (client/arenas.html, client/arena.html; the 404 page for
                            an id that names no arena)

The live arena is on the WebSocket (``arena``, ``arena-join``, ``arena-pause``:
``server/PROTOCOL.md``, "Arenas"). ``with_arenas`` adds the routes to the OpenAPI document.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import engine
from server.archive import arenas as archived
from server.archive import players as P
from server.archive.db import DOWN, Database
from server.archive.schema import game_seats, games
from server.ops import metrics
from server.rooms import arena as A
from server.rooms.clock import Control
from server.web import httpguard
from server.web.httpguard import problem
from server.web.players import session_of

# What the WebSocket's description in the OpenAPI document says of arenas.
WS_NOTE = (
    " Arenas on the same socket (server/PROTOCOL.md, 'Arenas'): `arena` to watch one (answered "
    "`arena`, then updates at most twice a second), `arena-join` (an identified player: answered "
    "`arena-joined`, then `arena-paired` with a room and its seat token; send it again after "
    "each game), `arena-pause`; in an arena game, `berserk` before your first move halves your "
    "time for a point more on a win, and a rematch offer is refused `not-allowed`."
)
ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
PAGE = 100  # standings rows a page
FINISHED = 20  # finished arenas listed
MAX_BODY = 4096
AHEAD_MS = 30 * 86_400_000  # an arena starts within 30 days


class CreateArena(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/arenas``: the game, its options, the clock, the start (``starts_ms``, store
    ms, or ``starts_in_ms`` from now), how long, rated or casual, berserk allowed."""

    game: str
    clock: Control
    duration_ms: Annotated[int, Meta(ge=1000, le=A.MAX_DURATION_MS)]
    name: Annotated[str, Meta(min_length=1, max_length=48)] | None = None
    options: dict[str, Any] = {}
    starts_ms: int | None = None
    starts_in_ms: Annotated[int, Meta(ge=0, le=AHEAD_MS)] | None = None
    rated: bool = True
    berserk: bool = False


class ArenaList(msgspec.Struct):
    """``GET /api/arenas``: upcoming and running (``ending`` too: its last games are played)
    arenas, by start; the last finished, newest first, with their podiums."""

    upcoming: list[A.ArenaSpec]
    running: list[A.ArenaSpec]
    finished: list[archived.FinalArena]


class ArenaPage(msgspec.Struct):
    """``GET /api/arenas/{id}``: ``standings`` one page of ``PAGE`` rows (``page``, from 0;
    ``players`` in all); ``games``: finished games, in the order they ended (live: as the store
    scored them — ``room``, ``players``, ``result`` per side, null for an aborted one,
    ``points``, ``berserk``, ``ended_ms``; final: as archived — ``id`` (``/g/{id}``), ``room``,
    ``players``, ``names``, ``winner``, ``reason``, ``adjudication``, ``berserk``, ``points``)."""

    arena: A.ArenaSpec
    status: A.Status
    page: int
    players: int
    standings: list[A.Row]
    playing: list[A.ArenaGame]
    games: list[Any]
    podium: list[A.Row]


def create_request(body: bytes) -> CreateArena:
    """The body of ``POST /api/arenas``: JSON's one kind of number, so whole milliseconds in
    either spelling (600000.0 too), as ``POST /api/rooms`` takes them."""
    raw = msgspec.json.decode(body)
    if isinstance(raw, dict):
        for key in ("duration_ms", "starts_ms", "starts_in_ms"):
            raw[key] = _whole(raw.get(key))
        if isinstance(raw.get("clock"), dict):
            raw["clock"] = {k: _whole(v) for k, v in raw["clock"].items()}
        raw = {k: v for k, v in raw.items() if v is not None or k == "name"}
    return msgspec.convert(raw, CreateArena)


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _json(body: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(body), status, media_type="application/json")


async def may_create(db: Database, player: str, games_needed: int) -> bool:
    """A player may create arenas: with a passkey, or ``games_needed`` rated archived games."""
    if games_needed <= 0 or await P.passkeys_of(db, player):
        return True
    async with db.read() as conn:
        query = (
            select(func.count())
            .select_from(game_seats.join(games, games.c.id == game_seats.c.game))
            .where(game_seats.c.player == player, games.c.rated.is_(True))
        )
        return int((await conn.execute(query)).scalar_one()) >= games_needed


def routes(
    node: Callable[[], Any], db: Callable[[], Database], page: Callable[..., Any]
) -> list[Route]:
    """``node``: the app's node (``server/live/node.py``); ``page(name, status)``: the
    endpoint answering the client's page ``name``."""
    missing = page("missing.html", 404)
    arena_page, arenas_page = page("arena.html"), page("arenas.html")

    async def listing(request: Request) -> Response:
        n = node()
        now = n.now()
        specs = await n.arenas.store.listing(now)
        try:
            finished = await archived.recent(db(), FINISHED)
        except DOWN as exc:
            db().failed(exc)
            finished = []
        upcoming = [s for s in specs if now < s.starts_ms]
        running = [s for s in specs if now >= s.starts_ms]
        return _json(ArenaList(upcoming, running, finished))

    async def create(request: Request) -> Response:
        n = node()
        settings = n.settings
        if httpguard.cross_site(request, settings.allowed_origins):
            return problem(403, "cross-site", "Arenas are created from nyumba's own pages.")
        body = await httpguard.read_body(request, MAX_BODY)
        try:
            ask = create_request(body)
        except msgspec.ValidationError as exc:
            return problem(400, "bad-arena", f"The arena does not validate: {exc}.")
        except (msgspec.DecodeError, RecursionError):
            return problem(400, "bad-json", "The arena is not valid JSON.")
        player = None if n.identities is None else await n.identities.player(session_of(request))
        if player is None:
            return problem(
                403, "arena-not-allowed", "Creating an arena needs a player (POST /api/me)."
            )
        if not await may_create(db(), player, settings.arena_creator_games):
            return problem(
                403, "arena-not-allowed",
                f"Creating an arena needs a passkey or {settings.arena_creator_games} rated games.",
            )  # fmt: skip
        try:
            game = engine.load(ask.game, **ask.options)
        except engine.BadOptions as exc:
            return problem(400, "bad-arena", f"Not a game for an arena: {exc}")
        now = n.now()
        starts = ask.starts_ms if ask.starts_ms is not None else now + (ask.starts_in_ms or 0)
        if not now - 60_000 <= starts <= now + AHEAD_MS:
            return problem(400, "bad-arena", "An arena starts from now to 30 days ahead.")
        why = A.duration_problem(starts, starts + ask.duration_ms, settings.arena_min_ms)
        if why is not None:
            return problem(400, "bad-arena", why)
        name = ask.name or f"{ask.game} {ask.clock.label()} arena"
        spec = A.ArenaSpec(
            A.arena_id(), name, ask.game, dict(game.options), ask.clock, ask.rated, ask.berserk,
            max(starts, now), max(starts, now) + ask.duration_ms, now, player,
        )  # fmt: skip
        try:  # one upcoming or running arena a player: claimed atomically in the store
            await n.arenas.store.create(spec)
        except A.ArenaRefused as refused:
            return problem(409, refused.code, refused.message)
        metrics.ARENAS_CREATED.labels("player").inc()
        return _json(spec, 201)

    async def arenas(request: Request) -> Response:
        return await (create if request.method == "POST" else listing)(request)

    async def one(request: Request) -> Response:
        arena_id, n = request.path_params["id"], node()
        try:
            at = int(request.query_params.get("page", "0"))
        except ValueError:
            at = -1
        if not 0 <= at <= 10_000:
            return problem(400, "bad-page", "page is a whole number from 0 to 10000.")
        found = await _final(arena_id)
        if found is not None:
            spec, rows = found
            rows_of = await archived.games_of(db(), arena_id)
            points = archived.points_of(rows_of)  # each game's points by side
            played = [{**msgspec.to_builtins(g), "points": points.get(g.id)} for g in rows_of]
            shown = rows[at * PAGE : (at + 1) * PAGE]
            return _json(ArenaPage(spec, "finished", at, len(rows), shown, [], played, rows[:3]))
        live = await n.arenas.store.get(arena_id) if ID.match(arena_id) else None
        if live is None:
            return problem(404, "no-arena", "No arena has that id.")
        spec = live
        store = n.arenas.store
        finished = await store.is_finished(arena_id)
        shown = await store.standings(arena_id, at * PAGE, PAGE)
        podium = await store.standings(arena_id, 0, 3) if finished else []
        return _json(
            ArenaPage(
                spec,
                A.status(spec, n.now(), finished),
                at,
                await store.players(arena_id),
                shown,
                await store.playing(arena_id, 1000),
                await store.results(arena_id),
                podium,
            )  # fmt: skip
        )

    async def _final(arena_id: str) -> tuple[A.ArenaSpec, list[A.Row]] | None:
        if not ID.match(arena_id):
            return None
        try:
            return await archived.final(db(), arena_id)
        except DOWN as exc:
            db().failed(exc)
            return None

    async def shown(request: Request) -> Response:
        arena_id = request.path_params["id"]
        known = ID.match(arena_id) is not None and (
            await node().arenas.store.get(arena_id) is not None
            or await _final(arena_id) is not None
        )
        return await (arena_page if known else missing)(request)

    return [
        Route("/api/arenas", arenas, methods=["GET", "POST"]),
        Route("/api/arenas/{id}", one),
        Route("/arenas", arenas_page),
        Route("/t/{id}", shown),
    ]


def _answers(ok: str, schema: dict[str, Any], *errors: tuple[int, str]) -> dict[str, Any]:
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    out = {"200" if ok != "201" else "201": _media(schema, "The arena" if ok != "list" else "")}
    for status, what in (*errors, (500, "internal"), (503, "store-down")):
        out[str(status)] = _media(problem_ref, what)
    return out


def _media(schema: dict[str, Any], what: str) -> dict[str, Any]:
    return {"description": what or "Arenas", "content": {"application/json": {"schema": schema}}}


def with_arenas(found: tuple[dict[str, Any], list[Any]]) -> tuple[dict[str, Any], list[Any]]:
    """``openapi_paths``' paths and types with the arenas' added."""
    paths, types = found
    ref = lambda name: {"$ref": f"#/components/schemas/{name}"}  # noqa: E731
    arena_id = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]
    page = {
        "name": "page", "in": "query", "required": False,
        "schema": {"type": "integer", "minimum": 0, "maximum": 10_000},
    }  # fmt: skip
    added = {
        "/api/arenas": {
            "get": {
                "operationId": "arenas",
                "summary": "Upcoming and running arenas, and the last finished with their podiums",
                "responses": _answers("list", ref("ArenaList")),
            },
            "post": {
                "operationId": "createArena",
                "summary": "Create an arena (an identified player with a passkey or enough "
                "rated games; one upcoming or running arena per player)",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ref("CreateArena")}},
                },
                "responses": _answers(
                    "201",
                    ref("ArenaSpec"),
                    (400, "bad-arena, bad-json"),
                    (403, "arena-not-allowed, cross-site"),
                    (408, "too-slow"),
                    (409, "arena-limit"),
                    (413, "too-large"),
                    (415, "bad-content-type"),
                ),  # fmt: skip
            },
        },
        "/api/arenas/{id}": {
            "get": {
                "operationId": "arena",
                "summary": "An arena: status, standings (a page of 100 rows), games in "
                "progress and finished, podium (live from the store, final from the archive)",
                "parameters": [*arena_id, page],
                "responses": _answers(
                    "one", ref("ArenaPage"), (400, "bad-page"), (404, "no-arena")
                ),
            }
        },
    }
    return {**paths, **added}, [*types, ArenaList, CreateArena, ArenaPage, A.ArenaSpec]
