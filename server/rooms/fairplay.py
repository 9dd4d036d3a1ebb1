"""Fair play: which games count, decided over values (no I/O, no clocks of its own).

A result is only worth what it costs. Two rules live here, as lichess keeps them
(``server/PROTOCOL.md``, "Fair play"; the players' page ``/fair-play``):

- **No result before both sides have played.** A game that may end without a result (one
  with a clock, or a rated one: ``abortable``) ends *aborted* — no winner, nothing archived,
  no rating moves — while either side has made fewer than ``MOVES_FOR_RESULT`` (2) moves of
  its own in it. Counted per side, not in plies: a sowing that ends in one's own store plays
  again, so plies 0-3 are always inside the window, and a side that made three moves in a row
  while the other made one is inside it too. A resignation, an accepted draw, a flag or a
  claim then aborts the game (``judged``); a result by the rules of play stands (no game
  ends so soon). Unclocked casual games and computer and local rooms keep every result:
  nobody's rating moves in them, and a clock's first-move window is what ``aborted`` was
  already made for (``server/rooms/timing.py``).
- **Leaving a rated game.** Whether a game is rated is asked of ``rated`` alone, so that the
  rule deciding it is one function (``server/rooms/leaving.py`` uses it for the claim and the
  hand-over).

Who aborted or left, for the lobby's counts: ``ended_by`` (the room's ``ended_by``, set with the
outcome; a node of the release before drops it when it rewrites the room, which loses only
that count).
"""

from __future__ import annotations

from typing import Any

import engine
from server.rooms.ratedness import RATED
from server.rooms.room import Room, changed

MOVES_FOR_RESULT = 2  # each side's own moves before a game can have a result (lichess: 2)


# Why a game ended aborted (its ``outcome.reason``), so a page can say it in plain words; who
# did it is the state's ``ended_by``.
ABORT_CAUSES: dict[str, str] = {
    "first-move": "the side to move did not make its first move in time",
    "abort": "a player aborted the game (the ``abort`` intent)",
    "resignation": "a side resigned before each side had made two moves",
    "agreement": "a draw was agreed before each side had made two moves",
    "timeout": "a clock ran out before each side had made two moves",
    "abandoned": "a side left and the other claimed before each side had made two moves",
}


def aborted(cause: str) -> engine.Outcome:
    """The end of a game without a result: no winner, nothing archived, nothing rated;
    ``cause`` (one of ``ABORT_CAUSES``) is its reason."""
    return engine.Outcome(winner=None, reason=cause, adjudication="aborted")


def rateable(room: Room) -> bool:
    """Rated games are between two identified people: two players, not one, no computer."""
    players = [s.player for s in room.seats]
    return (
        room.mode not in ("computer", "local")
        and all(s.holder == "person" for s in room.seats)
        and None not in players
        and players[0] != players[1]
    )


def rated(room: Room) -> bool:
    """Whether the room's current game moves ratings: the one place the claim, the hand-over
    and the abort ask it; once the game has started, its ratedness as fixed then."""
    if room.ratedness:  # fixed at the start (server/rooms/ratedness.py)
        return room.ratedness == RATED
    return bool(room.rated) and rateable(room)


def abortable(room: Room) -> bool:
    """A game that ends aborted rather than with a result while it is too short: a clocked or
    a rated game between people (see the module's docstring)."""
    return room.mode == "friend" and (room.clock is not None or rated(room))


def moves_by(room: Room) -> tuple[int, int]:
    """Each side's own moves in the current game (index = side)."""
    south = sum(1 for p in room.history if p.side == 0)
    return south, len(room.history) - south


def too_short(room: Room) -> bool:
    """The game can have no result yet: it is abortable and a side has made fewer than
    ``MOVES_FOR_RESULT`` moves."""
    return abortable(room) and min(moves_by(room)) < MOVES_FOR_RESULT


def judged(room: Room, outcome: engine.Outcome) -> engine.Outcome:
    """The outcome a resignation, an agreed draw, a flag or a claim gives ``room``: ``outcome``,
    or ``aborted`` while the game is too short to have a result."""
    return aborted(outcome.reason) if too_short(room) else outcome


def finish(room: Room, outcome: engine.Outcome, by: int = -1, **fields: Any) -> Room:
    """``room`` ended by ``outcome`` as ``judged``, ``by`` the side that resigned, flagged or
    left (-1: nobody in particular), as a new version; ``fields`` change with it."""
    outcome = judged(room, outcome)
    kept = by if outcome.adjudication in ("aborted", "abandoned") else -1
    return changed(
        room, version=room.version + 1, outcome=outcome, offer=None, ended_by=kept, **fields
    )


def ended_by(room: Room) -> int | None:
    """The side that aborted the ended game (its resignation, flag, missing first move or
    ``abort``) or left it (``abandoned``); None: the game goes on, ended otherwise, or nobody
    in particular did (a draw agreed inside the window). Kept in ``Room.ended_by``."""
    if room.outcome is None or room.outcome.adjudication not in ("aborted", "abandoned"):
        return None
    return None if room.ended_by < 0 else room.ended_by


def gone_ms(room: Room, side: int, presence: dict[int, tuple[bool, int]], now_ms: int) -> int:
    """How long ``side``'s seat has had no connection at ``now_ms`` (0: present, or nobody
    took it), counted from its last connection, its claim or the room's creation."""
    seat = room.seats[side]
    present, last_seen = presence.get(side, (False, 0))
    if present or seat.token_hash is None:
        return 0
    return max(0, now_ms - max(last_seen, seat.claimed_ms, room.created_ms))
