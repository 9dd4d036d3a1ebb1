"""A side that has left its game: the hand-over to the computer, the reclaim, the claim.

Pure, like ``server/rooms/judge.py``, which dispatches these intents here (``COMMANDS``). A
person's seat is *absent* once none of its connections is left (``server/live/presence.py``
keeps the last one's end); the opponent waits ``Context.absent_ms`` (``NYUMBA_ABSENT_MS``,
2 min by default) from it, then:

- in an unrated game, may hand the seat to the computer (``hand_over``); the owner may take it
  back (``reclaim``). A rated game is refused the hand-over: the computer would play a rated
  game for a person, and the game would no longer say who played it.
- in a rated game, may claim it (``claim``) while the absent side is to move (its clock
  runs): the win, or a draw (``adjudication`` ``"abandoned"``; fair play's window still
  applies: a claim before each side has made two moves aborts the game,
  ``server/rooms/fairplay.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

import engine
from server.rooms import protocol as P
from server.rooms.fairplay import finish, gone_ms, rated
from server.rooms.room import Change, Context, Position, Refused, Room, changed


def _ack(intent: Any, room: Room | None) -> P.Ack | None:
    """The ack for ``intent``: the version it produced, or -1 if the game's did not change."""
    if intent.id is None:
        return None
    return P.Ack(id=intent.id, version=-1 if room is None else room.version)


def _absent_opponent(room: Room, ctx: Context, what: str) -> int:
    """The sender's opponent, whose seat ``what`` (hand over, claim) asks for: a person's seat
    in a friend room, absent past the wait; else refused."""
    if not ctx.sides:
        raise Refused("not-seated")
    if room.mode != "friend" or len(ctx.sides) != 1:
        raise Refused("not-allowed", f"Only a friend room's player can {what}.")
    other = 1 - ctx.sides[0]
    seat = room.seats[other]
    if seat.holder == "computer":
        raise Refused("not-allowed", "The computer already holds that seat.")
    if seat.token_hash is None:
        # Nobody ever took it: the invited friend may still come, and must find it free.
        raise Refused("not-allowed", "Nobody has taken that seat yet; the invite still holds it.")
    present = ctx.presence.get(other, (False, 0))[0]
    if present or gone_ms(room, other, ctx.presence, ctx.now_ms) < ctx.absent_ms:
        raise Refused("not-absent")
    return other


def hand_over(room: Room, pos: Position, intent: P.HandOver, ctx: Context) -> Change:
    """Give the absent opponent's seat to the computer, at the room's hand-over level."""
    if rated(room):
        raise Refused(
            "not-allowed", "A rated game is not handed to the computer; claim it instead."
        )
    other = _absent_opponent(room, ctx, "hand over the other seat")
    seats = list(room.seats)
    level = room.handover_level
    seats[other] = msgspec.structs.replace(seats[other], holder="computer", level=level)
    return Change(changed(room, seats=seats, offer=None), reply=_ack(intent, None))


def reclaim(room: Room, pos: Position, intent: P.Reclaim, ctx: Context) -> Change:
    if not ctx.sides:
        raise Refused("not-seated")
    seats = list(room.seats)
    for side in ctx.sides:
        if seats[side].holder == "computer" and seats[side].token_hash is not None:
            seats[side] = msgspec.structs.replace(seats[side], holder="person", level=None)
    if seats == room.seats:
        raise Refused("not-allowed", "The computer does not hold your seat.")
    return Change(changed(room, seats=seats), reply=_ack(intent, None))


def abandoned(winner: int | None) -> engine.Outcome:
    """A rated game its side left: the claimer wins (``winner``), or a draw (None)."""
    return engine.Outcome(winner=winner, reason="abandoned", adjudication="abandoned")


def claim(room: Room, pos: Position, intent: P.Claim, ctx: Context) -> Change:
    """End a rated game whose opponent left: the win or a draw for the claimer."""
    if not ctx.sides:
        raise Refused("not-seated")
    if room.outcome is not None:
        raise Refused("game-over")
    if not rated(room):
        raise Refused(
            "not-allowed", "Only a rated game can be claimed; hand the seat to the computer."
        )
    other = _absent_opponent(room, ctx, "claim the game")
    if pos.to_move != other:
        raise Refused("not-allowed", "Your opponent's clock is not running: make your move.")
    new = finish(room, abandoned(1 - other if intent.kind == "win" else None), other)
    return Change(new, reply=_ack(intent, new))


Command = Callable[[Room, Position, Any, Context], Change]

COMMANDS: dict[type, Command] = {P.HandOver: hand_over, P.Reclaim: reclaim, P.Claim: claim}
