"""Game clocks: Fischer time (an initial allowance and an increment per move), as values.

Pure: no I/O and no clock of its own. Every instant here is a millisecond of the *store's*
clock (``TIME``), handed in by the node that judges the change (``server/live/local.py``
``StoreClock``) or read inside a store script (``server/store/deadlines.py``), so nodes whose
own clocks differ charge the same time.

How a game's clock runs (``server/PROTOCOL.md``, "Clocks"):

- No clock runs until each side has made its first move. Until then the side to move has
  ``abort_ms`` (30 s by default) to make it; if it does not, the game is *aborted*: it ends
  without a result, and nobody's rating moves. Either player may also abort it then.
- Once both sides have moved, the side to move's clock runs. A move charges the time since
  the turn began, less the lag credit, and then adds the increment.
- Lag credit, bounded per move as lichess does: a client may report its network lag
  (``move.lag``, ms; it measures it from its pings). The credit for one move is at most
  ``LAG_MOVE_MS`` and at most the side's *lag quota*, which starts at ``QUOTA_START_MS``,
  gains ``QUOTA_GAIN_MS`` each move and holds at most ``QUOTA_MAX_MS``. So a client that always
  claims lag gains at most ``QUOTA_GAIN_MS`` a move in the long run, and a real lag spike is
  forgiven up to half a second.
- A move that arrives after its clock reached zero counts if it came within the credit it
  is given (``ran_out``). So a flag waits for the most credit a move could still be given,
  the *grace* (``LAG_MOVE_MS``, less once the quota is lower): a side whose clock is past
  zero and the grace has lost on time (``adjudication: "timeout"``), whether it then sends a
  move (refused: ``game-over``) or nothing at all (the deadline index,
  ``server/store/deadlines.py``, wakes a node at ``flag_at``). The other intents (an offer,
  a resignation, the opponent's) see the clock run out at the same moment as the flag; the
  running side's own move sees it at zero and its own credit. The first moves' window has
  no grace.

``Clock`` is what the ``state`` message carries; ``ClockRec`` is what the room stores
(array-like msgpack: a clock adds about 25 bytes to a stored room).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

LAG_MOVE_MS = 500
QUOTA_START_MS = 1000
QUOTA_GAIN_MS = 100
QUOTA_MAX_MS = 2000
ABORT_MS = 30_000


class Control(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A time control: ``initial_ms`` for each side, ``increment_ms`` added after each move
    (Fischer). 3+2 is ``{"initial_ms": 180000, "increment_ms": 2000}``."""

    initial_ms: Annotated[int, Meta(ge=1000, le=3 * 3600 * 1000)]
    increment_ms: Annotated[int, Meta(ge=0, le=180_000)] = 0

    def label(self) -> str:
        """As players say it: minutes + increment seconds (``3+2``), quarter minutes as
        fractions (``½+0``, ``1¼+1``), any other time in seconds (``4s+0``, ``100s+0``)."""
        return f"{_initial(self.initial_ms)}+{self.increment_ms / 1000:g}"


QUARTERS = {1: "¼", 2: "½", 3: "¾"}


