"""The archive over HTTP: a finished game's permanent page, a player's page, leaderboards.

    GET /g/{id}                    a finished game's page (client/game.html): replay, analysis,
                                   download, share
    GET /p/{id}                    a player's page (client/player.html): ratings, games
                                   (either, of an id the archive does not know: 404 with
                                   client/missing.html, which says what the address was for)
    GET /leaderboard[/{game}]      the best established ratings of a game (client/leaderboard.html)
    GET /privacy                   what is kept, for how long, and how to delete it
    GET /api/archive/{id}          the game: profile, players, result, ratings, its record
    GET /api/archive/{id}/record   the record (engine/RECORDS.md) as a download
    GET /api/players/{id}[?page=N] the player, their ratings, their games newest first (20 a page)
    GET /api/ratings/{game}?players=a,b   those players' ratings in a game (for the seats)
    GET /api/leaderboard/{game}    the best listed ratings in a game (server/ratings/standing.py)
    GET /fair-play                 what is rated, aborts, leaving, cooldowns, ratings
                                   (client/fairplay.html; docs/fairplay.md)

A database that does not answer is ``503 archive-down``; play goes on meanwhile. The pages
then answer 503 too, with the page itself, which says that the archive does not answer.
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


class ArchivedGame(msgspec.Struct):
    """``GET /api/archive/{id}``: the game and its record (with the players' names)."""

    game: games.GameRow
    record: dict[str, Any]


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


def _named(g: games.GameRow) -> dict[str, Any]:
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


def routes(db: Callable[[], Database], page: Callable[..., Any]) -> list[Route]:
    """``page(name, status=200)``: the endpoint answering the client's page ``name``."""
    missing = page("missing.html", 404)

    def known_page(name: str, known: Callable[[str], Any]) -> Any:
        """The page ``name`` for an id the archive knows; the 404 page for any other."""
        shown, down = page(name), page(name, 503)

        async def serve(request: Request) -> Response:
            wanted = request.path_params["id"]
            try:
                found = bool(ID.match(wanted)) and await known(wanted)
            except DOWN as exc:
                db().failed(exc)
                return await down(request)
            return await (shown if found else missing)(request)

        return serve

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
        return _json(ArchivedGame(msgspec.structs.replace(g, record=""), record))

    async def player(request: Request) -> Response:
        pid = request.path_params["id"]
        try:
            number = max(0, min(10_000, int(request.query_params.get("page", "0"))))
        except ValueError:
            return problem(400, "bad-page", "page is a number: 0 for the newest games.")
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
        wanted = [p for p in request.query_params.get("players", "").split(",") if ID.match(p)]
        try:
            found = await standings.rating_of(db(), wanted[:8], game, now_ms()) if wanted else {}
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
        Route("/g/{id}", known_page("game.html", lambda i: games.is_kept(db(), i))),
        Route("/p/{id}", known_page("player.html", lambda i: players.is_kept(db(), i))),
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


def openapi_paths() -> tuple[dict[str, Any], list[Any]]:
    """This module's and ``server/web/players.py``'s routes for ``GET /api/openapi.json``, and
    the types their bodies are declared with."""
    from server.web import players as P

    def ok(name: str | None, what: str, many: bool = False) -> dict[str, Any]:
        schema: dict[str, Any] = {"$ref": f"#/components/schemas/{name}"} if name else {}
        schema = {"type": "array", "items": schema} if many else schema or {"type": "object"}
        return {"description": what, "content": {"application/json": {"schema": schema}}}

    problem = {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    }

    def fails(*codes: int) -> dict[str, Any]:
        return {str(c): {"description": "A problem document", **problem} for c in codes}

    def body(name: str) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{name}"}
        return {"required": True, "content": {"application/json": {"schema": ref}}}

    def param(name: str) -> list[dict[str, Any]]:
        return [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}]

    refused = (408, 413, 415, 503)  # what a body may be refused with (server/web/httpguard.py)
    ceremony = {"challenge": "its id", "options": "the WebAuthn options, as JSON"}
    standing = {"$ref": "#/components/schemas/Standing"}
    by_player = {
        "description": "Each asked player rated in the game: their Standing, by player id",
        "content": {
            "application/json": {"schema": {"type": "object", "additionalProperties": standing}}
        },
    }
    paths: dict[str, Any] = {
        "/api/me": {
            "get": {
                "summary": "This browser's player (player null: none)",
                "responses": {"200": ok("Me", "The player")},
            },
            "post": {
                "summary": "Be a player: made now (201, the cookie set) or the cookie's (200)",
                "responses": {
                    "200": ok("Me", "The cookie's player"),
                    "201": ok("Me", "A new player"),
                    **fails(403, 429, 503),
                },
            },
            "patch": {
                "summary": "Name the player",
                "requestBody": body("NameChange"),
                "responses": {"200": ok("Me", "The player"), **fails(400, 403, 404, *refused)},
            },
            "delete": {
                "summary": "Delete the player: sessions, passkeys, ratings; the games stay, anonymous",
                "responses": {"204": {"description": "Deleted"}, **fails(403, 404, 503)},
            },
        },
        "/api/me/signout": {
            "post": {
                "summary": "End this browser's session",
                "responses": {"204": {"description": "Signed out"}},
            }
        },
        "/api/passkeys/register/options": {
            "post": {
                "summary": "Options to make a passkey (400 wrong-address: not at the public URL)",
                "responses": {"200": ok(None, str(ceremony)), **fails(400, 404, 429, 503)},
            }
        },
        "/api/passkeys/register": {
            "post": {
                "summary": "Add the passkey made",
                "requestBody": body("Answer"),
                "responses": {"201": ok("Me", "The player"), **fails(400, 404, 409, *refused)},
            }
        },
        "/api/passkeys/signin/options": {
            "post": {
                "summary": "Options to sign in with a passkey (400 wrong-address: not at the public URL)",
                "responses": {"200": ok(None, str(ceremony)), **fails(400, 429, 503)},
            }
        },
        "/api/passkeys/signin": {
            "post": {
                "summary": "Sign in: a new session for the passkey's player",
                "requestBody": body("Answer"),
                "responses": {"200": ok("Me", "The player"), **fails(400, 403, 409, *refused)},
            }
        },
        "/api/archive/{id}": {
            "get": {
                "summary": "A finished game and its record",
                "parameters": param("id"),
                "responses": {"200": ok("ArchivedGame", "The game"), **fails(404, 503)},
            }
        },
        "/api/archive/{id}/record": {
            "get": {
                "summary": "A finished game's record, as a download",
                "parameters": param("id"),
                "responses": {"200": ok(None, "A game record"), **fails(404, 503)},
            }
        },
        "/api/players/{id}": {
            "get": {
                "summary": "A player, their ratings and games (?page=N, 20 a page)",
                "parameters": param("id"),
                "responses": {"200": ok("PlayerPage", "The player"), **fails(400, 404, 503)},
            }
        },
        "/api/ratings/{game}": {
            "get": {
                "summary": "Players' ratings in a game now (?players=a,b; 8 at most)",
                "parameters": param("game"),
                "responses": {"200": by_player, **fails(404, 503)},
            }
        },
        "/api/leaderboard/{game}": {
            "get": {
                "summary": (
                    "The best listed ratings in a game: 10 rated games or more, one in the last"
                    " 30 days, deviation under 80 after its growth (server/ratings/standing.py)"
                ),
                "parameters": param("game"),
                "responses": {
                    "200": ok("Standing", "The best, highest first", many=True),
                    **fails(404, 503),
                },
            }
        },
    }
    return paths, [P.Me, P.NameChange, P.Answer, ArchivedGame, PlayerPage, standings.Standing]
