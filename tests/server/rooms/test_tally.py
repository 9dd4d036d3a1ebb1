"""What a change counts in the game statistics (``server/rooms/tally.py``), judged on room
values: a game starts and finishes once — an undo after the end and the same end again count
nothing more; a rematch starts a game and is no hand-over; hand-overs and reclaims; a room
stored before the times were kept counts its end without a length."""

from __future__ import annotations

import itertools

import msgspec

from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms.judge import judge
from server.rooms.tally import (
    Finished,
    Game,
    HandedOver,
    InviteOpened,
    InviteTaken,
    Reclaimed,
    Started,
    changes,
    created,
)

T0 = 1_000_000
ids = (f"i{n}" for n in itertools.count())


def act(room, intent, token, now=T0, presence=None):
    """``intent`` judged as the holder of ``token`` would send it: the room after, and what
    storing it counts."""
    who = R.hash_token(token)[:16]
    ctx = R.Context(
        sides=R.token_sides(room, token),
        who=who,
        now_ms=now,
        presence=presence or {},
        absent_ms=1000,
    )
    done = judge(room, intent, ctx)
    assert not isinstance(done.reply, P.Error), done.reply
    return done.room, changes(room, done.room)


def first_move(room, token, now=T0):
    move = R.Position(room).choices[0].move
    return act(
        room, P.Move(room=room.id, version=room.version, move=move, id=next(ids)), token, now
    )


def play_out(room, token, now=T0):
    """Both sides (a local room's token holds both) play first moves to the end; the room and
    everything counted on the way."""
    counted = []
    while room.outcome is None:
        room, events = first_move(room, token, now)
        counted += events
    return room, counted


def test_a_local_game_ended_taken_back_and_ended_again_counts_one_end():
    room, token, _ = R.create("r1", "kalah", {"seeds": 3}, "local", "south", "beginner", T0)
    assert created(room) == [Started(Game("kalah", "local", "none"))]
    room, counted = play_out(room, token, now=T0 + 90_000)
    ends = [e for e in counted if isinstance(e, Finished)]
    assert len(ends) == 1 and counted == ends
    assert ends[0].plies == len(room.history) and ends[0].seconds == 90.0
    assert ends[0].ending == "rules" and room.finished_ms == T0 + 90_000

    room, events = act(room, P.Undo(room=room.id, version=room.version, id="u"), token)
    assert room.outcome is None and events == []
    room, counted = play_out(room, token, now=T0 + 99_000)
    assert counted == [] and room.finished_ms == T0 + 90_000


def joined(room):
    """A friend takes the free seat: the room after, what it counts, and the friend's token."""
    done = judge(room, P.Join(room=room.id), R.Context(sides=[], now_ms=T0))
    return done.room, changes(room, done.room), done.reply.token


def test_a_friend_room_counts_its_invitation_start_end_and_rematch():
    room, maker, _ = R.create("r2", "kalah", {}, "friend", "south", "advanced", T0)
    assert created(room) == [InviteOpened("kalah")]
    friend_game = Game("kalah", "friend", "none")

    room, events, friend = joined(room)
    assert events == [InviteTaken("kalah"), Started(friend_game)]
    assert room.started_ms == T0

    room, events = act(room, P.Resign(room=room.id, id="r"), maker, now=T0 + 5_000)
    assert events == [Finished(friend_game, "north", "resignation", 0, 5.0)]

    room, events = act(room, P.Offer(room=room.id, kind="rematch", id="o"), maker)
    assert events == []
    before = room
    room, events = act(
        room, P.Reply(room=room.id, kind="rematch", accept=True, id="y"), friend, T0 + 7_000
    )
    assert room.game_no == 2 and room.seats[0] == before.seats[1]
    assert events == [Started(friend_game)]  # the seats swapped: no hand-over, no reclaim
    assert (room.started_ms, room.finished_ms) == (T0 + 7_000, 0)


def test_hand_over_and_reclaim_are_counted():
    room, maker, _ = R.create("r3", "oware", {}, "friend", "south", "expert", T0)
    room, _, friend = joined(room)
    later = T0 + 60_000  # the friend has been gone longer than the absence window
    room, events = act(room, P.HandOver(room=room.id, id="h"), maker, now=later)
    assert events == [HandedOver(Game("oware", "friend", "none"))]
    room, events = act(room, P.Reclaim(room=room.id, id="c"), friend, now=later)
    assert events == [Reclaimed(Game("oware", "friend", "none"))]


def test_a_computer_game_is_labelled_with_the_level_and_a_computer_win():
    room, token, _ = R.create("r4", "kalah", {"seeds": 3}, "computer", "north", "expert", T0)
    assert created(room) == [Started(Game("kalah", "computer", "expert"))]
    room, events = act(room, P.Resign(room=room.id, id="r"), token)
    assert events == [
        Finished(Game("kalah", "computer", "expert"), "computer", "resignation", 0, 0.0)
    ]


def test_a_room_stored_before_the_times_were_kept_counts_its_end_without_a_length():
    room, token, _ = R.create("r5", "kalah", {"seeds": 3}, "local", "south", "beginner", T0)
    room = msgspec.structs.replace(room, started_ms=0)  # as an older server stored it
    room, events = first_move(room, token)
    assert events == []  # no start is made up for it
    room, counted = play_out(room, token)
    assert [type(e) for e in counted] == [Finished] and counted[0].seconds is None
