"""The archive over HTTP: a finished game's permanent page, a player's page, leaderboards.

    GET /g/{id}                    a finished game's page (client/game.html): replay, analysis,
                                   download, share
    GET /p/{id}                    a player's page (client/player.html): ratings, games
    GET /leaderboard[/{game}]      the best established ratings of a game (client/leaderboard.html)
    GET /privacy                   what is kept, for how long, and how to delete it
    GET /api/archive/{id}          the game: profile, players, result, ratings, its record
    GET /api/archive/{id}/record   the record (engine/RECORDS.md) as a download
    GET /api/players/{id}[?page=N] the player, their ratings, their games newest first (20 a page)
    GET /api/ratings/{game}?players=a,b   those players' ratings in a game (for the seats)
    GET /api/leaderboard/{game}    the best listed ratings in a game (server/ratings/standing.py)
    GET /fair-play                 what is rated, aborts, leaving, cooldowns, ratings
                                   (client/fairplay.html; docs/fairplay.md)

A database that does not answer is ``503 archive-down``; play goes on meanwhile.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import engine
from engine import records
from server.archive import games, players, standings
from server.archive.db import DOWN, Database
from server.live.local import now_ms
from server.rooms.finished import with_names
from server.web.httpguard import problem
from server.web.players import archive_down

ID = re.compile(r"^[A-Za-z0-9_-]{1,24}$")
PAGE = re.compile(r"^[0-9]{1,5}$")
MAX_PAGE = 10_000
MAX_PLAYERS = 8  # the ratings of one request: a room's seats, a lobby's page of seeks


class ArchivedGame(msgspec.Struct):
    """``GET /api/archive/{id}``: the game and its record (with the players' names)."""

    game: games.GameRow
    record: dict[str, Any]


def _shown(g: games.StoredGame) -> games.GameRow:
    """The stored game without its record's text (the answer has the record as JSON)."""
    return games.GameRow(**{f: getattr(g, f) for f in games.GameRow.__struct_fields__})


class PlayerPage(msgspec.Struct):
    """``GET /api/players/{id}``."""

    player: str
    name: str | None
    created_ms: int
    ratings: list[standings.Standing]
    games: list[games.PlayedGame]
    page: int
    more: bool


def _json(body: Any) -> Response:
    return Response(msgspec.json.encode(body), media_type="application/json")


def _no_game() -> Response:
    return problem(404, "no-game", "No finished game has that id (yet).")


def _named(g: games.StoredGame) -> dict[str, Any]:
    return with_names(json.loads(g.record), [s.name for s in g.seats])


class AnalysisShelf:
    """Finished analyses kept in the archive (``server/computer/analysis.py`` asks it when the
    store has none, and gives it each one it finishes): an archived game is analysed once."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, key: str) -> bytes | None:
        try:
            return await games.analysis(self.db, key)
        except DOWN as exc:
            self.db.failed(exc)
            return None

    async def put(self, key: str, data: bytes) -> None:
        try:
            await games.keep_analysis(self.db, key, data, now_ms())
        except DOWN as exc:
            self.db.failed(exc)


def routes(db: Callable[[], Database], page: Callable[[str], Any]) -> list[Route]:
    async def archived(request: Request) -> Response:
        game_id = request.path_params["id"]
        if not ID.match(game_id):
            return _no_game()
        try:
            g = await games.game(db(), game_id)
        except DOWN as exc:
            return archive_down(db(), exc)
        if g is None:
            return _no_game()
        record = _named(g)
        if request.url.path.endswith("/record"):
            name = f"nyumba-{g.game}-{g.id}.json"
            return Response(
                records.text(record),
                media_type="application/json",
                headers={"content-disposition": f'attachment; filename="{name}"'},
            )
        return _json(ArchivedGame(_shown(g), record))

    async def player(request: Request) -> Response:
        pid = request.path_params["id"]
        page = request.query_params.get("page", "0")
        if not PAGE.match(page) or int(page) > MAX_PAGE:
            return problem(
                400, "bad-page", f"page is a whole number from 0 (the newest games) to {MAX_PAGE}."
            )
        number = int(page)
        if not ID.match(pid):
            return problem(404, "no-player", "No player has that id.")
        try:
            p = await players.get(db(), pid)
            if p is None:
                return problem(404, "no-player", "No player has that id.")
            standing = await standings.standings(db(), pid, now_ms())
            listed, more = await games.played(db(), pid, number)
        except DOWN as exc:
            return archive_down(db(), exc)
        return _json(PlayerPage(p.id, p.name, p.created_ms, standing, listed, number, more))

    def _profile(request: Request) -> str | None:
        game = request.path_params["game"]
        return game if game in {p.name for p in engine.profiles()} else None

    async def ratings(request: Request) -> Response:
        game = _profile(request)
        if game is None:
            return problem(404, "bad-game", "No game profile has that name.")
        asked = request.query_params.get("players")
        wanted = [] if asked is None else asked.split(",")
        if len(wanted) > MAX_PLAYERS or not all(ID.match(p) for p in wanted):
            return problem(
                400, "bad-players", f"players is 1 to {MAX_PLAYERS} player ids, comma-separated."
            )
        try:
            found = await standings.rating_of(db(), wanted, game, now_ms()) if wanted else {}
        except DOWN as exc:
            return archive_down(db(), exc)
        return _json(found)

    async def leaderboard(request: Request) -> Response:
        game = _profile(request)
        if game is None:
            return problem(404, "bad-game", "No game profile has that name.")
        try:
            return _json(await standings.leaderboard(db(), game, now_ms()))
        except DOWN as exc:
            return archive_down(db(), exc)

    return [
        Route("/g/{id}", page("game.html")),
        Route("/p/{id}", page("player.html")),
        Route("/leaderboard", page("leaderboard.html")),
        Route("/leaderboard/{game}", page("leaderboard.html")),
        Route("/privacy", page("privacy.html")),
        Route("/fair-play", page("fairplay.html")),
        Route("/api/archive/{id}", archived),
        Route("/api/archive/{id}/record", archived),
        Route("/api/players/{id}", player),
        Route("/api/ratings/{game}", ratings),
        Route("/api/leaderboard/{game}", leaderboard),
    ]


def openapi_paths(problems: Callable[..., dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
    """This module's and ``server/web/players.py``'s routes for ``GET /api/openapi.json``, and
    the types their bodies are declared with. Every status an operation can answer is listed:
    a post from another site's page is 403 ``cross-site``, a database that does not answer 503
    ``archive-down``, a change it refuses 409 ``conflict``, a fault 500 (``problems``: the
    document's error answers, ``server/web/openapi.py``)."""
    from server.web import players as P

    def ok(name: str, what: str, many: bool = False) -> dict[str, Any]:
        schema: dict[str, Any] = {"$ref": f"#/components/schemas/{name}"}
        schema = {"type": "array", "items": schema} if many else schema
        return {"description": what, "content": {"application/json": {"schema": schema}}}

    def body(name: str) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{name}"}
        return {"required": True, "content": {"application/json": {"schema": ref}}}

    def param(name: str, **schema: Any) -> dict[str, Any]:
        return {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "string", **schema},
        }

    def query(name: str, description: str, **schema: Any) -> dict[str, Any]:
        return {
            "name": name,
            "in": "query",
            "required": False,
            "description": description,
            "schema": schema,
        }

    refused = (408, 413, 415)  # what a body may be refused with (server/web/httpguard.py)
    changed = (403, 409, 503)  # any change: cross-site, conflict, archive-down
    game = param("game")
    record = {
        "description": "A game record",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Record"}}},
    }
    standing = {"$ref": "#/components/schemas/Standing"}
    by_player = {
        "description": "Each asked player rated in the game: their Standing, by player id",
        "content": {
            "application/json": {"schema": {"type": "object", "additionalProperties": standing}}
        },
    }
    wrong = "wrong-address (not asked at NYUMBA_PUBLIC_URL's host), bad-message, bad-challenge"
    paths: dict[str, Any] = {
        "/api/me": {
            "get": {
                "operationId": "me",
                "summary": "This browser's player (player null: none)",
                "responses": {"200": ok("Me", "The player"), **problems(409, 503)},
            },
            "post": {
                "operationId": "becomePlayer",
                "summary": "Be a player: made now (201, the cookie set) or the cookie's (200)",
                "responses": {
                    "200": ok("Me", "The cookie's player"),
                    "201": ok("Me", "A new player"),
                    **problems(*changed, 429),
                },
            },
            "patch": {
                "operationId": "nameMe",
                "summary": "Name the player",
                "requestBody": body("NameChange"),
                "responses": {
                    "200": ok("Me", "The player"),
                    **problems(400, 404, *changed, *refused),
                },
            },
            "delete": {
                "operationId": "deleteMe",
                "summary": "Delete the player: sessions, passkeys, ratings; the games stay, anonymous",
                "responses": {"204": {"description": "Deleted"}, **problems(404, *changed)},
            },
        },
        "/api/me/signout": {
            "post": {
                "operationId": "signOut",
                "summary": "End this browser's session",
                "responses": {"204": {"description": "Signed out"}, **problems(*changed)},
            }
        },
        "/api/passkeys/register/options": {
            "post": {
                "operationId": "passkeyRegisterOptions",
                "summary": "Options to make a passkey",
                "responses": {
                    "200": ok("PasskeyOptions", "For navigator.credentials.create"),
                    **problems(400, 404, *changed, 429, s400=wrong),
                },
            }
        },
        "/api/passkeys/register": {
            "post": {
                "operationId": "passkeyRegister",
                "summary": "Add the passkey made",
                "requestBody": body("Answer"),
                "responses": {
                    "201": ok("Me", "The player"),
                    **problems(400, 404, *changed, *refused, s400=wrong + ", bad-passkey"),
                },
            }
        },
        "/api/passkeys/signin/options": {
            "post": {
                "operationId": "passkeySigninOptions",
                "summary": "Options to sign in with a passkey",
                "responses": {
                    "200": ok("PasskeyOptions", "For navigator.credentials.get"),
                    **problems(400, *changed, 429, s400=wrong),
                },
            }
        },
        "/api/passkeys/signin": {
            "post": {
                "operationId": "passkeySignin",
                "summary": "Sign in: a new session for the passkey's player",
                "requestBody": body("Answer"),
                "responses": {
                    "200": ok("Me", "The player"),
                    **problems(400, *changed, *refused, s400=wrong),
                },
            }
        },
        "/api/archive/{id}": {
            "get": {
                "operationId": "archivedGame",
                "summary": "A finished game and its record",
                "parameters": [param("id")],
                "responses": {"200": ok("ArchivedGame", "The game"), **problems(404, 503)},
            }
        },
        "/api/archive/{id}/record": {
            "get": {
                "operationId": "archivedRecord",
                "summary": "A finished game's record, as a download",
                "parameters": [param("id")],
                "responses": {"200": record, **problems(404, 503)},
            }
        },
        "/api/players/{id}": {
            "get": {
                "operationId": "player",
                "summary": "A player, their ratings and games, 20 a page, newest first",
                "parameters": [
                    param("id"),
                    query(
                        "page",
                        "0: the newest games",
                        type="integer",
                        minimum=0,
                        maximum=MAX_PAGE,
                        default=0,
                    ),
                ],
                "responses": {"200": ok("PlayerPage", "The player"), **problems(400, 404, 503)},
            }
        },
        "/api/ratings/{game}": {
            "get": {
                "operationId": "ratings",
                "summary": "Players' ratings in a game as they stand now",
                "parameters": [
                    game,
                    query(
                        "players",
                        f"1 to {MAX_PLAYERS} player ids, comma-separated (more: 400 bad-players); "
                        "left out: none",
                        type="string",
                        pattern=rf"^{ID.pattern[1:-1]}(,{ID.pattern[1:-1]}){{0,{MAX_PLAYERS - 1}}}$",
                    ),
                ],
                "responses": {
                    "200": by_player,
                    **problems(400, 404, 503, s404="No game profile has that name (bad-game)"),
                },
            }
        },
        "/api/leaderboard/{game}": {
            "get": {
                "operationId": "leaderboard",
                "summary": (
                    "The best listed ratings in a game: 10 rated games or more, one in the last"
                    " 30 days, deviation under 80 after its growth (server/ratings/standing.py)"
                ),
                "parameters": [game],
                "responses": {
                    "200": ok("Standing", "The best, highest first", many=True),
                    **problems(404, 503, s404="No game profile has that name (bad-game)"),
                },
            }
        },
    }
    return paths, [P.Me, P.NameChange, P.Answer, ArchivedGame, PlayerPage, standings.Standing]
