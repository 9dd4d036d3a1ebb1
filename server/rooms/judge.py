"""Every change an intent can make to a room: ``judge(room, intent, context) -> Change``.

Pure functions: no I/O, no clocks (``Context.now_ms`` is passed in). Each
command takes the decoded room and one intent and returns a ``Change`` (the
room after, the events for everyone in it, the reply to the sender), or
raises ``Refused``. ``COMMANDS`` is the one dispatch table; ``judge`` adds
the rule every intent with an ``id`` follows, "exactly once"
(``server/rooms/answers.py``): a resend gets the first arrival's answer again.

Guards for a move, in order: seat token → game not over → this seat's turn
→ version current → the engine accepts the move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

import engine
from server.rooms import protocol as P
from server.rooms.answers import Keep, keep, recall, remember
from server.rooms.berserk import COMMANDS as ARENA
from server.rooms.fairplay import finish
from server.rooms.finished import Archived, archived, ended
from server.rooms.leaving import COMMANDS as LEAVING
from server.rooms.ratedstart import fixed
from server.rooms.room import (
    Change,
    Context,
    Played,
    Position,
    Refused,
    Reply,
    Room,
    SeatRec,
    changed,
    encode_state,
    free_seat,
    hash_token,
    new_token,
    token_sides,
)
from server.rooms.timing import COMMANDS as TIMED
from server.rooms.timing import run

GAMES_KEPT = 20


class ComputerMove(msgspec.Struct, frozen=True):
    """The computer's move for ``side``, thought out at ``version`` (not a wire message)."""

    room: str
    version: int
    move: str
    side: int


# ---------------------------------------------------------------- guards


def _seated(sides: list[int]) -> None:
    if not sides:
        raise Refused("not-seated")


def acting_side(room: Room, pos: Position, sides: list[int]) -> int:
    """Which of the sender's sides acts: its only one, or in a local room the side to move."""
    _seated(sides)
    if len(sides) == 1 or room.outcome is not None:
        return sides[0]
    return pos.to_move


def _not_over(room: Room) -> None:
    if room.outcome is not None:
        raise Refused("game-over")


def _current(room: Room, version: int) -> None:
    if version != room.version:
        raise Refused("stale")


def _ack(intent: Any, room: Room | None) -> P.Ack | None:
    """The ack for ``intent``: the version it produced, or -1 if the game's did not change."""
    if getattr(intent, "id", None) is None:
        return None
    return P.Ack(id=intent.id, version=-1 if room is None else room.version)


# ---------------------------------------------------------------- commands


def _play(room: Room, pos: Position, side: int, text: str, intent_id: str | None) -> Change:
    game, state = pos.game, pos.state
    # The engine's errors are the player's, never the server's ("internal"): ``parse`` refuses
    # an illegal move (the contract), and a move ``apply`` refused all the same is still illegal.
    try:
        done = game.apply(state, game.parse(state, text))
    except engine.BadNotation as exc:
        raise Refused("bad-notation", f"{text!r} is not a move in {room.game}: {exc}") from None
    except engine.IllegalMove as exc:
        raise Refused("illegal", f"{text!r} is not legal here: {exc}") from None
    new = changed(
        room,
        version=room.version + 1,
        state=encode_state(done.after),
        history=room.history + [Played(done.notation, side, intent_id)],
        outcome=done.outcome,
        last=P.LastMove(move=done.notation, side=side, steps=list(done.steps), id=intent_id),
        offer=None,
    )
    return Change(new, position=Position.after(game, done))


def move(room: Room, pos: Position, intent: P.Move, ctx: Context) -> Change:
    _seated(ctx.sides)
    _not_over(room)
    if any(room.seats[side].holder == "computer" for side in ctx.sides):  # before the turn
        raise Refused("not-allowed", "The computer holds your seat; reclaim it first.")
    side = pos.to_move
    if side not in ctx.sides:
        raise Refused("not-your-turn")
    _current(room, intent.version)
    change = _play(room, pos, side, intent.move, intent.id)
    change.reply = _ack(intent, change.room)
    return change


def computer_move(room: Room, pos: Position, intent: ComputerMove, ctx: Context) -> Change:
    _not_over(room)
    if pos.to_move != intent.side or room.seats[intent.side].holder != "computer":
        raise Refused("not-your-turn")
    _current(room, intent.version)
    return _play(room, pos, intent.side, intent.move, None)


