"""An arena's game as a room: the room a pairing makes, and what its end scores.

Pure, like ``server/rooms/judge.py``: the node that delivers a pairing makes the room with
``room_of`` (``server/live/arena.py``) — any node makes the same room from the same pairing —
and the node whose write ended the game, or the rounds' check of the games in progress
(``server/live/arenarounds.py``), scores it with ``result_of`` (``server/store/arena.py``
``finish``, by ``server/rooms/arena.py``'s ``score``).
"""

from __future__ import annotations

import msgspec

from server.rooms import arena as A
from server.rooms import room as R


def room_of(spec: A.ArenaSpec, pairing: A.Pairing, abort_ms: int) -> R.Room:
    """The room a pairing makes: the same from the same pairing, on any node — a friend room
    with both seats taken, the arena's clock, ``rated`` as the arena says (its ratedness fixed
    at the first move as a lobby game's), one game."""
    room, _, _ = R.create(
        pairing.room, spec.game, spec.options, "friend", "south", "intermediate",
        pairing.at_ms, clock=spec.clock, abort_ms=abort_ms,
    )  # fmt: skip
    seats = [
        R.SeatRec("person", side.token_hash, None, pairing.at_ms, side.name, side.player)
        for side in pairing.sides
    ]
    return msgspec.structs.replace(
        room, seats=seats, rated=spec.rated, started_ms=pairing.at_ms, arena=spec.id,
        berserk=[False, False] if spec.berserk else [],
    )  # fmt: skip


def result_of(room: R.Room) -> tuple[list[A.Result] | None, int | None]:
    """Each side's result of an ended arena game (None: aborted, nothing counts) and the side
    paused for it: the one whose missing first move aborted it (``Room.ended_by``)."""
    outcome = room.outcome
    if outcome is None or outcome.adjudication == "aborted":
        paused = None
        if outcome is not None and outcome.reason == "first-move" and room.ended_by >= 0:
            paused = room.ended_by
        return None, paused
    if outcome.winner is None:
        return ["draw", "draw"], None
    return (["win", "loss"] if outcome.winner == 0 else ["loss", "win"]), None
