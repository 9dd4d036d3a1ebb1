"""The archive's and the players' routes in ``GET /api/openapi.json``
(``server/web/archive.py``, ``server/web/players.py``): their operations, parameters and
every status each can answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.archive import standings
from server.web import players as P
from server.web.archive import ID, MAX_PAGE, MAX_PLAYERS, ArchivedGame, PlayerPage


def openapi_paths(problems: Callable[..., dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
    """``server/web/archive.py``'s and ``server/web/players.py``'s routes, and
    the types their bodies are declared with. Every status an operation can answer is listed:
    a post from another site's page is 403 ``cross-site``, a database that does not answer 503
    ``archive-down``, a change it refuses 409 ``conflict``, a fault 500 (``problems``: the
    document's error answers, ``server/web/openapi.py``)."""

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
