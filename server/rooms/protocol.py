"""Every message on nyumba's WebSocket, declared once.

JSON text frames, one message each, tagged by the field ``t``. Client messages
are decoded by one strict decoder (unknown fields and wrong types refused);
server messages are encoded from the structs below. ``schema()`` generates the
JSON Schema that ``PROTOCOL.md`` and ``GET /api/protocol.json`` publish — it is
never written by hand.

Sides are integers: 0 = South (moves first), 1 = North.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from engine.core import Choice, Outcome, Step
from server.rooms import arena, names, seeks
from server.rooms.clock import Clock
from server.rooms.codes import ADJUDICATIONS, ERRORS, enum_adjudications, http_errors
from server.rooms.httpanswers import AnalysisStatus
from server.rooms.moved import Moved

# Bounds shared by the declarations (hardening issue tightens these further).
RoomId = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Token = Annotated[str, Meta(min_length=1, max_length=128)]
IntentId = Annotated[str, Meta(min_length=1, max_length=64)]
MoveText = Annotated[str, Meta(min_length=1, max_length=32)]
Version = Annotated[int, Meta(ge=0, le=2**53)]
Side = Annotated[int, Meta(ge=0, le=1)]
# A display name: 1-24 characters; what they may be is decided in ``server/rooms/names.py`` alone
# (``Join`` asks it), since a JSON Schema pattern cannot say "a visible letter" or "looks like".
Name = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=24,
        description=(
            "1-24 characters with a letter or digit in them; no invisible, control or "
            "unassigned characters (variation selectors and zero-width joiners only inside "
            "emoji), combining marks only on a character, no < or >, and nothing that reads "
            "as a reserved name (Computer, Kompyuta, nyumba, server …) under Unicode's "
            "confusables skeleton (UTS #39). Refused with bad-message and a sentence."
        ),
    ),
]
OfferKind = Literal["draw", "takeback", "rematch"]


class _In(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="t"):
    """Base of client → server messages."""


class Join(_In, frozen=True, tag="join"):
    """Join a room. With ``token`` reclaim the seat it belongs to; without one,
    take the free seat of a friend room, or watch. ``version`` is the last
    version the client saw (informational; the answer is always the current
    state). ``acks="state"``: this connection's applied moves are acknowledged
    by the ``state`` they made (its ``last.id``), not by an ``ack`` frame of
    their own (PROTOCOL.md, "Acks in the state"). ``states="moves"``: a move reaches this
    connection as a ``moved`` message (what it changed), not a whole ``state``
    (PROTOCOL.md, "Moves, lighter")."""

    room: RoomId
    token: Token | None = None
    version: Version | None = None
    name: Name | None = None
    acks: Literal["frame", "state"] = "frame"
    states: Literal["full", "moves"] = "full"

    def __post_init__(self) -> None:
        if self.name is not None:
            why = names.problem(self.name)
            if why is not None:
                raise ValueError(why)


class Move(_In, frozen=True, tag="move"):
    """A move intent: ``move`` in the game's notation, made at ``version``.
    ``id`` is chosen by the client; resending the same id is answered the same
    way and applied at most once."""

    room: RoomId
    version: Version
    move: MoveText
    id: IntentId
    lag: Annotated[int, Meta(ge=0, le=60_000)] | None = None  # ms, measured (clocked rooms)


class Resign(_In, frozen=True, tag="resign"):
    """Resign the current game (in a local room: the side to move resigns)."""

    room: RoomId
    id: IntentId | None = None


class Offer(_In, frozen=True, tag="offer"):
    """Offer a draw, a takeback (friend rooms) or a rematch with sides swapped."""

    room: RoomId
    kind: OfferKind
    id: IntentId | None = None


class Reply(_In, frozen=True, tag="reply"):
    """Accept or decline the opponent's pending offer."""

    room: RoomId
    kind: OfferKind
    accept: bool
    id: IntentId | None = None


class Undo(_In, frozen=True, tag="undo"):
    """Computer and local rooms: take back the player's last move (and the
    computer's reply to it)."""

    room: RoomId
    version: Version
    id: IntentId | None = None


class HandOver(_In, frozen=True, tag="hand_over"):
    """Hand the absent opponent's seat to the computer (after the absence window)."""

    room: RoomId
    id: IntentId | None = None


