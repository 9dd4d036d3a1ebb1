"""Arenas' values: the spec, standings rows, scoring, the schedule, and the arena messages.

Pure. An *arena* is a tournament: from ``starts_ms`` to ``ends_ms`` its joined players are
paired again and again, each game earns points, and the standings are live. The store keeps it
(``server/store/arena.py``, one hash slot per arena); the node delivers its pairings and views
(``server/live/arena.py``). The rules applied there are written here, and the tests hold the
store's scripts to them:

- **Points** (as lichess's arena counts them): a win 2, a draw 1, a loss 0. A player who won
  their two previous arena games in a row is *on fire*: this game's points are doubled; any
  result that is not a win ends the streak. A win after *berserk* (half one's clock before
  one's first move, when the arena allows it) earns 1 more, never doubled. An aborted game
  gives nothing, is not a game, and leaves the streak as it was (``score``).
- **Standings**: points, more first; then who reached their points first (the ms of their last
  change of points, or of joining for those without any); then the player's id. Ranks are
  1..n, ties share nothing (``order_key``).
- **Schedule**: the operator's ``NYUMBA_ARENAS`` (``parse_schedule``), one arena per
  occurrence, with an id derived from the entry and its start (``scheduled_id``) so that every
  node that creates it creates the same one.

The messages share the protocol's ``t`` tag (``server/rooms/protocol.py`` puts them in its
unions; ``server/PROTOCOL.md``, "Arenas").
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from server.rooms.arenaschedule import ScheduleEntry as ScheduleEntry
from server.rooms.arenaschedule import ScheduleError as ScheduleError
from server.rooms.arenaschedule import next_start as next_start
from server.rooms.arenaschedule import parse_schedule as parse_schedule
from server.rooms.clock import Control

Result = Literal["win", "draw", "loss"]
Status = Literal["upcoming", "running", "ending", "finished"]
ArenaId = Annotated[str, Meta(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9_-]+$")]
_IntentId = Annotated[str, Meta(min_length=1, max_length=64)]

WIN, DRAW = 2, 1  # points (a loss: 0)
BERSERK_BONUS = 1  # a berserked win's extra point, never doubled
FIRE_AFTER = 2  # consecutive wins before a game that make its points double
MAX_DURATION_MS = 300 * 60_000  # the longest arena a player may create
ORDER_SPAN = 10**10  # ms after creation that the standings' tie-break tells apart (115 days)


class ArenaSpec(msgspec.Struct, frozen=True):
    """An arena as the store keeps it and every API answer shows it. ``by``: the creating
    player's id (null: the operator's schedule, whose entry is ``schedule``)."""

    id: str
    name: str
    game: str
    options: dict[str, Any]
    clock: Control
    rated: bool
    berserk: bool
    starts_ms: int
    ends_ms: int
    created_ms: int
    by: str | None = None
    schedule: str = ""


class Row(msgspec.Struct, frozen=True):
    """One line of the standings. ``sheet``: the points of each game, in the order played;
    ``doubled``: for each game of ``sheet``, whether its points were doubled (``doubled``);
    ``fire``: on fire now (the next game's points double); ``berserks``: games berserked;
    ``rating``: the player's rating when they joined (null: none yet)."""

    rank: int
    player: str
    name: str | None
    points: int
    games: int
    wins: int
    draws: int
    losses: int
    fire: bool
    berserks: int
    sheet: list[int]
    doubled: list[bool]
    paused: bool
    rating: int | None


class ArenaGame(msgspec.Struct, frozen=True):
    """A game in progress: its room (watch it at ``/r/{room}``), its players and their names
    (index = side), when it was paired."""

    room: str
    players: list[str]
    names: list[str | None]
    started_ms: int


class Side(msgspec.Struct, frozen=True):
    """One side of a pairing: the player, their name, the hash of the seat token their node
    keeps for them, and that node."""

    player: str
    name: str | None
    token_hash: str
    node: str


class Pairing(msgspec.Struct, frozen=True):
    """What the store's pairing decided: the arena, the room it makes, the store's time, and
    the two sides (index = side: 0 south)."""

    arena: str
    room: str
    at_ms: int
    sides: list[Side]


class GameResult(msgspec.Struct, frozen=True):
    """A finished arena game: its room and game number, the players and each side's result
    (null: aborted, nothing counted), points and berserk, when it ended and was scored."""

    room: str
    game_no: int
    players: list[str]
    result: list[Result] | None
    points: list[int]
    berserk: list[bool]
    ended_ms: int
    scored_ms: int = 0  # the store's time when it was scored


def score(streak: int, result: Result, berserked: bool) -> tuple[int, int]:
    """(points for this game, the streak after it); ``streak``: consecutive wins before it.

    >>> score(0, "win", False), score(2, "win", True), score(2, "draw", False)
    ((2, 1), (5, 3), (2, 0))
    """
    double = 2 if streak >= FIRE_AFTER else 1
    if result == "win":
        return WIN * double + (BERSERK_BONUS if berserked else 0), streak + 1
    if result == "draw":
        return DRAW * double, 0
    return 0, 0


def doubled(streak: int, result: Result) -> bool:
    """Whether a game's points are doubled: played on fire (``streak`` consecutive wins before
    it) and earning points, a win or a draw (a loss on fire has nothing to double).

    >>> doubled(2, "win"), doubled(2, "draw"), doubled(2, "loss"), doubled(1, "win")
    (True, True, False, False)
    """
    return streak >= FIRE_AFTER and result != "loss"


def order_key(points: int, changed_ms: int, created_ms: int) -> int:
    """The standings' sort key (smaller ranks higher): more points, then the earlier last
    change of points (ms after the arena's creation, clamped). The store's order set holds it;
    equal keys go by player id."""
    return -points * ORDER_SPAN + min(max(changed_ms - created_ms, 0), ORDER_SPAN - 1)


def status(spec: ArenaSpec, now_ms: int, finished: bool) -> Status:
    if finished:
        return "finished"
    if now_ms < spec.starts_ms:
        return "upcoming"
    return "running" if now_ms < spec.ends_ms else "ending"


def arena_id() -> str:
    """A new player-made arena's id: 8 random bytes, URL-safe (11 characters)."""
    return secrets.token_urlsafe(8)


def duration_problem(starts_ms: int, ends_ms: int, min_ms: int) -> str | None:
    """Why a player's arena's times do not validate (a sentence), or None."""
    if ends_ms - starts_ms < min_ms:
        return f"An arena lasts at least {min_ms // 1000} seconds."
    if ends_ms - starts_ms > MAX_DURATION_MS:
        return f"An arena lasts at most {MAX_DURATION_MS // 60_000} minutes."
    return None


ERRORS = {
    "no-arena": "There is no such arena.",
    "arena-over": "This arena has ended: it pairs nobody any more.",
    "arena-not-allowed": "Creating an arena needs an identified player with a passkey or "
    "enough rated games.",
    "arena-limit": "You already have an upcoming or running arena.",
    "bad-arena": "That arena does not validate.",
}


class ArenaRefused(Exception):
    """An arena intent refused: an error code of ``ERRORS`` and a sentence; nothing changed."""

    def __init__(self, code: str, message: str | None = None):
        super().__init__(code)
        self.code = code
        self.message = message or ERRORS[code]


# --- The operator's schedule (parsed by server/rooms/arenaschedule.py) ----------------------


def scheduled_id(entry: ScheduleEntry, starts_ms: int) -> str:
    """The id of the entry's arena starting at ``starts_ms``: the same on every node (11
    characters, like ``arena_id``'s, from a hash of the entry's text and the start)."""
    digest = hashlib.sha256(f"{' '.join(entry.text.split())}@{starts_ms}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:8]).decode().rstrip("=")


def scheduled_spec(entry: ScheduleEntry, starts_ms: int, now_ms: int) -> ArenaSpec:
    """The arena the entry makes for the start ``starts_ms`` (created at ``now_ms``)."""
    return ArenaSpec(
        scheduled_id(entry, starts_ms),
        f"{entry.every.capitalize()} {entry.game} {entry.clock.label()}",
        entry.game, entry.options, entry.clock, entry.rated, entry.berserk,
        starts_ms, starts_ms + entry.duration_ms, now_ms, None, entry.text,
    )  # fmt: skip


# --- The arena's messages ----------------------------------------------------------------


class _ArenaIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="t"):
    pass


class _ArenaOut(msgspec.Struct, frozen=True, tag_field="t"):
    pass


class ArenaWatch(_ArenaIn, frozen=True, tag="arena"):
    """Watch the arena ``arena`` (``on``, the default) or stop: answered by an ``arena``
    message (``full``), then by its updates at most twice a second."""

    arena: ArenaId
    on: bool = True
    id: _IntentId | None = None


class ArenaJoin(_ArenaIn, frozen=True, tag="arena-join"):
    """Join the arena (or resume after a pause) and wait for a game on this connection: an
    identified player only. Answered ``arena-joined``; then ``arena-paired`` when paired. Send
    it again after each game to be paired again."""

    arena: ArenaId
    id: _IntentId | None = None


class ArenaPause(_ArenaIn, frozen=True, tag="arena-pause"):
    """Stop being paired (the game in progress still counts); stay in the standings."""

    arena: ArenaId
    id: _IntentId | None = None


ARENA = (ArenaWatch, ArenaJoin, ArenaPause)  # the messages the arenas answer, not a room


class ArenaView(_ArenaOut, frozen=True, tag="arena"):
    """An arena as a watcher sees it: ``full`` (the answer to ``arena``: the top of the
    standings) or an update (the rows that changed). ``me``: this socket's player's row, if
    joined; ``players``: joined players in all; ``playing``: games in progress (at most 20);
    ``podium``: the top three once finished."""

    arena: ArenaSpec
    status: Status
    now_ms: int
    full: bool
    standings: list[Row]
    me: Row | None
    players: int
    playing: list[ArenaGame]
    podium: list[Row]


class ArenaJoined(_ArenaOut, frozen=True, tag="arena-joined"):
    """This player is in the arena: ``paused`` (not paired) or waiting for a game."""

    arena: str
    paused: bool
    id: str | None = None


class ArenaPaired(_ArenaOut, frozen=True, tag="arena-paired"):
    """A game of the arena: join the room ``room`` (at ``url``) as ``side`` with the seat
    ``token`` (shown once, as ``welcome``'s)."""

    arena: str
    room: str
    url: str
    side: int
    token: str
    opponent: str | None
    game: str
    options: dict[str, Any]
    clock: Control
    rated: bool
    berserk: bool
    id: str | None = None


encode = msgspec.json.Encoder().encode
decode_spec = msgspec.json.Decoder(ArenaSpec).decode
decode_pairing = msgspec.json.Decoder(Pairing).decode
