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
    GET /fair-play                 what is rated, aborts, leaving, cooldowns, ratings, arenas
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