class Reclaim(_In, frozen=True, tag="reclaim"):
    """Take one's own seat back from the computer."""

    room: RoomId
    id: IntentId | None = None


class Hint(_In, frozen=True, tag="hint"):
    """Computer and local rooms: ask the computer for a good move for the
    side to move. Answered by ``hint``; nothing changes."""

    room: RoomId
    id: IntentId | None = None


class Abort(_In, frozen=True, tag="abort"):
    """A clocked game before both sides' first moves: end it without a result."""

    room: RoomId
    id: IntentId | None = None


class Claim(_In, frozen=True, tag="claim"):
    """A rated game whose opponent has left: claim the win (``kind`` ``"win"``) or a draw,
    once its seat has been absent past the wait and its clock runs (PROTOCOL.md, "Leaving")."""

    room: RoomId
    kind: Literal["win", "draw"]
    id: IntentId | None = None


class Berserk(_In, frozen=True, tag="berserk"):
    """An arena game that allows it, before the sender's first move: halve its time for one
    point more on a win (PROTOCOL.md, "Arenas")."""

    room: RoomId
    id: IntentId | None = None


class Ping(_In, frozen=True, tag="ping"):
    """Keep-alive; answered with ``pong`` carrying the same ``n``."""

    n: Annotated[int, Meta(ge=0, le=2**53)] = 0


ClientMessage = (
    Join | Move | Resign | Offer | Reply | Undo | HandOver | Reclaim | Hint | Abort | Claim
    | Berserk | Ping | seeks.Watch | seeks.Seek | seeks.Accept | seeks.Cancel
    | arena.ArenaWatch | arena.ArenaJoin | arena.ArenaPause
)  # fmt: skip


class _Out(msgspec.Struct, frozen=True, tag_field="t", omit_defaults=False, gc=False):
    """Base of server → client messages (plain values, never in a cycle: untracked by the
    cycle collector, ``gc=False``)."""


class Welcome(_Out, frozen=True, tag="welcome", omit_defaults=True):
    """Which sides this connection holds (empty: a spectator). ``token`` is
    present only the first time a seat is granted; the server keeps only its
    hash, so the client must store it (per room) to reclaim the seat."""

    room: str
    sides: list[int]
    token: str | None = None


class Seat(msgspec.Struct, frozen=True, gc=False):
    """Who holds a side: ``"person"``, ``"computer"`` or ``"empty"``.
    ``present`` is true while a connection holds it (the computer is always
    present). ``absent_ms`` is how long a person's seat has been without a
    connection (0 when present, and for a seat nobody has taken); ``handover_ms``
    is how much longer the opponent must wait before handing it to the computer
    (null when present, and for a seat nobody has taken: that is never handed
    over). Both are as of the moment the state was sent: clients count on."""

    side: int
    holder: Literal["person", "computer", "empty"]
    present: bool
    level: str | None = None
    absent_ms: int = 0
    handover_ms: int | None = None
    owned: bool = False  # a person owns the seat (can reclaim it from the computer)
    name: str | None = None
    player: str | None = None  # the identified player in the seat: their page is /p/{player}


# A legal move as a player picks it, a move's animation steps and a game's outcome are the
# engine's own values (engine.core Choice, Step, Outcome): one type on both sides of the wire.
Legal = Choice


class LastMove(msgspec.Struct, frozen=True, gc=False):
    move: str
    side: int
    steps: list[Step]
    id: str | None = None


class PendingOffer(msgspec.Struct, frozen=True, gc=False):
    kind: OfferKind
    by: int


