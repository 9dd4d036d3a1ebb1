"""What a stored change did to the game statistics: pure decisions over two ``Room`` values.

The Kalah site nyumba re-creates tells its players what it records of a game: its start and
end, the game and the way it is played (against the computer, two on one device, with a
friend), the computer's level, the result, the number of moves and a bracket of its length —
never room ids, moves, positions or addresses. The server sees all of that itself, so it counts
it without the page: the node whose compare-and-set stored a change counts what ``changes``
finds in it (``server/live/node.py``), and the node that created a room what ``created``
finds, so each game is counted once however many nodes serve its room.

Every label comes from a closed list: ``game`` a profile, ``mode`` friend/computer/local,
``level`` a computer level or ``none``, ``winner`` ``south``/``north`` (a person on that side),
``computer`` or ``none`` (a draw, or an end without a winner), ``ending`` one of ``ENDINGS``.

``timed`` keeps the game's start and end times on the room (``Room.started_ms``,
``Room.finished_ms``); ``server/rooms/judge.py`` applies it to every change.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec

from server.rooms.room import Room

# How a game ended: by the rules of play, or the judgement the engine applied
# (engine/core.py ``Outcome.adjudication``); anything else is "other".
ENDINGS = ("rules", "resignation", "agreement", "repetition", "safety-stop", "other")
WINNERS = ("south", "north", "computer", "none")


class Game(NamedTuple):
    """The labels of one game: profile, mode, and the computer's level (``none`` unless the
    room was made to play the computer)."""

    game: str
    mode: str
    level: str


class Started(NamedTuple):
    game: Game


class Finished(NamedTuple):
    game: Game
    winner: str
    ending: str
    plies: int
    seconds: float | None  # None: the room does not know when the game started


class InviteOpened(NamedTuple):
    """A friend room was made: its link waits for the friend."""

    game: str


class InviteTaken(NamedTuple):
    """A friend room's second seat was taken (its first game starts)."""

    game: str


class HandedOver(NamedTuple):
    """An absent friend's seat was handed to the computer."""

    game: Game


class Reclaimed(NamedTuple):
    """A person took their seat back from the computer."""

    game: Game


Event = Started | Finished | InviteOpened | InviteTaken | HandedOver | Reclaimed


def labels(room: Room) -> Game:
    level = "none"
    if room.mode == "computer":
        levels = [s.level for s in room.seats if s.holder == "computer" and s.level]
        level = levels[0] if levels else room.handover_level
    return Game(room.game, room.mode, level)


def created(room: Room) -> list[Event]:
    """What a new room counts: a friend room's invitation, or a game that starts at once."""
    if room.started_ms:
        return [Started(labels(room))]
    return [InviteOpened(room.game)]


def changes(before: Room, after: Room) -> list[Event]:
    """What storing ``after`` over ``before`` counts (nothing, for most changes: a move)."""
    if after.started_ms == before.started_ms and after.finished_ms == before.finished_ms:
        if after.seats == before.seats:
            return []  # a move, an offer, a name: the usual case, decided here
    game = labels(after)
    events: list[Event] = []
    if _has_empty(before) and not _has_empty(after):
        events.append(InviteTaken(after.game))
    if after.started_ms and after.started_ms != before.started_ms:
        events.append(Started(game))
    if after.finished_ms and not before.finished_ms and after.outcome is not None:
        events.append(_finished(game, after))
    if after.game_no == before.game_no:  # a rematch swaps the seats: not a hand-over
        for was, now in zip(before.seats, after.seats):
            if was.holder == "person" and now.holder == "computer":
                events.append(HandedOver(game))
            elif was.holder == "computer" and now.holder == "person":
                events.append(Reclaimed(game))
    return events


def _finished(game: Game, room: Room) -> Finished:
    outcome = room.outcome
    assert outcome is not None
    if outcome.winner is None:
        winner = "none"
    elif room.seats[outcome.winner].holder == "computer":
        winner = "computer"
    else:
        winner = ("south", "north")[outcome.winner]
    ending = outcome.adjudication or "rules"
    if ending not in ENDINGS:
        ending = "other"
    seconds = (room.finished_ms - room.started_ms) / 1000 if room.started_ms else None
    return Finished(game, winner, ending, len(room.history), seconds)


def timed(before: Room, after: Room, now_ms: int) -> Room:
    """``after`` with its game's start and end times: a new game (a rematch) starts now; a
    friend room's first game when its last empty seat is taken; a game ends the first time
    it has an outcome."""
    if after is before:
        return after
    started, finished = after.started_ms, after.finished_ms
    if after.game_no != before.game_no:
        started, finished = now_ms, 0
    elif not started and _has_empty(before) and not _has_empty(after):
        started = now_ms
    if after.outcome is not None and not finished:
        finished = now_ms
    if (started, finished) == (after.started_ms, after.finished_ms):
        return after
    return msgspec.structs.replace(after, started_ms=started, finished_ms=finished)


def _has_empty(room: Room) -> bool:
    return any(seat.holder == "empty" for seat in room.seats)
