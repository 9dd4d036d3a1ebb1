"""Fair play's rules over room values (``server/rooms/fairplay.py``, ``leaving.py``): the
window before a result counts each side's own moves, not plies; who aborted or left."""

from __future__ import annotations

import msgspec

from server.rooms import fairplay as F
from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms import view as V
from server.rooms.clock import Control

T0 = 1_000


def _friend(clocked: bool = True, rated: bool = False) -> tuple[R.Room, str, str]:
    """A friend room, both seats taken by identified players; the two tokens."""
    room, south, _ = R.create(
        "r1", "kalah", {"seeds": 4}, "friend", "south", "beginner", T0, player="pa",
        rated=rated, clock=Control(60_000) if clocked else None,
    )  # fmt: skip
    joined = J.judge(room, P.Join(room="r1"), R.Context(sides=[], now_ms=T0, player="pb"))
    return joined.room, south, joined.reply.token


def _played(room: R.Room, *sides: int) -> R.Room:
    """``room`` with its history as if ``sides`` had moved in turn (the moves are not replayed:
    the window counts who moved)."""
    return msgspec.structs.replace(room, history=[R.Played("a", side) for side in sides])


def test_the_window_counts_each_sides_own_moves_not_plies() -> None:
    room, _, _ = _friend()
    assert F.too_short(room)  # ply 0
    assert F.too_short(_played(room, 0, 1, 0))  # ply 3: North has made one move
    assert F.too_short(_played(room, 0, 0, 0, 1))  # extra turns: four plies, North one move
    assert not F.too_short(_played(room, 0, 1, 0, 1))  # two moves each: a result counts
    unclocked, _, _ = _friend(clocked=False)
    assert not F.too_short(unclocked)  # an unclocked casual game keeps its results
    rated = msgspec.structs.replace(unclocked, rated=True)  # a room from before the clock rule
    assert F.rated(rated) and F.too_short(rated)  # a rated one does not


def test_a_resignation_inside_the_window_aborts_and_says_who() -> None:
    room, south, north = _friend()
    change = J.judge(room, P.Resign(room="r1", id="r"), R.Context(sides=[1], who=north, now_ms=T0))
    assert change.room.outcome == F.aborted("resignation") and F.ended_by(change.room) == 1
    assert change.room.waiting == []  # nothing for the archive
    state = V.state_message(change.room, {}, T0, 1_000)  # the page says who and why
    assert state.ended_by == 1 and state.outcome.reason == "resignation"
    after = J.judge(_played(room, 0, 1, 0, 1), P.Resign(room="r1"), R.Context(sides=[1], now_ms=T0))
    assert after.room.outcome.adjudication == "resignation" and F.ended_by(after.room) is None
    assert V.state_message(after.room, {}, T0, 1_000).ended_by is None
    rematch = J.rematch(change.room)
    assert rematch.ended_by == -1  # the next game starts with nobody's abort