def resign(room: Room, pos: Position, intent: P.Resign, ctx: Context) -> Change:
    side = acting_side(room, pos, ctx.sides)
    _not_over(room)
    new = finish(room, engine.resigned(side), side)
    return Change(new, reply=_ack(intent, new))


def _replayed(room: Room, keep: int) -> Change:
    """The room with only the first ``keep`` moves of this game."""
    game = Position(room).game
    state = game.start()
    history = room.history[:keep]
    last = None
    done = None
    for ply in history:
        done = game.apply(state, game.parse(state, ply.move))
        state = done.after
        last = P.LastMove(move=ply.move, side=ply.side, steps=list(done.steps), id=ply.id)
    new = changed(
        room,
        version=room.version + 1,
        state=encode_state(state),
        history=history,
        outcome=game.outcome(state) if done is None else done.outcome,
        last=last,
        offer=None,
    )
    return Change(
        new, position=Position.start(game, state) if done is None else Position.after(game, done)
    )


def _take_back_to(room: Room, side: int) -> Change:
    """Remove moves from the end until one of ``side``'s own moves is gone
    and it is ``side``'s turn again (a computer's reply goes with it)."""
    if not any(p.side == side for p in room.history):
        raise Refused("not-allowed", "There is no move of yours to take back.")
    return _replayed(room, max(i for i, p in enumerate(room.history) if p.side == side))


def undo(room: Room, pos: Position, intent: P.Undo, ctx: Context) -> Change:
    """Computer and local rooms: take back the player's last move (and the
    computer's reply); in a local room, the last move."""
    _seated(ctx.sides)
    if room.mode == "friend":
        raise Refused(
            "not-allowed", "Undo is for computer and local rooms; offer a takeback instead."
        )
    _current(room, intent.version)
    if room.outcome is not None and room.outcome.adjudication in ("resignation", "agreement"):
        raise Refused("game-over")
    if not room.history:
        raise Refused("not-allowed", "There is no move to take back.")
    if ctx.prepared is not None and ctx.prepared.rev == room.rev + 1:
        change = Change(ctx.prepared)  # replayed in the pool, from this very room
    elif room.mode == "local":
        change = _replayed(room, len(room.history) - 1)
    else:
        change = _take_back_to(room, ctx.sides[0])
    change.reply = _ack(intent, change.room)
    return change


def rematch(room: Room) -> Room:
    """The next game with sides swapped: each seat's holder moves to the other side."""
    game = Position(room).game
    played = {
        "game_no": room.game_no,
        "moves": [p.move for p in room.history],
        "outcome": msgspec.to_builtins(room.outcome),
    }
    if room.archive_id:
        played["id"] = room.archive_id  # its page: /g/{id}
    return changed(
        room,
        version=room.version + 1,
        game_no=room.game_no + 1,
        seats=[room.seats[1], room.seats[0]],
        state=encode_state(game.start()),
        history=[],
        outcome=None,
        last=None,
        offer=None,
        games=(room.games + [played])[-GAMES_KEPT:],
        archive_id="",
        ended_by=-1,
    )


def offer(room: Room, pos: Position, intent: P.Offer, ctx: Context) -> Change:
    side = acting_side(room, pos, ctx.sides)
    kind = intent.kind
    if kind == "rematch":
        if room.arena:
            raise Refused("not-allowed", "An arena game has no rematch: the arena pairs you again.")
        if room.outcome is None:
            raise Refused("not-allowed", "A rematch starts after the game is over.")
        if room.mode != "friend":
            new = rematch(room)
            return Change(new, reply=_ack(intent, new))
    else:
        _not_over(room)
    if kind == "draw":
        if room.mode == "computer":
            raise Refused("not-allowed", "The computer does not take draw offers.")
        if room.mode == "local":
            new = finish(room, engine.agreed_draw())
            return Change(new, reply=_ack(intent, new))
    if kind == "takeback":
        if room.mode != "friend":
            raise Refused("not-allowed", "Takeback offers are for friend rooms; use undo.")
        if not any(p.side == side for p in room.history):
            raise Refused("not-allowed", "There is no move of yours to take back.")
    new = changed(room, offer=P.PendingOffer(kind=kind, by=side))
    made = P.OfferMade(kind=kind, by=side, status="open")
    return Change(new, events=[made], reply=_ack(intent, None))


