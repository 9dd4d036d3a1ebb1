"""The closed lists the wire and the docs share: every adjudication, every error code of the
protocol, and every code of an HTTP problem document with the statuses it comes with, each with
its meaning. ``server/rooms/protocol.py`` puts them in the generated schema,
``server/web/openapi.py`` in the OpenAPI document, and server/PROTOCOL.md's tables are checked
against them (``tests/server/rooms/test_codes_documented.py``, which also scans the source for
every code the server writes: STYLE.md, one list). Kept apart from the message declarations,
which they outgrew."""

from __future__ import annotations

from typing import Any

from server.rooms import seeks

# Adjudications: how a game ended other than by the rules of play (``state.adjudication``,
# ``outcome.adjudication``), each with what it means. The engine's own (repetition,
# safety-stop) come with its outcomes; the rest are the server's.
ADJUDICATIONS: dict[str, str] = {
    "repetition": "a position repeated: the seeds go to their owners (Oware)",
    "safety-stop": "the relay limit stopped the game (Bao)",
    "resignation": "a side resigned: the other wins",
    "agreement": "a draw offer was accepted",
    "timeout": "a clock ran out: the other side wins",
    "aborted": "ended without a result before each side had made two moves; nothing rated",
    "abandoned": "a rated game's side left: the other claimed the win, or a draw (no winner)",
}

# Error codes, each with the sentence the server uses by default.
ERRORS: dict[str, str] = {
    "bad-json": "The message is not valid JSON.",
    "bad-message": "The message does not match the protocol.",
    "not-joined": "Join a room before sending this message.",
    "no-room": "There is no such room (it may have expired).",
    "wrong-room": "This connection is joined to another room.",
    "bad-token": "That seat token does not belong to this room.",
    "not-seated": "Spectators cannot do that.",
    "game-over": "The game is over.",
    "not-your-turn": "It is not your turn.",
    "stale": "The game has moved on; here is the current state.",
    "illegal": "That move is not legal here.",
    "bad-notation": "That is not a move in this game's notation.",
    "no-offer": "There is no such offer to answer.",
    "not-allowed": "That is not possible in this room.",
    "not-absent": "The opponent's seat is not absent long enough to hand over or claim.",
    "id-reused": "That id already named another intent; use a new id for each intent.",
    "busy": "The room is busy; try again.",
    "too-large": "The message is too large.",
    "rate-limited": "Too many messages.",
    "room-full": "The room has as many visitors as it can take.",
    "internal": "The server could not handle that message; nothing changed.",
    **seeks.ERRORS,
    # Arenas (server/PROTOCOL.md, "Arenas")
    "no-arena": "There is no such arena.",
    "arena-over": "That arena has ended: it pairs nobody any more.",
}

