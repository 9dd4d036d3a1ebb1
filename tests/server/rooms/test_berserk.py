"""An arena room's own rules as pure decisions (server/rooms/berserk.py, judge.py; PROTOCOL.md,
"Arenas"): berserk halves the sender's time before its first move, once, in an arena that
allows it; the state says who went berserk; an arena room takes no rematch offer."""

from __future__ import annotations

import msgspec
import pytest

import engine
from server.rooms import clock as C
from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms import view as V


def _arena_room(berserk: bool = True, arena: str = "t1") -> R.Room:
    room, _, _ = R.create(
        "r1", "kalah", {"seeds": 3}, "friend", "south", "beginner", 1000,
        clock=C.Control(60_000, 2000),
    )  # fmt: skip
    seats = [
        R.SeatRec("person", R.hash_token(t), None, 1000, n, n) for t, n in (("s", "a"), ("n", "b"))
    ]
    return msgspec.structs.replace(
        room, seats=seats, started_ms=1000, arena=arena, berserk=[False, False] if berserk else []
    )


def _as(side: int, now: int = 2000) -> R.Context:
    return R.Context(sides=[side], who=f"seat{side}", now_ms=now)


def _move(room: R.Room, side: int, now: int) -> R.Room:
    move = R.Position(room).choices[0].move
    done = J.judge(
        room,
        P.Move(room=room.id, version=room.version, move=move, id=f"m{room.version}"),
        _as(side, now),
    )
    assert isinstance(done.reply, P.Ack), done.reply
    return done.room


def test_berserk_halves_the_senders_time_before_its_first_move_and_the_state_says_so() -> None:
    room = _arena_room()
    done = J.judge(room, P.Berserk(room="r1", id="b1"), _as(1))
    assert isinstance(done.reply, P.Ack)
    after = done.room
    assert after.berserk == [False, True]
    assert after.clock is not None and after.clock.remaining == [60_000, 30_000]
    assert after.version == room.version  # not a move: the game's version stays
    state = V.state_message(after, {}, 2000, 1000)
    assert state.arena == "t1" and state.berserk == [False, True]
    assert state.clock is not None and state.clock.remaining == [60_000, 30_000]
    # once only
    again = J.judge(after, P.Berserk(room="r1", id="b2"), _as(1))
    assert isinstance(again.reply, P.Error) and again.reply.code == "not-allowed"


def test_berserk_after_ones_first_move_is_refused_and_changes_nothing() -> None:
    room = _move(_arena_room(), 0, 1500)
    while R.Position(room).to_move == 0:  # Kalah: a sowing into one's store plays again
        room = _move(room, 0, 1600)
    done = J.judge(room, P.Berserk(room="r1", id="b"), _as(0))
    assert isinstance(done.reply, P.Error) and done.reply.code == "not-allowed"
    assert (done.room.clock, done.room.berserk) == (room.clock, room.berserk)  # (answer kept)
    # North has not moved yet: it may (its clock does not run before its first move)
    north = J.judge(room, P.Berserk(room="r1", id="n"), _as(1, 2500))
    assert isinstance(north.reply, P.Ack) and north.room.clock.remaining[1] == 30_000


@pytest.mark.parametrize("berserk,arena", [(False, "t1"), (True, "")])
def test_berserk_is_refused_where_the_arena_does_not_allow_it(berserk: bool, arena: str) -> None:
    room = _arena_room(berserk, arena)
    done = J.judge(room, P.Berserk(room="r1", id="b"), _as(0))
    assert isinstance(done.reply, P.Error) and done.reply.code == "not-allowed"
    assert (done.room.clock, done.room.berserk) == (room.clock, room.berserk)
    spectator = J.judge(_arena_room(), P.Berserk(room="r1"), R.Context(sides=[], now_ms=2000))
    assert isinstance(spectator.reply, P.Error) and spectator.reply.code == "not-seated"


def test_an_arena_room_refuses_a_rematch_offer() -> None:
    room = J.judge(_arena_room(), P.Resign(room="r1", id="r"), _as(0)).room
    assert room.outcome is not None
    done = J.judge(room, P.Offer(room="r1", kind="rematch", id="o"), _as(1, 3000))
    assert isinstance(done.reply, P.Error) and done.reply.code == "not-allowed"
    assert "arena" in (done.reply.message or "")
    assert done.room.game_no == 1 and done.room.offer is None
    # the same room outside an arena takes it
    plain = msgspec.structs.replace(room, arena="")
    offered = J.judge(plain, P.Offer(room="r1", kind="rematch", id="o"), _as(1, 3000))
    assert isinstance(offered.reply, P.Ack)


def test_the_berserk_intent_decodes_strictly() -> None:
    assert P.decode(b'{"t":"berserk","room":"r1","id":"x"}') == P.Berserk(room="r1", id="x")
    with pytest.raises(msgspec.ValidationError):
        P.decode(b'{"t":"berserk","room":"r1","side":0}')
    assert engine.load("kalah")  # (the profile the rooms above play)
