"""An arena game's berserk: a side halves its time before its first move, for one point more
on a win (``server/rooms/arena.py`` scores it; ``server/PROTOCOL.md``, "Arenas").

Pure, like ``server/rooms/judge.py``, which dispatches the intent here (``COMMANDS``). The room
carries the choice: ``Room.berserk`` is empty when its arena does not allow berserk, else each
side's ``[south, north]``; ``Finished.berserk`` copies it for the archive and the standings.
Allowed to a seated side of an arena room that allows it, with a clock, while the game goes
on and before that side's own first move — its clock does not run yet then (no clock runs
until both sides have moved, ``server/rooms/timing.py``), so halving its time is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from server.rooms import protocol as P
from server.rooms.room import Change, Context, Position, Refused, Room, changed


def berserk(room: Room, pos: Position, intent: P.Berserk, ctx: Context) -> Change:
    """Halve the sender's remaining time and mark its side berserk."""
    if not ctx.sides:
        raise Refused("not-seated")
    if not room.arena or not room.berserk or room.clock is None:
        raise Refused("not-allowed", "Berserk is for the games of an arena that allows it.")
    if room.outcome is not None:
        raise Refused("game-over")
    side = ctx.sides[0]
    if room.berserk[side]:
        raise Refused("not-allowed", "You have gone berserk in this game already.")
    if any(p.side == side for p in room.history):
        raise Refused("not-allowed", "Berserk is only before your first move.")
    remaining = list(room.clock.remaining)
    remaining[side] //= 2
    marks = list(room.berserk)
    marks[side] = True
    clock = msgspec.structs.replace(room.clock, remaining=remaining)
    new = changed(room, clock=clock, berserk=marks)
    ack = None if intent.id is None else P.Ack(id=intent.id, version=new.version)
    return Change(new, reply=ack)


Command = Callable[[Room, Position, Any, Context], Change]

COMMANDS: dict[type, Command] = {P.Berserk: berserk}