def reply(room: Room, pos: Position, intent: P.Reply, ctx: Context) -> Change:
    side = acting_side(room, pos, ctx.sides)
    o = room.offer
    if o is None or o.kind != intent.kind or o.by == side:
        raise Refused("no-offer")
    answered = P.OfferMade(kind=o.kind, by=o.by, status="accepted" if intent.accept else "declined")
    events = [answered]
    if not intent.accept:
        return Change(changed(room, offer=None), events=events, reply=_ack(intent, None))
    if o.kind == "draw":
        change = Change(finish(room, engine.agreed_draw()))
    elif o.kind == "takeback":
        change = _take_back_to(room, o.by)
    else:
        change = Change(rematch(room))
    change.events, change.reply = events, _ack(intent, change.room)
    return change


def hint(room: Room, pos: Position, intent: P.Hint, ctx: Context) -> Change:
    """The guards of a hint (the side to move, held by the asker, in a computer
    or local room); the node asks the computer and keeps the answer."""
    _seated(ctx.sides)
    if room.mode == "friend":
        raise Refused("not-allowed", "Hints are for computer and local rooms.")
    _not_over(room)
    if pos.to_move not in ctx.sides:
        raise Refused("not-your-turn")
    return Change(room)


def join(room: Room, pos: Position, intent: P.Join, ctx: Context) -> Change:
    """Seat the joiner: its token's sides; or a friend room's free seat for a
    visitor without a token; and give its seats ``name``. Replies ``welcome``."""
    sides = token_sides(room, intent.token)
    if intent.token and not sides:
        raise Refused("bad-token")
    new, token = room, None
    side = None if intent.token else free_seat(room)
    if side is not None:
        token = new_token()
        seats = list(room.seats)
        seats[side] = SeatRec("person", hash_token(token), None, ctx.now_ms)
        new, sides = changed(room, seats=seats), [side]
    # The joiner's name on its seats, and its player on those nobody identified has taken yet
    # (a seat keeps the first player it was linked to).
    seats = list(new.seats)
    for side in sides:
        seat = seats[side]
        if intent.name is not None and seat.name != intent.name:
            seat = msgspec.structs.replace(seat, name=intent.name)
        if ctx.player is not None and seat.player is None:
            seat = msgspec.structs.replace(seat, player=ctx.player)
        seats[side] = seat
    if seats != new.seats:
        new = (
            changed(room, seats=seats) if new is room else msgspec.structs.replace(new, seats=seats)
        )
    return Change(new, reply=P.Welcome(room=room.id, sides=sides, token=token))


# ---------------------------------------------------------------- exactly once


def judge(room: Room, intent: Any, ctx: Context, pos: Position | None = None) -> Change:
    """The room's answer to ``intent``: the command's change, with the answer
    kept when the intent has an id (see the module's docstring)."""
    try:
        kept = recall(room, intent, ctx.who)
    except Refused as r:
        return Change(room, reply=P.error(r.code, r.message, intent.id))
    if kept is not None:
        return Change(room, reply=kept, resent=True)
    pos = pos or Position(room)
    try:
        change = run(COMMANDS[type(intent)], room, pos, intent, ctx)
    except Refused as r:
        change = Change(room, reply=P.error(r.code, r.message, getattr(intent, "id", None)))
    if room.offer is not None and change.room.offer != room.offer:
        # An open offer that a move, a new offer or a result replaced: say so.
        o = room.offer
        if not any(e.kind == o.kind and e.by == o.by for e in change.events):
            change.events = [P.OfferMade(kind=o.kind, by=o.by, status="withdrawn")] + change.events
    change.room = fixed(room, change.room, change.reply, ctx)  # its times, its ratedness
    if room.outcome is None and change.room.outcome is not None:
        change.room = ended(change.room, ctx.now_ms)  # it waits for the archive
    intent_id = getattr(intent, "id", None)
    if ctx.who is not None and intent_id is not None and isinstance(change.reply, Reply):
        change.seen = change.room is not room
        after = change.room if change.seen else changed(room)
        game_no = after.game_no  # the game it is answered in: a rematch's is the new one
        change.room = remember(after, intent, ctx.who, change.reply, game_no)
    return change


Command = Callable[[Room, Position, Any, Context], Change]

COMMANDS: dict[type, Command] = {
    P.Join: join,
    P.Move: move,
    P.Resign: resign,
    P.Offer: offer,
    P.Reply: reply,
    P.Undo: undo,
    P.Hint: hint,
    ComputerMove: computer_move,
    Keep: keep,
    Archived: archived,
    **TIMED,
    **LEAVING,
    **ARENA,
}
