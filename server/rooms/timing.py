"""A room's clock through its changes: what every intent does to it, the flag, the abort.

Pure, like ``server/rooms/judge.py``, which runs every command through ``run`` here: before
the command, a clock that has run out ends the game (the intent, a move included, then finds
it over: ``clock.ran_out``, the same rule for a move and the flag); after it, one call
(``clock.after``) charges the mover and starts the next turn's clock. ``Flag`` is the intent
the deadline watcher sends (``server/live/flags.py``) when a room's flag time (``flag_at``)
has passed; ``P.Abort`` the players'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

import engine
from engine.ai import BUDGETS, LEVELS, family
from server.rooms import clock as C
from server.rooms import protocol as P
from server.rooms.fairplay import aborted, finish
from server.rooms.room import Change, Context, Position, Refused, Room


class Flag(msgspec.Struct, frozen=True):
    """The room's deadline has passed by the store's clock: judge it (not a wire message)."""

    room: str


def timeout(loser: int) -> engine.Outcome:
    return engine.Outcome(winner=1 - loser, reason="timeout", adjudication="timeout")


def started(room: Room) -> bool:
    """Both sides have made a move in this game: the clocks run."""
    history = room.history  # the other side's first move comes within a few plies
    return bool(history) and any(p.side != history[0].side for p in history)


def ready(room: Room) -> bool:
    """Every seat is taken: a friend room's clock waits for its second player."""
    return all(seat.holder != "empty" for seat in room.seats)


def flag_at(room: Room) -> int | None:
    """When this room's game ends unless someone moves: its clock's zero and the grace a late
    move would still get (``clock.flag_at``; None: nothing will end it)."""
    if room.clock is None or room.outcome is not None or not ready(room):
        return None
    return C.flag_at(room.clock, started(room))


def state_clock(room: Room, now_ms: int) -> C.Clock | None:
    """The ``clock`` of the room's ``state`` at ``now_ms``."""
    if room.clock is None:
        return None
    return C.view(room.clock, started(room), room.outcome is not None or not ready(room), now_ms)


# The intents a run-out clock answers by ending the game (a join, a kept answer or the
# archive's note do not act in the game; the computer's move, which has a ``move``, does).
_ACTING = (
    P.Move, P.Resign, P.Offer, P.Reply, P.Undo, P.HandOver, P.Reclaim, P.Abort, P.Claim, Flag
)  # fmt: skip


def _claimed(rec: C.ClockRec, intent: Any, ctx: Context) -> int | None:
    """The lag the running side's own move claims (the computer's claims none); None for
    any other intent, which sees the clock run out with the flag."""
    if isinstance(intent, P.Move):
        return (intent.lag or 0) if rec.running >= 0 and rec.running in ctx.sides else None
    if hasattr(intent, "move") and getattr(intent, "side", None) == rec.running:
        return 0
    return None


def _overdue(room: Room, pos: Position, intent: Any, ctx: Context) -> Change | None:
    """The game ended by its clock before this intent could act: the room ended, and the
    intent answered ``game-over`` (a ``Flag`` is answered nothing)."""
    rec = room.clock
    if rec is None or flag_at(room) is None:
        return None
    if not (isinstance(intent, _ACTING) or hasattr(intent, "move")):
        return None
    zero = C.ran_out(rec, started(room), ctx.now_ms, _claimed(rec, intent, ctx))
    if zero is None:
        return None
    if rec.running >= 0:  # inside fair play's window, a flag aborts the game too
        outcome, side, why = timeout(rec.running), rec.running, "The game is over: a clock ran out."
    else:
        outcome, side = aborted("first-move"), pos.to_move
        why = "The game was aborted: a first move did not come in time."
    new = finish(room, outcome, side, clock=C.stopped(rec, zero))
    reply = None
    if getattr(intent, "id", None) is not None:
        reply = P.error("game-over", why, intent.id)
    return Change(new, reply=reply)


def flag(room: Room, pos: Position, intent: Flag, ctx: Context) -> Change:
    """A deadline that had not passed after all (a move came first): nothing changes."""
    return Change(room)


def abort(room: Room, pos: Position, intent: P.Abort, ctx: Context) -> Change:
    """End a clocked game without a result, while a side has not yet made its first move."""
    if not ctx.sides:
        raise Refused("not-seated")
    if room.outcome is not None:
        raise Refused("game-over")
    if room.clock is None or started(room):
        raise Refused("not-allowed", "A game can be aborted only before both sides have moved.")
    new = finish(room, aborted("abort"), ctx.sides[0])
    return Change(
        new, reply=None if intent.id is None else P.Ack(id=intent.id, version=new.version)
    )


def _after(before: Room, change: Change, intent: Any, ctx: Context) -> Change:
    """Charge the clock for what the command did, and start the next turn's."""
    after, rec, now = change.room, change.room.clock, ctx.now_ms
    if rec is None or after is before:
        return change
    if after.game_no != before.game_no:  # a rematch: the same control, afresh
        after = msgspec.structs.replace(after, clock=C.fresh(C.control_of(rec), now, rec.abort_ms))
    elif after.version != before.version or (ready(after) and not ready(before)):
        mover = None
        if len(after.history) == len(before.history) + 1 and before.outcome is None:
            mover = after.history[-1].side
        to_move = None
        if after.outcome is None and ready(after):
            to_move = (change.position or Position(after)).to_move
        lag = getattr(intent, "lag", None) or 0
        rec = C.after(rec, now, mover, lag, to_move, started(after))
        after = msgspec.structs.replace(after, clock=rec)
    else:
        return change
    change.room = after
    return change


def within_clock(room: Room, side: int, level: str) -> str:
    """The level the computer plays ``side`` at on a running clock: the one asked for if its
    wall-clock cap fits in a tenth of the side's time left, else the strongest weaker level
    that does (the weakest at worst: a fraction of a second). So the computer's own seats and
    a seat handed to it think within their clock."""
    rec = room.clock
    if rec is None or rec.running != side or level not in LEVELS:
        return level
    budgets = BUDGETS[family(Position(room).game)]
    allowed = rec.remaining[side] / 10
    for candidate in reversed(LEVELS[: LEVELS.index(level) + 1]):
        if budgets[candidate].seconds * 1000 <= allowed:
            return candidate
    return LEVELS[0]


Command = Callable[[Room, Position, Any, Context], Change]


def run(command: Command, room: Room, pos: Position, intent: Any, ctx: Context) -> Change:
    """``command`` on the room, with the room's clock kept (module docstring)."""
    late = _overdue(room, pos, intent, ctx)
    if late is not None:
        return late
    return _after(room, command(room, pos, intent, ctx), intent, ctx)


COMMANDS: dict[type, Command] = {Flag: flag, P.Abort: abort}
