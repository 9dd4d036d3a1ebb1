"""How a room is stored (server/rooms/stored.py): a move is appended as a small record,
and the room read back — a base and the moves after it — is the room that was judged,
move for move, through whole games; other changes write the room whole."""

from __future__ import annotations

import random

import msgspec
import pytest

from server.rooms import delta, judge, stored
from server.rooms import protocol as P
from server.rooms.layout import CURRENT, PREVIOUS, READS, UnknownLayout, layout_of, written
from server.rooms.room import Context, Position, create, encode_room
from server.rooms.stored import decode_room
from server.rooms.view import state_message


def _play(game: str, seed: int):
    room, token, sides = create("r1", game, {}, "local", "south", "beginner", 1_000)
    who = judge.hash_token(token)[:16]
    ctx = Context(sides=sides, who=who, now_ms=2_000)
    rng = random.Random(seed)
    while room.outcome is None:
        legal = Position(room).choices
        intent = P.Move(
            room="r1", version=room.version, move=rng.choice(legal).move, id=f"m{room.version}"
        )
        done = judge.judge(room, intent, ctx)
        assert isinstance(done.reply, P.Ack), done.reply
        yield room, done.room
        room = done.room


@pytest.mark.parametrize("layout", [PREVIOUS, CURRENT])
@pytest.mark.parametrize("game", ["kalah", "oware", "bao-kiswahili"])
def test_moves_are_appended_and_read_back_as_the_judged_room(game, layout):
    data = b""
    appended = written = 0
    for before, after in _play(game, 3):
        if not data:
            data = stored.whole(before, layout)
        pos = Position(after)
        board = Position(before).game.board(Position(before).state)
        notice, _, append = delta.notice(
            before, after, pos, lambda b=board: b, lambda: None, stored.appended(before, after)
        )
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
    assert appended > written >= 1  # the last move (it ends the game) is written whole


def test_a_room_stored_whole_by_an_earlier_version_is_read_as_it_is():
    room, _, _ = create("r1", "kalah", {}, "friend", "south", "beginner", 1_000)
    assert layout_of(encode_room(room)) == 1
    assert decode_room(encode_room(room)) == room
    assert decode_room(stored.whole(room, PREVIOUS)) == room


def test_every_layout_this_release_reads_is_read_and_others_are_named():
    room, _, _ = create("r1", "kalah", {}, "friend", "south", "beginner", 1_000)
    assert READS == (1, 2, 3) and (PREVIOUS, CURRENT) == (2, 3)
    for layout in (PREVIOUS, CURRENT):
        data = stored.whole(room, layout)
        assert layout_of(data) == layout and decode_room(data) == room
    # the release before marked its rooms 0xc1 and nothing else: the same bytes as ours
    assert stored.whole(room, PREVIOUS)[:1] == b"\xc1"
    newer = b"\x04" + stored.whole(room, CURRENT)[1:]  # a later release's layout 4
    with pytest.raises(UnknownLayout, match="layout 4, which this release does not read"):
        decode_room(newer)


def test_a_node_writes_the_previous_layout_until_the_store_says_current():
    assert written(None) == PREVIOUS
    assert written(b"2") == PREVIOUS and written(b"3") == CURRENT
    for flag in (b"1", b"4", b"current"):
        with pytest.raises(UnknownLayout, match="one release at a time"):
            written(flag)


def test_a_change_that_is_not_only_a_move_is_written_whole():
    (before, after), *_ = _play("kalah", 1)
    with_offer = msgspec.structs.replace(after, offer=P.PendingOffer("draw", 0))
    assert stored.appended(before, with_offer) is None
    assert stored.appended(before, after) is not None
