"""What a room shows: the ``state`` message, its history and its game record.

Pure functions of a ``Room`` (and the presence the store knows); the engine
is asked for the legal moves once per view.
"""

from __future__ import annotations

from typing import Any

import msgspec

import engine
from server.rooms import protocol as P
from server.rooms.fairplay import ended_by
from server.rooms.ratedness import CASUAL, RATED
from server.rooms.room import Mode, Position, Room, game_of
from server.rooms.timing import state_clock


class History(msgspec.Struct):
    """``GET /api/rooms/{room}/history``: the current game's moves, the side
    that made each and the intent id that asked for it (null: the computer's),
    with the room's finished games before it (``previous_games``, at most 20:
    ``{game_no, moves, outcome}``)."""

    room: str
    game: str
    options: dict[str, Any]
    mode: Mode
    game_no: int
    version: int
    moves: list[str]
    sides: list[int]
    ids: list[str | None]
    outcome: engine.Outcome | None
    previous_games: list[dict[str, Any]]


def _seat(
    room: Room, side: int, presence: dict[int, tuple[bool, int]], now_ms: int, absent_ms: int
) -> P.Seat:
    seat = room.seats[side]
    owned = seat.token_hash is not None
    if seat.holder == "computer":
        return P.Seat(side, "computer", True, seat.level, 0, None, owned, seat.name, seat.player)
    present, last_seen = presence.get(side, (False, 0))
    if present or not owned:
        # A seat nobody has taken is not absent: it cannot be handed over (judge.hand_over).
        return P.Seat(side, seat.holder, present, None, 0, None, owned, seat.name, seat.player)
    gone = max(0, now_ms - max(last_seen, seat.claimed_ms, room.created_ms))
    wait = max(0, absent_ms - gone)
    return P.Seat(side, seat.holder, False, None, gone, wait, owned, seat.name, seat.player)


def _about(room: Room) -> dict[str, Any]:
    """What every account of a room starts with."""
    return {
        "room": room.id,
        "version": room.version,
        "game": room.game,
        "options": room.options,
        "mode": room.mode,
        "game_no": room.game_no,
    }


def state_message(
    room: Room,
    presence: dict[int, tuple[bool, int]],
    now_ms: int,
    absent_ms: int,
    watchers: int = 0,
    position: Position | None = None,
) -> P.State:
    """The ``state`` message for everyone in the room.

    ``presence`` maps side -> (present, last_seen_ms) as the store knows it;
    ``watchers`` counts the connections without a seat.
    """
    position = position or Position(room)
    game, state = position.game, position.state
    over = room.outcome is not None
    return P.State(
        **_about(room),
        position=game.describe(state),
        board=game.board(state),
        to_move=None if over else position.to_move,
        legal=[] if over else list(position.choices),
        last=room.last,
        outcome=room.outcome,
        adjudication=room.outcome.adjudication if room.outcome else None,
        ended_by=ended_by(room),
        seats=[_seat(room, side, presence, now_ms, absent_ms) for side in range(len(room.seats))],
        offer=room.offer,
        plies=len(room.history),
        watchers=watchers,
        archive=room.archive_id if over and room.archive_id else None,
        clock=state_clock(room, now_ms),
        rated=room.ratedness == RATED if room.ratedness else room.rated,
        unrated=room.ratedness if room.ratedness not in ("", RATED, CASUAL) else None,
        arena=room.arena or None,
        berserk=list(room.berserk) if room.berserk else None,
    )


def history(room: Room) -> History:
    """The room's own account of its current game: every move with its side
    and the intent id that made it (None for the computer's), for operators,
    tests and bots (``GET /api/rooms/{room}/history``)."""
    return History(
        **_about(room),
        moves=[p.move for p in room.history],
        sides=[p.side for p in room.history],
        ids=[p.id for p in room.history],
        outcome=room.outcome,
        previous_games=room.games,
    )


def record(room: Room) -> dict[str, Any]:
    """The current game as a game record (engine/RECORDS.md): nyumba's format,
    or for Bao Nakakamado A the trial app's own."""
    from engine import records

    game = game_of(room)
    outcome = None
    if room.outcome is not None and room.outcome.adjudication in ("resignation", "agreement"):
        outcome = room.outcome
    computer = next((s.level for s in room.seats if s.holder == "computer"), None)
    names = [s.name for s in room.seats]
    return records.dump(
        game,
        [p.move for p in room.history],
        players=names if any(names) else None,
        mode=room.mode,
        computer=computer if room.mode == "computer" else None,
        outcome=outcome,
    )
