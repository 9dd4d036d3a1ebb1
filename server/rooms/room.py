"""The room: the one record a room keeps in the store, and the engine glue.

A ``Room`` is a value (a msgspec Struct, msgpack in the store). Nothing here
does I/O or reads a clock. ``server/rooms/judge.py`` holds the changes an intent can
make to it; ``server/rooms/view.py`` the messages drawn from it.

Every game is a room (docs/design.md): a seat is held by a person (known by
the hash of a secret token), by the computer, or is empty. Local mode is one
token holding both seats.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

import engine
from engine.ai import LEVELS
from server.rooms import protocol as P
from server.rooms.clock import ClockRec, Control, fresh
from server.rooms.ratedness import ROOM_NEEDS_CLOCK, clock_refusal

Mode = Literal["friend", "computer", "local"]


class Refused(Exception):
    """An intent the room refuses: a protocol error code and a sentence; nothing changes."""

    def __init__(self, code: str, message: str | None = None, retry_after_ms: int | None = None):
        super().__init__(code)
        self.code = code
        self.message = message or P.ERRORS[code]
        self.retry_after_ms = retry_after_ms  # when asking again may be answered otherwise


# Rooms and their parts are plain values that never form a cycle: gc=False keeps them out of
# the cycle collector's passes (a node keeps one per room, replaced at every move).
class SeatRec(msgspec.Struct, gc=False):
    holder: Literal["person", "computer", "empty"]
    token_hash: str | None = None  # the person who owns the seat (kept while the computer plays it)
    level: str | None = None
    claimed_ms: int = 0
    name: str | None = None
    player: str | None = None  # the identified player who took the seat (their public id)
    address: str | None = None  # its player's address, marked (rooms/ratedness.py)


class Played(msgspec.Struct, array_like=True, gc=False):
    """One move of the room's current game: its notation, the side that made
    it, and the intent id that asked for it (None for the computer's)."""

    move: str
    side: int
    id: str | None = None


Reply = P.Ack | P.Error | P.HintMove


class Finished(msgspec.Struct, gc=False):
    """A finished game waiting for the archive (``Room.waiting``; made and explained in
    ``server/rooms/finished.py``)."""

    id: str  # the permanent id: /g/{id}
    room: str
    game_no: int
    version: int  # the room's game version at the end
    game: str
    options: dict[str, Any]
    mode: str
    rated: bool
    players: list[str | None]  # each side's player id (None: nobody identified)
    names: list[str | None]  # each side's display name at the end
    holders: list[str]  # person, computer or empty, at the end
    levels: list[str | None]  # the computer's level where it held a seat
    moves: list[str]
    outcome: engine.Outcome
    started_ms: int
    ended_ms: int
    clock: Any = None  # the room's clock at the end, when it has one
    arena: str = ""  # the arena the game was played in ("": none; server/rooms/arena.py)
    berserk: list[bool] = []  # each side berserked (an arena game that allows it), else empty


class Room(msgspec.Struct, gc=False):
    id: str
    game: str
    options: dict[str, Any]
    mode: Mode
    # The level the computer plays a seat handed over to it (stored as "level").
    handover_level: str = msgspec.field(name="level")
    created_ms: int = 0
    seats: list[SeatRec] = []  # index = side (0 South, 1 North)
    state: bytes = b""  # the engine state, msgpack
    rev: int = 0  # every stored change
    # A random tag of this revision, new at every stored change: two copies with one ``rev``
    # and other stamps are two histories (the store went back in time, then was written
    # again). The compare-and-set checks it with the rev (server/store/store.py).
    stamp: str = ""
    version: int = 0  # every change of the game itself (what move intents name)
    game_no: int = 1
    history: list[Played] = []
    outcome: engine.Outcome | None = None
    last: P.LastMove | None = None
    offer: P.PendingOffer | None = None
    # The latest intent ids' answers, oldest first, as fixed-width records (server/rooms/answers.py);
    # ``replies``: the JSON of those that were not an ack, by key fingerprint.
    kept: bytes = b""
    replies: dict[bytes, bytes] = {}
    # Kept answers as the previous version wrote them (a msgpack list), read once by
    # server/rooms/answers.py and then left empty.
    answers: bytes = b""
    games: list[dict[str, Any]] = []  # finished games of this room, as records
    # When the current game started (store clock, ms; 0: a friend room still waiting for its
    # second player) and first ended (0: not yet). An undo after the end keeps ``finished_ms``,
    # so a game ended, taken back and ended again is counted once (server/rooms/tally.py).
    started_ms: int = 0
    finished_ms: int = 0
    rated: bool = False  # the room's games are asked to be rated (lobby games may be)
    # The current game's ratedness, fixed at its start ("": not started; server/rooms/ratedness.py)
    ratedness: str = ""
    ended_by: int = -1  # who aborted or left a game that ended so (rooms/fairplay.py); -1: none
    archive_id: str = ""  # the current game's permanent id (/g/{id}), once it has ended
    waiting: list[Finished] = []  # finished games the archive does not have yet
    clock: ClockRec | None = None  # the game's clock, if it has one (server/rooms/timing.py)
    tail: int = 0  # moves read after the stored base (rooms/stored.py: at TAIL, stored whole)
    # An arena's game (server/rooms/arena.py): the arena's id ("": none), and each side's
    # berserk — empty when the arena does not allow it, else [south, north].
    arena: str = ""
    berserk: list[bool] = []


# A room in the store: msgpack, one encoder built once (read back by ``stored.decode_room``).
encode_room = msgspec.msgpack.Encoder().encode


def new_stamp() -> str:
    return os.urandom(6).hex()


def changed(room: Room, **fields: Any) -> Room:
    """The room with ``fields`` replaced, as a new stored revision."""
    return msgspec.structs.replace(room, rev=room.rev + 1, stamp=new_stamp(), **fields)


class Context(msgspec.Struct, frozen=True):
    """Who sends the intent and what the store knows besides the room."""

    sides: list[int]  # the sides the sender's connection holds
    who: str | None = None  # the seat owner's key (None: a spectator)
    now_ms: int = 0
    presence: dict[int, tuple[bool, int]] = {}  # side -> (present, last seen ms)
    absent_ms: int = 0
    prepared: Room | None = None  # the room after the intent, computed off the loop
    player: str | None = None  # the sender's identified player (its cookie), if any
    address: str | None = None  # the sender's client address
    same_address_rated: bool = False  # NYUMBA_RATED_SAME_ADDRESS: the address rule is lifted
    pair_rated_today: int = 0  # rated games the seats' two players started in 24 h
    pair_daily: int = 5  # NYUMBA_RATED_PAIR_DAILY: at most this many of them are rated


@dataclass(slots=True)
class Change:
    """What an intent did: the room after (``room`` is the judged room itself
    when nothing is to be stored), messages for everyone in the room, and the
    reply for the sender. ``position`` is the new room's decoded position when
    the command computed it (the view reuses it). ``resent``: the reply is a
    kept answer. ``seen``: others see the change (False when only an answer
    was kept)."""

    room: Room
    events: list[P.OfferMade] = field(default_factory=list)
    reply: Any = None  # P.Ack | P.Error | P.HintMove | P.Welcome | None
    position: Position | None = None
    resent: bool = False
    seen: bool = True


# ---------------------------------------------------------------- seats


def new_token() -> str:
    return secrets.token_urlsafe(16)  # 128 random bits


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_sides(room: Room, token: str | None) -> list[int]:
    """The sides a token owns in this room (compared in constant time)."""
    if not token:
        return []
    h = hash_token(token)
    return [
        side
        for side, seat in enumerate(room.seats)
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, h)
    ]


