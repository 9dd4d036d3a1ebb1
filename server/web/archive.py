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
    GET /api/leaderboard/{game}    the best established ratings in a game

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
from server.archive import games, players
from server.archive.db import DOWN, Database
from server.live.local import now_ms
from server.rooms.finished import with_names
from server.web.httpguard import problem

ID = re.compile(r"^[A-Za-z0-9_-]{1,24}$")


class ArchivedGame(msgspec.Struct):
    """``GET /api/archive/{id}``: the game and its record (with the players' names)."""

    game: games.Game
    record: dict[str, Any]


class PlayerPage(msgspec.Struct):
    """``GET /api/players/{id}``."""

    player: str
    name: str | None
    created_ms: int
    ratings: list[games.Standing]
    games: list[games.PlayedGame]
    page: int
    more: bool


def _json(body: Any) -> Response:
    return Response(msgspec.json.encode(body), media_type="application/json")


def _down(db: Database, exc: BaseException) -> Response:
    db.failed(exc)
    return problem(503, "archive-down", "The archive does not answer; try again soon.")


def _no_game() -> Response:
    return problem(404, "no-game", "No finished game has that id (yet).")


def _named(g: games.Game) -> dict[str, Any]:
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
            return _down(db(), exc)
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
            standing = await games.standings(db(), pid)
            listed, more = await games.played(db(), pid, number)
        except DOWN as exc:
            return _down(db(), exc)
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
            found = await games.rating_of(db(), wanted[:8], game) if wanted else {}
        except DOWN as exc:
            return _down(db(), exc)
        return _json(found)

    async def leaderboard(request: Request) -> Response:
        game = _profile(request)
        if game is None:
            return problem(404, "bad-game", "No game profile has that name.")
        try:
            return _json(await games.leaderboard(db(), game))
        except DOWN as exc:
            return _down(db(), exc)

    return [
        Route("/g/{id}", page("game.html")),
        Route("/p/{id}", page("player.html")),
        Route("/leaderboard", page("leaderboard.html")),
        Route("/leaderboard/{game}", page("leaderboard.html")),
        Route("/privacy", page("privacy.html")),
        Route("/api/archive/{id}", archived),
        Route("/api/archive/{id}/record", archived),
        Route("/api/players/{id}", player),
        Route("/api/ratings/{game}", ratings),
        Route("/api/leaderboard/{game}", leaderboard),
    ]
