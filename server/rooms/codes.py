"""The closed lists the wire and the docs share: every adjudication and every error code, each
with its meaning. ``server/rooms/protocol.py`` puts them in the generated schema, and
``tests/server/rooms/test_protocol_doc.py`` holds server/PROTOCOL.md to them (STYLE.md: one list
the docs are checked from). Kept apart from the message declarations, which they outgrew."""

from __future__ import annotations

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
}