def free_seat(room: Room) -> int | None:
    """The side a joiner without a token takes: a friend room's seat nobody has taken."""
    if room.mode == "friend":
        for side, seat in enumerate(room.seats):
            if seat.holder == "empty" and seat.token_hash is None:
                return side
    return None


# ---------------------------------------------------------------- engine glue

_games: dict[tuple[Any, ...], engine.Game] = {}


def game_of(room: Room) -> engine.Game:
    """The room's game object (loaded once per profile and options)."""
    return load_game(room.game, room.options)


def load_game(name: str, options: dict[str, Any]) -> engine.Game:
    """``engine.load(name, **options)``, once per profile and options (engine.BadOptions for
    a bad game; options that cannot be a key are bad too)."""
    try:
        key = (name, tuple(sorted(options.items())))
        game = _games.get(key)
    except TypeError:  # an unhashable or unorderable option value
        raise engine.BadOptions(f"options of {name!r} must be plain values") from None
    # True == 1, but the registry refuses a bool for a number: a value of another type than
    # the game's own is loaded (and refused) by the engine, never found here.
    if game is None or any(type(game.options.get(k)) is not type(v) for k, v in options.items()):
        game = _games[key] = engine.load(name, **options)
    return game


class Position:
    """A room's game and its decoded engine state, decoded once per change and
    shared by the judging and the view (both only read it). Whose turn it is
    and the legal choices are asked of the engine once, or taken from the
    ``Transition`` that made the state."""

    __slots__ = ("game", "state", "_to_move", "_choices")

    def __init__(self, room: Room):
        self.game = game_of(room)
        self.state: Any = msgspec.msgpack.decode(room.state, type=self.game.state_type)
        self._to_move: int | None = None
        self._choices: tuple[engine.Choice, ...] | None = None

    @classmethod
    def after(cls, game: engine.Game, done: engine.Transition) -> Position:
        """The position a move made (nothing to decode, nothing to ask again)."""
        pos = cls.__new__(cls)
        pos.game, pos.state = game, done.after
        pos._to_move, pos._choices = done.to_move, done.choices
        return pos

    @classmethod
    def start(cls, game: engine.Game, state: Any) -> Position:
        pos = cls.__new__(cls)
        pos.game, pos.state, pos._to_move, pos._choices = game, state, None, None
        return pos

    @property
    def to_move(self) -> int:
        if self._to_move is None:
            self._to_move = self.game.to_move(self.state)
        return self._to_move

    @property
    def choices(self) -> tuple[engine.Choice, ...]:
        """The legal moves as a player picks them (empty once the game is over)."""
        if self._choices is None:
            self._choices = self.game.choices(self.state)
        return self._choices