# Every code an HTTP answer's problem document can carry (``{code, message}``), with the
# statuses it comes with and when. The protocol's codes that HTTP also answers are here too,
# with their HTTP statuses. ``server/web/openapi.py`` builds the OpenAPI document's statuses
# and its Problem's codes from this; PROTOCOL.md's table is ``http_table()``.
HTTP_ERRORS: dict[str, tuple[tuple[int, ...], str]] = {
    "bad-json": ((400,), "a body that is not JSON, or nested too deeply"),
    "bad-message": ((400,), "a body that does not match its declaration (a field, type or value)"),
    "bad-game": (
        (400, 404),
        "an unknown game, option or option value: 400 in a body (`POST /api/rooms`), 404 in a "
        "path (`/api/ratings/{game}`, `/api/leaderboard/{game}`)",
    ),
    "bad-record": (
        (400,),
        "a record that does not load: the first ply or field that does not match",
    ),
    "rated-needs-clock": ((400,), "`POST /api/rooms` with `rated` and no `clock`"),
    "bad-page": (
        (400,),
        "a `page` that is not a whole number from 0 to 10000 (`/api/players/{id}`)",
    ),
    "bad-players": (
        (400,),
        "`players` that is not 1 to 8 player ids, comma-separated (`/api/ratings/{game}`)",
    ),
    "bad-name": (
        (400,),
        "a display name the name rules refuse (`PATCH /api/me`; the message says why)",
    ),
    "bad-challenge": ((400,), "a passkey challenge that is unknown, used or expired"),
    "bad-passkey": (
        (400, 403),
        "a passkey answer the WebAuthn check refuses: 400 adding it, 403 signing in",
    ),
    "wrong-address": (
        (400,),
        "a passkey ceremony asked under another host than `NYUMBA_PUBLIC_URL`'s (the message names "
        "the address to open)",
    ),
    "bad-http": ((400,), "a request the HTTP parser cannot read"),
    "bad-upgrade": (
        (400,),
        "a WebSocket upgrade refused: no `Sec-WebSocket-Key`, a version other than 13",
    ),
    "bad-request": ((400,), "any other refusal of the HTTP layer"),
    "cross-site": ((403,), "a post, or a WebSocket upgrade, from another site's page"),
    "not-owner": ((403,), "a `DELETE` of a running analysis without its `cancel_token`"),
    "forbidden": ((403,), "a WebSocket upgrade refused otherwise"),
    "too-many-sockets": ((403,), "a WebSocket upgrade from an address holding as many as it may"),
    "unknown-passkey": ((403,), "a passkey that belongs to no player here"),
    "other-relying-party": ((403,), "a passkey made for another relying party than this server's"),
    "passkey-counter": (
        (403,),
        "a passkey whose signature counter did not move forward: another sign-in used it at the "
        "same moment, or it was copied",
    ),
    "bad-arena": (
        (400,),
        "an arena creation that does not validate: its game, options, clock, start or duration "
        "(the message says which)",
    ),
    "arena-not-allowed": (
        (403,),
        "creating an arena without a passkey or enough rated games (`NYUMBA_ARENA_CREATOR_GAMES`), "
        "or without a player cookie",
    ),
    "arena-limit": ((409,), "creating an arena while one you created is upcoming or running"),
    "not-found": ((404,), "nothing at that path"),
    "no-arena": ((404,), "no arena has that id"),
    "no-room": ((404,), "no such room (it may have expired)"),
    "no-analysis": (
        (404,),
        "no analysis of that key is running or kept, or the key is not 32 hex digits",
    ),
    "no-game": ((404,), "no finished game has that id (yet)"),
    "no-player": (
        (404,),
        "this browser has no player yet (`PATCH`/`DELETE /api/me`, adding a passkey), or no player "
        "has that id (`/api/players/{id}`)",
    ),
    "method-not-allowed": ((405,), "a method the path does not take (with `Allow`)"),
    "too-slow": ((408,), "a body that took over 15 s to arrive"),
    "busy": (
        (409, 429, 503),
        "try again: 409 a new room's random id was taken; 429 this address's analysis is still "
        "running (with `Retry-After`); 503 the node runs as many analyses or replays as it takes "
        "(with `Retry-After`)",
    ),
    "passkey-taken": (
        (409,),
        "a passkey whose credential id is already kept, for this player or another",
    ),
    "conflict": (
        (409,),
        "a change to a player the archive refused because another came first, such as the player "
        "deleted meanwhile (nothing was changed)",
    ),
    "too-large": ((413,), "a body over its cap (64 KiB for records and rooms)"),
    "bad-content-type": ((415,), "a body not sent as `application/json` (with `Accept-Post`)"),
    "upgrade-required": ((426,), "`/ws` without a WebSocket upgrade (with `Upgrade: websocket`)"),
    "rate-limited": ((429,), "over a per-address quota (with `Retry-After` where it says when)"),
    "internal": ((500,), "a fault of the server (nothing changed)"),
    "store-down": ((503,), "the store does not answer"),
    "archive-down": ((503,), "the archive's database does not answer (play goes on)"),
    "draining": ((503,), "the node is shutting down (`/readyz`)"),
}

# The statuses of HTTP problem documents, each with a few words for its heading.
HTTP_STATUSES: dict[int, str] = {
    400: "Bad request",
    403: "Refused",
    404: "Not found",
    405: "Method not allowed",
    408: "Too slow",
    409: "Conflict",
    413: "Too large",
    415: "Not JSON",
    426: "Upgrade required",
    429: "Too many",
    500: "Server fault",
    503: "Unavailable",
}


def http_codes(status: int) -> list[str]:
    """The codes a problem document of ``status`` can carry."""
    return [code for code, (statuses, _) in HTTP_ERRORS.items() if status in statuses]


def http_table() -> str:
    """PROTOCOL.md's table of HTTP problem codes (``tests/server/rooms/test_codes_documented.py``
    holds the document to it)."""
    rows = ["| code | status | when |", "| --- | --- | --- |"]
    for code, (statuses, when) in HTTP_ERRORS.items():
        rows.append(f"| `{code}` | {', '.join(map(str, statuses))} | {when} |")
    return "\n".join(rows) + "\n"


def adjudication_table() -> str:
    """PROTOCOL.md's table of adjudications."""
    rows = ["| adjudication | meaning |", "| --- | --- |"]
    rows += [f"| `{name}` | {meaning} |" for name, meaning in ADJUDICATIONS.items()]
    return "\n".join(rows) + "\n"


def http_errors() -> dict[str, dict[str, Any]]:
    """``HTTP_ERRORS`` as the schemas publish it: each code's statuses and when."""
    return {c: {"statuses": list(s), "when": when} for c, (s, when) in HTTP_ERRORS.items()}


def enum_adjudications(schemas: dict[str, Any]) -> dict[str, Any]:
    """``schemas`` with every ``adjudication`` property typed as one of ``ADJUDICATIONS`` (or
    null): the engine's Outcome, which cannot know the server's, declares a string."""
    for schema in schemas.values():
        field = schema.get("properties", {}).get("adjudication")
        if field is not None:
            nullable = "null" in str(field) or None in field.get("enum", ())
            kept = {k: v for k, v in field.items() if k == "description"}
            field.clear()
            field.update(kept, enum=[*ADJUDICATIONS, *([None] if nullable else [])])
    return schemas