class State(_Out, frozen=True, tag="state"):
    """The room as it is now. ``version`` counts changes of the game (moves,
    undos, takebacks, a new game); a move intent must name the current one."""

    room: str
    version: int
    game: str
    options: dict[str, Any]
    mode: Literal["friend", "computer", "local"]
    game_no: int
    position: str
    board: dict[str, Any]
    to_move: int | None
    legal: list[Legal]
    last: LastMove | None
    outcome: Outcome | None
    adjudication: str | None
    seats: list[Seat]
    offer: PendingOffer | None
    plies: int
    watchers: int = 0  # connections in the room that hold no seat (spectators)
    # True when the store went back in time (a failover lost its newest writes): this state
    # replaces whatever the client showed, even a later version (server/PROTOCOL.md).
    resync: bool = False
    # Once the game is over: its permanent id; the game's page is /g/{archive} (server/PROTOCOL.md).
    archive: str | None = None
    clock: Clock | None = None  # a clocked game's clocks (server/rooms/clock.py)
    # The game moves ratings (asked for until its first move, then fixed); ``unrated``: why a
    # game asked to be rated is not (a code of server/rooms/ratedness.py ``REASONS``).
    rated: bool = False
    unrated: str | None = None
    # The side that aborted the game (``aborted``: its abort, missing first move, resignation,
    # flag, draw offer or claim) or left it (``abandoned``); None otherwise.
    ended_by: int | None = None
    # An arena's game: the arena's id, and each side's berserk (null: the arena allows none).
    arena: str | None = None
    berserk: list[bool] | None = None


class Ack(_Out, frozen=True, tag="ack"):
    """The intent ``id`` was applied (now or earlier), giving ``version``."""

    id: str
    version: int


class Error(_Out, frozen=True, tag="error"):
    """A refused message: a stable ``code`` and a sentence. ``id`` is the
    intent id it answers, if any. Nothing changed. ``retry_after_ms``: for a refusal that
    lasts a while (``cooldown``, ``pairing-pending``), how long until it may end."""

    code: Annotated[str, Meta(extra_json_schema={"enum": list(ERRORS)})]
    message: str
    id: str | None = None
    retry_after_ms: int | None = None


class OfferMade(_Out, frozen=True, tag="offer"):
    """The opponent offers ``kind``; answer with ``reply``. Also sent when an
    offer is withdrawn or answered (``status``)."""

    kind: OfferKind
    by: int
    status: Literal["open", "accepted", "declined", "withdrawn"]


class Pong(_Out, frozen=True, tag="pong"):
    n: int


class HintMove(_Out, frozen=True, tag="hint"):
    """The computer's suggestion for the side to move at ``version``."""

    move: str
    version: int
    id: str | None = None


class Expiring(_Out, frozen=True, tag="expiring"):
    """The room reaches its longest life (24 h after creation) in ``in_ms``:
    it and its game are then gone. Sent once, within the last 10 minutes."""

    room: str
    in_ms: int


ServerMessage = (
    Welcome | State | Moved | Ack | Error | OfferMade | HintMove | Pong | Expiring
    | seeks.Lobby | seeks.Seeking | seeks.Paired | arena.ArenaView | arena.ArenaJoined
    | arena.ArenaPaired
)  # fmt: skip

_decoder = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


def decode(data: bytes | str) -> ClientMessage:
    """Decode one client message; msgspec.DecodeError / ValidationError on bad input."""
    return _decoder.decode(data)


def encode(message: msgspec.Struct) -> bytes:
    return _encoder.encode(message)


def error(
    code: str, message: str | None = None, id: str | None = None, retry_after_ms: int | None = None
) -> Error:
    return Error(code=code, message=message or ERRORS[code], id=id, retry_after_ms=retry_after_ms)


def schema() -> dict[str, Any]:
    """The protocol's JSON Schema, generated from the declarations above."""
    (client, server, analysis), components = msgspec.json.schema_components(
        [ClientMessage, ServerMessage, AnalysisStatus], ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "nyumba WebSocket protocol",
        "$defs": enum_adjudications(components),
        "oneOf": [
            {"title": "client to server", **client},
            {"title": "server to client", **server},
        ],
        "errors": ERRORS,
        "adjudications": ADJUDICATIONS,
        "http": {"analysis": analysis, "errors": http_errors()},
    }


SCHEMA_FILE = "protocol.schema.json"


def write_schema(path: str | None = None) -> str:
    """Write the generated schema next to PROTOCOL.md (``python -m server.rooms.protocol``)."""
    import json
    from pathlib import Path

    target = Path(path) if path else Path(__file__).resolve().parent.parent / SCHEMA_FILE
    target.write_text(json.dumps(schema(), indent=2, sort_keys=True) + "\n")
    return str(target)


if __name__ == "__main__":
    print(write_schema())
