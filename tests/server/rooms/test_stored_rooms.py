"""How a room is stored (server/rooms/stored.py): a move is appended as a small record,
and the room read back — a base and the moves after it — is the room that was judged,
move for move, through whole games; other changes write the room whole."""

from __future__ import annotations

import random

import msgspec
import pytest

from server.rooms import delta, judge, stored
from server.rooms import protocol as P
from server.rooms.clock import Control
from server.rooms.layout import (
    CLOCKED,
    CURRENT,
    PREVIOUS,
    READS,
    UNSET,
    WRITES,
    UnknownLayout,
    layout_of,
    written,
)
from server.rooms.room import Context, Position, create, encode_room
from server.rooms.stored import decode_room
from server.rooms.view import state_message


def _play(game: str, seed: int, clock: Control | None = None):
    room, token, sides = create("r1", game, {}, "local", "south", "beginner", 1_000, clock=clock)
    who = judge.hash_token(token)[:16]
    rng = random.Random(seed)
    now = 2_000
    while room.outcome is None:
        now += rng.randrange(50, 900)  # (a clock charges each move differently)
        ctx = Context(sides=sides, who=who, now_ms=now)
        legal = Position(room).choices
        intent = P.Move(
            room="r1", version=room.version, move=rng.choice(legal).move, id=f"m{room.version}"
        )
        done = judge.judge(room, intent, ctx)
        assert isinstance(done.reply, P.Ack), done.reply
        yield room, done.room
        room = done.room


CLOCK = Control(initial_ms=600_000, increment_ms=2_000)


@pytest.mark.parametrize("clock", [None, CLOCK], ids=["untimed", "clocked"])
@pytest.mark.parametrize("layout", WRITES)
@pytest.mark.parametrize("game", ["kalah", "oware", "bao-kiswahili"])
def test_moves_are_appended_and_read_back_as_the_judged_room(game, layout, clock):
    data = b""
    appended = written = 0
    for before, after in _play(game, 3, clock):
        if not data:
            data = stored.whole(before, layout)
        pos = Position(after)
        board = Position(before).game.board(Position(before).state)
        kept = stored.appended(before, after, layout)
        notice, _, append = delta.notice(before, after, pos, lambda b=board: b, lambda: None, kept)
        if not append:
            data = stored.whole(after, layout)
            written += 1
        else:
            data += stored.record(notice) + notice  # as the store's script appends it
            appended += 1
            # a move, where the room and its whole state were sent before
            was = len(stored.whole(after, layout)) + len(
                P.encode(state_message(after, {}, 0, 0, 0, pos))
            )
            assert len(notice) * 2 < was
        back = decode_room(data)
        assert layout_of(data) == layout
        after.tail = back.tail  # (how many moves follow the base: not part of the room)
        assert back == after
        assert back.tail < stored.TAIL
    if clock is not None and layout < CLOCKED:  # the clock is not in the record: written whole
        assert appended == 0
    else:
        assert appended > written >= 1  # the last move (it ends the game) is written whole


def test_a_clocked_move_appends_a_record_as_small_as_an_untimed_one():
    """From layout 4 a clocked move's record carries the clock: the same moves' records, but
    for the ``moved``'s clock (JSON, what the players see) and the stored clock, where the
    whole room was written before."""
    sizes: dict[object, list[int]] = {}
    for clock in (None, CLOCK):
        for before, after in list(_play("kalah", 5, clock))[2:12]:
            pos = Position(after)
            board = Position(before).game.board(Position(before).state)
            kept = stored.appended(before, after, CURRENT)
            assert kept is not None
            notice, _, _ = delta.notice(before, after, pos, lambda b=board: b, lambda: None, kept)
            sizes.setdefault(clock, []).append(len(notice))
            if clock is not None:
                assert stored.appended(before, after, PREVIOUS) is None
                assert len(notice) < len(stored.whole(after, CURRENT)) * 0.6
    extra = [timed - plain for timed, plain in zip(sizes[CLOCK], sizes[None], strict=True)]
    assert max(extra) < 150, extra


def test_a_record_without_a_clock_leaves_the_bases_clock():
    """A clocked room stored in layout 3 by the release before and appended to by it (no
    clock in its records) reads as it did: the base's clock; a layout-4 record's clock wins."""
    (before, after), *_ = _play("kalah", 2, CLOCK)
    assert after.clock != before.clock
    plain = stored.Ply(after.stamp, after.state, "a", 0, None, [], 0, b"")
    assert stored.played(before, plain).clock == before.clock
    timed = msgspec.structs.replace(plain, clock=after.clock)
    assert stored.played(before, timed).clock == after.clock


def test_a_room_stored_whole_by_an_earlier_version_is_read_as_it_is():
    room, _, _ = create("r1", "kalah", {}, "friend", "south", "beginner", 1_000)
    assert layout_of(encode_room(room)) == 1
    assert decode_room(encode_room(room)) == room
    assert decode_room(stored.whole(room, UNSET)) == room


def test_every_layout_this_release_reads_is_read_and_others_are_named():
    room, _, _ = create("r1", "kalah", {}, "friend", "south", "beginner", 1_000)
    assert READS == (1, 2, 3, 4) and (UNSET, PREVIOUS, CURRENT) == (2, 3, 4)
    for layout in WRITES:
        data = stored.whole(room, layout)
        assert layout_of(data) == layout and decode_room(data) == room
    # the releases before marked their rooms 0xc1 or 3 and nothing else: the same bytes as ours
    assert stored.whole(room, UNSET)[:1] == b"\xc1"
    assert stored.whole(room, PREVIOUS)[:1] == b"\x03"
    newer = b"\x05" + stored.whole(room, CURRENT)[1:]  # a later release's layout 5
    with pytest.raises(UnknownLayout, match="layout 5, which this release does not read"):
        decode_room(newer)


def test_a_node_writes_what_the_store_says():
    assert written(None) == UNSET  # a store nobody switched: what every release reads
    assert written(b"2") == UNSET and written(b"3") == PREVIOUS and written(b"4") == CURRENT
    for flag in (b"1", b"5", b"current"):
        with pytest.raises(UnknownLayout, match="one release at a time"):
            written(flag)


def test_a_change_that_is_not_only_a_move_is_written_whole():
    (before, after), *_ = _play("kalah", 1)
    with_offer = msgspec.structs.replace(after, offer=P.PendingOffer("draw", 0))
    for layout in WRITES:
        assert stored.appended(before, with_offer, layout) is None
        assert stored.appended(before, after, layout) is not None
