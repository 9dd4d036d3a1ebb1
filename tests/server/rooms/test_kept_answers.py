"""The answers a room keeps for intent ids (server/rooms/answers.py), without a server:
what a resend gets, how many are kept, and rooms written by the previous version."""

from __future__ import annotations

import msgspec
import pytest

from server.rooms import answers as A
from server.rooms import protocol as P
from server.rooms.room import Refused, Room, encode_room
from server.rooms.stored import decode_room

WHO = "0123456789abcdef"


def _room() -> Room:
    return Room(id="r1", game="kalah", options={}, mode="friend", handover_level="advanced")


def _move(v: int, move: str = "c", intent_id: str | None = None) -> P.Move:
    return P.Move(room="r1", version=v, move=move, id=intent_id or f"m{v}")


def _keep(room: Room, intent, answer) -> Room:
    room = A.remember(room, intent, WHO, answer, room.game_no)
    return decode_room(encode_room(room))  # as every node reads it back from the store


def test_a_resend_gets_its_ack_and_other_content_is_refused():
    room = _keep(_room(), _move(0), P.Ack(id="m0", version=1))
    assert A.recall(room, _move(0), WHO) == P.Ack(id="m0", version=1)
    assert A.recall(room, _move(0), "another-owner---") is None  # ids are the owner's own
    assert A.recall(room, _move(1), WHO) is None  # a new id: judged
    with pytest.raises(Refused) as refused:
        A.recall(room, _move(0, move="d", intent_id="m0"), WHO)
    assert refused.value.code == "id-reused"
    later = msgspec.structs.replace(room, game_no=room.game_no + 1)
    assert A.recall(later, _move(0, move="d", intent_id="m0"), WHO) is None  # a new game


def test_an_error_or_hint_is_kept_as_it_was_sent():
    hint = P.Hint(room="r1", id="h1")
    sent = P.HintMove(id="h1", move="e", version=3)
    error = P.error("stale", id="m9")
    room = _keep(_room(), hint, sent)
    room = _keep(room, _move(9), error)
    assert A.recall(room, hint, WHO) == sent
    assert A.recall(room, _move(9), WHO) == error


def test_the_latest_64_ids_are_kept_and_their_replies_go_with_them():
    room = _keep(_room(), P.Hint(room="r1", id="h0"), P.error("busy", id="h0"))
    for v in range(A.ANSWERS_KEPT):
        room = _keep(room, _move(v), P.Ack(id=f"m{v}", version=v + 1))
    assert len(room.kept) == A.ANSWERS_KEPT * A.WIDTH
    assert A.recall(room, P.Hint(room="r1", id="h0"), WHO) is None  # pushed out
    assert room.replies == {}  # and its JSON with it
    assert A.recall(room, _move(0), WHO) == P.Ack(id="m0", version=1)
    room = _keep(room, _move(64), P.Ack(id="m64", version=65))
    assert A.recall(room, _move(0), WHO) is None
    assert A.recall(room, _move(1), WHO) == P.Ack(id="m1", version=2)


def test_an_id_kept_again_in_a_later_game_replaces_its_record():
    room = _keep(_room(), _move(0), P.error("illegal", id="m0"))
    room = msgspec.structs.replace(room, game_no=2)
    room = _keep(room, _move(0, move="d", intent_id="m0"), P.Ack(id="m0", version=7))
    assert len(room.kept) == A.WIDTH and room.replies == {}
    assert A.recall(room, _move(0, move="d", intent_id="m0"), WHO) == P.Ack(id="m0", version=7)


class _Written(msgspec.Struct, array_like=True):  # how the previous version kept answers
    key: str
    game_no: int
    digest: bytes
    version: int = -1
    sent: bytes | None = None


def test_answers_kept_by_the_previous_version_are_still_answered():
    sent = P.error("not-your-turn", id="m5")
    written = [
        _Written(f"{WHO}:m4", 1, A.digest(_move(4)), 5),
        _Written(f"{WHO}:m5", 1, A.digest(_move(5)), sent=P.encode(sent)),
    ]
    room = msgspec.structs.replace(_room(), answers=msgspec.msgpack.encode(written))
    room = decode_room(encode_room(room))
    assert A.recall(room, _move(4), WHO) == P.Ack(id="m4", version=5)
    assert A.recall(room, _move(5), WHO) == sent
    room = _keep(room, _move(6), P.Ack(id="m6", version=7))
    assert room.answers == b"" and len(room.kept) == 3 * A.WIDTH
    assert A.recall(room, _move(4), WHO) == P.Ack(id="m4", version=5)
    assert A.recall(room, _move(5), WHO) == sent