def _initial(ms: int) -> str:
    if ms % 15_000:
        return f"{ms / 1000:g}s"
    minutes, quarters = divmod(ms // 15_000, 4)
    if not quarters:
        return str(minutes)
    return f"{minutes or ''}{QUARTERS[quarters]}"


class Clock(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """The clock in a ``state``: each side's ``remaining`` ms as of the moment the state was
    made (index = side), the side whose clock ``running`` (null: none runs — before both
    sides' first moves, and once the game is over), the control, and ``abort_ms``: how long
    the side to move still has to make its first move before the game is aborted (left out
    once both sides have moved). A page counts the running side down locally and takes every new
    state's figures as they are."""

    initial_ms: int
    increment_ms: int
    remaining: list[int]
    running: int | None
    abort_ms: int | None = None


class ClockRec(msgspec.Struct, array_like=True, gc=False):
    """A room's clock as stored: ``remaining`` as of ``since_ms`` (the start of the current
    turn), ``running`` -1 when no clock runs, the lag ``quota`` per side, and the abort window."""

    initial_ms: int
    increment_ms: int
    remaining: list[int]
    running: int
    since_ms: int
    quota: list[int]
    abort_ms: int = ABORT_MS


def fresh(control: Control, now_ms: int, abort_ms: int = ABORT_MS) -> ClockRec:
    """A clock at the start of a game: both sides' full time, none running."""
    initial = control.initial_ms
    quota = [QUOTA_START_MS, QUOTA_START_MS]
    return ClockRec(
        control.initial_ms, control.increment_ms, [initial, initial], -1, now_ms, quota, abort_ms
    )


def control_of(rec: ClockRec) -> Control:
    return Control(rec.initial_ms, rec.increment_ms)


def left(rec: ClockRec, side: int, now_ms: int) -> int:
    """``side``'s time left at ``now_ms`` (may be negative: the flag has fallen)."""
    if rec.running != side:
        return rec.remaining[side]
    return rec.remaining[side] - max(0, now_ms - rec.since_ms)


def deadline(rec: ClockRec, started: bool) -> int:
    """When the clock reaches zero: the running side's time, or, before both sides have moved
    (``started`` false), the end of the abort window."""
    if rec.running >= 0:
        return rec.since_ms + rec.remaining[rec.running]
    return rec.since_ms + rec.abort_ms


def grace(rec: ClockRec) -> int:
    """How long past zero the running side's move may still come and count: the most lag
    credit it could be given (``LAG_MOVE_MS``, and no more than its quota). None in the
    first moves' window, where no lag is credited."""
    return min(LAG_MOVE_MS, rec.quota[rec.running]) if rec.running >= 0 else 0


def flag_at(rec: ClockRec, started: bool) -> int:
    """When the game ends unless someone moves: zero and the grace (lichess flags a clock
    ``outOfTime(withGrace)`` alike), so the flag never ends a game a move could still save."""
    return deadline(rec, started) + grace(rec)


def ran_out(rec: ClockRec, started: bool, now_ms: int, claimed: int | None) -> int | None:
    """When the clock ran out (its zero, where it stops), if it has by ``now_ms`` for an
    intent; None if not. The running side's own move, ``claimed`` ms of lag, is given its
    credit (``credit``); any other intent (``claimed`` None), the flag's included, the most a
    move could be given (``grace``). So a move that counts is never preceded by the flag."""
    zero = deadline(rec, started)
    if claimed is None or rec.running < 0:
        extra = grace(rec)
    else:
        extra = credit(rec, rec.running, now_ms, claimed)
    return zero if now_ms >= zero + extra else None


def credit(rec: ClockRec, side: int, now_ms: int, lag_ms: int) -> int:
    """The lag credit a move of ``side`` arriving at ``now_ms`` gets (module docstring)."""
    spent = max(0, now_ms - rec.since_ms)
    return max(0, min(lag_ms, LAG_MOVE_MS, rec.quota[side], spent))


def after(
    rec: ClockRec, now_ms: int, mover: int | None, lag_ms: int, to_move: int | None, started: bool
) -> ClockRec:
    """The clock after a change of the game at ``now_ms``, in one step: ``mover``'s move
    charged, ``lag_ms`` reported (``mover`` None: the change was not one move: an undo, a
    result, a seat taken), nobody's time running, then ``to_move``'s turn begun (None:
    nobody's: the game is over or waits for a seat)."""
    if mover is not None:
        rec = _charged(rec, mover, now_ms, lag_ms)
    rec = stopped(rec, now_ms)
    return rec if to_move is None else _turned(rec, to_move, started, now_ms)


def _charged(rec: ClockRec, side: int, now_ms: int, lag_ms: int) -> ClockRec:
    """The clock after ``side`` moved at ``now_ms`` with ``lag_ms`` reported: its time spent
    less the credit taken off, the increment added (only once clocks run), its quota updated."""
    if rec.running != side:
        return rec
    given = credit(rec, side, now_ms, lag_ms)
    remaining = list(rec.remaining)
    remaining[side] = left(rec, side, now_ms) + given + rec.increment_ms
    quota = list(rec.quota)
    quota[side] = min(QUOTA_MAX_MS, quota[side] - given + QUOTA_GAIN_MS)
    return msgspec.structs.replace(rec, remaining=remaining, quota=quota, since_ms=now_ms)


def stopped(rec: ClockRec, now_ms: int) -> ClockRec:
    """The clock with nobody's time running, the running side charged to ``now_ms``."""
    if rec.running < 0:
        return msgspec.structs.replace(rec, since_ms=now_ms)
    remaining = list(rec.remaining)
    remaining[rec.running] = max(0, left(rec, rec.running, now_ms))
    return msgspec.structs.replace(rec, remaining=remaining, running=-1, since_ms=now_ms)


def _turned(rec: ClockRec, to_move: int, started: bool, now_ms: int) -> ClockRec:
    """A new turn begins at ``now_ms``: ``to_move``'s clock runs if both sides have moved
    (``started``), else none does and the abort window starts again."""
    return msgspec.structs.replace(rec, running=to_move if started else -1, since_ms=now_ms)


def view(rec: ClockRec, started: bool, over: bool, now_ms: int) -> Clock:
    """The clock as a ``state`` shows it at ``now_ms``."""
    remaining = [max(0, left(rec, side, now_ms)) for side in (0, 1)]
    running = rec.running if rec.running >= 0 else None
    abort = None
    if not started and not over:
        abort = max(0, rec.since_ms + rec.abort_ms - now_ms)
    return Clock(rec.initial_ms, rec.increment_ms, remaining, running, abort)