def encode_state(state: Any) -> bytes:
    return msgspec.msgpack.encode(state)


# ---------------------------------------------------------------- creation


def create(
    room_id: str,
    game_name: str,
    options: dict[str, Any],
    mode: Mode,
    side: Literal["south", "north", "random"],
    level: str,
    now_ms: int,
    player: str | None = None,
    rated: bool = False,
    clock: Control | None = None,
    abort_ms: int = 30_000,
) -> tuple[Room, str, list[int]]:
    """A new room and the creator's token and sides (linked to ``player``, the creator's
    identity, if known); ``rated``: a friend game that moves ratings. engine.BadOptions for a
    bad game."""
    game = load_game(game_name, options)
    if level not in LEVELS:
        raise Refused(
            "bad-message", f"Unknown computer level {level!r}; use one of {', '.join(LEVELS)}."
        )
    if rated and mode != "friend":
        raise Refused("bad-message", "Only games between people are rated.")
    if refusal := clock_refusal(rated, clock):
        raise Refused(refusal, ROOM_NEEDS_CLOCK)
    mine = secrets.randbelow(2) if side == "random" else (0 if side == "south" else 1)
    token = new_token()
    h = hash_token(token)
    seats = [SeatRec("empty"), SeatRec("empty")]
    if mode == "local":
        seats = [SeatRec("person", h, None, now_ms, None, player) for _ in range(2)]
        sides = [0, 1]
    else:
        seats[mine] = SeatRec("person", h, None, now_ms, None, player)
        if mode == "computer":
            seats[1 - mine] = SeatRec("computer", None, level, now_ms)
        sides = [mine]
    room = Room(
        id=room_id,
        game=game_name,
        options=dict(game.options),
        mode=mode,
        handover_level=level,
        created_ms=now_ms,
        seats=seats,
        state=encode_state(game.start()),
        stamp=new_stamp(),
        started_ms=0 if mode == "friend" else now_ms,  # a friend room starts when joined
        rated=rated,
        clock=None if clock is None else fresh(clock, now_ms, abort_ms),
    )
    return room, token, sides


def computer_to_move(room: Room, position: Position | None = None) -> int | None:
    """The side the computer must play now, if any."""
    if room.outcome is not None:
        return None
    side = (position or Position(room)).to_move
    return side if room.seats[side].holder == "computer" else None
