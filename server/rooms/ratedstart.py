"""When a game's ratedness is fixed: at its start, on the room, once (``server/rooms/ratedness.py``
says what decides it).

``fixed`` is applied by ``server/rooms/judge.py`` to every change, after the command: it dates
the game's start and end (``tally.timed``), keeps each seat's player's address (marked) while
the game has not started, resets the decision for a new game (a rematch), and decides when
the game starts — at its first move, or at its end if it ends before any. A decided game
keeps its decision whatever happens to its seats.

A room rewritten by a node of the release before loses ``Room.ratedness`` (that release does
not know the field): the game is then decided again at its next change, from its seats as
they are, which is what that release itself did at the end (docs/design.md, "Layouts across
releases").
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.rooms import protocol as P
from server.rooms.ratedness import address_mark, reason
from server.rooms.room import Context, Room, changed
from server.rooms.tally import timed


def fixed(before: Room, after: Room, reply: Any, ctx: Context) -> Room:
    """``after`` (the room an intent answered with ``reply`` made of ``before``), dated, with
    the joiner's address kept on its seats and the game's ratedness decided once started."""
    after = timed(before, after, ctx.now_ms)
    if after.game_no != before.game_no and after.ratedness:
        after = msgspec.structs.replace(after, ratedness="")  # a new game is decided anew
    if isinstance(reply, P.Welcome) and not after.ratedness:
        after = _addressed(before, after, reply.sides, ctx)
    if not after.rated or after.ratedness or not (after.history or after.outcome is not None):
        return after  # a casual room's games have nothing to fix: their first move stays light
    decided = reason(
        asked=after.rated,
        clocked=after.clock is not None,
        holders=[s.holder for s in after.seats],
        players=[s.player for s in after.seats],
        addresses=[s.address for s in after.seats],
        same_address_rated=ctx.same_address_rated,
        pair_rated_today=ctx.pair_rated_today,
        pair_daily=ctx.pair_daily,
    )
    if after is before:  # an intent that changed nothing else: a revision of its own
        return changed(after, ratedness=decided)
    return msgspec.structs.replace(after, ratedness=decided)


def _addressed(before: Room, room: Room, sides: list[int], ctx: Context) -> Room:
    """``room`` with the joiner's address on its ``sides`` (the latest join's counts)."""
    mark = address_mark(room.id, ctx.address)
    if mark is None:
        return room
    seats = list(room.seats)
    for side in sides:
        if side < len(seats) and seats[side].address != mark:
            seats[side] = msgspec.structs.replace(seats[side], address=mark)
    if seats == room.seats:
        return room
    if room is before:
        return changed(room, seats=seats)
    return msgspec.structs.replace(room, seats=seats)
