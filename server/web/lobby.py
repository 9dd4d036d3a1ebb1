"""The lobby over HTTP: ``GET /api/lobby``, the open seeks and the quick-pairing pools.

The live lobby is on the WebSocket (``lobby``, ``seek``, ``accept``, ``cancel``:
``server/PROTOCOL.md``, "The lobby"); this is the list a watcher without filters is shown, once,
for a page before its socket opens and for a bot that looks before it seeks: from the node's
copy of the open seeks, encoded once per change of them (every page load asks for the pools). ``openapi_paths`` adds the route to
``GET /api/openapi.json`` (``server/web/openapi.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import engine
from server.live.lobby import Lobby
from server.ops import health
from server.rooms import seeks as S
from server.rooms.clock import Control
from server.web.httpguard import problem

# What the WebSocket's description in the OpenAPI document says of the lobby and clocks.
WS_NOTE = (
    " The same socket carries the lobby, no room needed (server/PROTOCOL.md, 'The lobby'): "
    "`lobby` to watch the open seeks (answered `lobby`: at most 40 that fit its filters, nearest "
    "its rating, and a count of the rest; then updates at most twice a second), `seek` "
    "(paired at once with the compatible seek of its pool nearest its rating, the oldest among "
    "equals, else listed: `seeking`; a rated seek needs a clock, `rated-needs-clock`), "
    "`accept` a listed seek, `cancel` one's own; a pairing sends each player `paired` with the "
    "room and its seat token. A clocked room's `state` carries `clock` (each side's time left, "
    "which runs); a game ends on time (`adjudication` `timeout`) or without a result before "
    "both first moves (`aborted`, or the `abort` intent) ('Clocks'); a resignation, draw, flag "
    "or claim before each side has made two moves aborts it too, and a rated game whose player "
    "left is claimed (`claim`: `abandoned`) ('Fair play'). A player paired who does not join "
    "the room within the join deadline, or does not make a first move, may not seek for a "
    "while (`cooldown`, with `retry_after_ms`), and an address has one pairing waiting to be "
    "joined at a time (`pairing-pending`) ('Fair play in the lobby')."
)


class QuickPool(msgspec.Struct):
    """A quick-pairing pool: seek ``{game, options, clock}`` to join it. ``options`` has every
    option of the game, defaults included, as ``paired.options`` has; ``label`` says the clock
    as players do: minutes + increment seconds (``3+2``), quarter minutes as fractions
    (``½+0``), other times in seconds (``4s+0``)."""

    game: str
    options: dict[str, Any]
    clock: Control
    label: str


class LobbyList(msgspec.Struct):
    """``GET /api/lobby``: at most 40 open seeks (nearest 1500, then oldest first: what a
    ``lobby`` watcher without filters is shown), per game the open seeks not listed (``more``),
    and the quick-pairing pools."""

    seeks: list[S.SeekView]
    more: dict[str, int]
    quick: list[QuickPool]


def routes(lobby: Callable[[], Lobby], pools: str) -> list[Route]:
    # Every option, as a seek's own and ``paired.options`` are: the defaults filled in
    quick = [
        QuickPool(g, dict(engine.load(g, **options).options), clock, clock.label())
        for g, options, clock in S.quick_pools(pools)
    ]

    built: list[tuple[int, bytes]] = []  # the body for one revision of the open seeks

    async def listing(request: Request) -> Response:
        try:
            rev, seeks, more = await lobby().watchers.listing()
        except RedisError as exc:
            health.STORE.failed(exc)
            return problem(503, "store-down", "The store does not answer; try again shortly.")
        if not built or built[0][0] != rev:
            built[:] = [(rev, msgspec.json.encode(LobbyList(seeks, more, quick)))]
        return Response(built[0][1], media_type="application/json")

    return [Route("/api/lobby", listing)]


def with_lobby(found: tuple[dict[str, Any], list[Any]]) -> tuple[dict[str, Any], list[Any]]:
    """``openapi_paths``' paths and types with the lobby's added."""
    paths, types = found
    lobby = {
        "get": {
            "operationId": "lobby",
            "summary": "The nearest open seeks, a count of the rest and the quick-pairing pools "
            "(live: the WebSocket's lobby)",
            "responses": {
                "200": {
                    "description": "The lobby",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/LobbyList"}}
                    },
                },
                **{
                    str(code): {
                        "description": what,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}
                        },
                    }
                    for code, what in ((500, "internal"), (503, "store-down"))
                },
            },
        }
    }
    return {**paths, "/api/lobby": lobby}, [*types, LobbyList]
