"""Exactly once: the answers a room keeps for intent ids.

The rule every intent with an ``id`` follows:

* the first arrival of an id is judged, and its answer (the ``ack``, the
  ``error`` or the ``hint``) is kept with the room, in the store;
* a later arrival of the same id from the same seat owner, with the same
  content, gets that answer again and changes nothing — on any node, after
  any reconnect or restart;
* the same id with other content in the same game is refused ``id-reused``;
  in a later game it names a new intent, whatever its content (ids are scoped
  to seat + game). An answer belongs to the game the room is in once it is
  given: the ``rematch`` (or accepting ``reply``) that starts a game is kept
  with that game, so its resend is answered, not judged again;
* the room keeps the answers of its latest ``ANSWERS_KEPT`` ids; an older
  id is judged afresh (a resent ``move`` or ``undo`` is then ``stale``).

Answers that depend on no judgement of the room (``busy``, ``internal``,
``rate-limited``, a message that did not decode, anything a spectator
sends) are not kept: a resend is judged as if it were the first arrival.

How they are kept: ``Room.kept`` is a row of fixed-width records, oldest
first, one per id — the 8-byte fingerprint of the seat owner's key and the
id, the 8-byte fingerprint of the intent's content, the game it was judged
in and, for an ``ack``, the version it gave. Any other answer's JSON waits in
``Room.replies`` under the same key fingerprint. Finding an id is a search of
those bytes, keeping one is a slice and a join: nothing is decoded or
encoded. (Kept as a msgpack list that msgspec decoded and encoded again on
each move, 64 answers cost 10 µs to look an id up and 17 µs to keep one:
about 8 % of the server's CPU per move at the load bench's closed loop. Here
both take about 1 µs.) Two fingerprints of 64 bits each: a mix-up within one
room's 64 ids is not a practical concern.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import msgspec

from server.rooms import protocol as P
from server.rooms.room import Change, Context, Position, Refused, Reply, Room, changed

ANSWERS_KEPT = 64

_RECORD = struct.Struct(">8s8sIi")  # key fingerprint, content fingerprint, game, version
WIDTH = _RECORD.size  # 24 bytes
REPLY = -(2**31)  # the version of a record whose answer is in ``Room.replies``
_reply = msgspec.json.Decoder(Reply)


class _Written(msgspec.Struct, array_like=True):
    """A kept answer as the previous version wrote it (``Room.answers``)."""

    key: str
    game_no: int
    digest: bytes
    version: int = -1
    sent: bytes | None = None


_written = msgspec.msgpack.Decoder(list[_Written])


def _current(room: Room) -> Room:
    """``room`` with answers kept by the previous version in today's records (once)."""
    if not room.answers:
        return room
    kept, replies = b"", dict(room.replies)
    for old in _written.decode(room.answers)[-ANSWERS_KEPT:]:
        kid = hashlib.blake2b(old.key.encode(), digest_size=8).digest()
        if old.sent is None:
            kept += _RECORD.pack(kid, old.digest, old.game_no, old.version)
        else:
            kept += _RECORD.pack(kid, old.digest, old.game_no, REPLY)
            replies[kid] = old.sent
    return msgspec.structs.replace(room, kept=kept + room.kept, replies=replies, answers=b"")


def digest(intent: msgspec.Struct) -> bytes:
    """A fingerprint of an intent's content (its canonical encoding)."""
    return hashlib.blake2b(P.encode(intent), digest_size=8).digest()


def _kid(who: str, intent_id: str) -> bytes:
    """The fingerprint of the seat owner's key and the intent id."""
    return hashlib.blake2b(f"{who}:{intent_id}".encode(), digest_size=8).digest()


def _find(kept: bytes, kid: bytes) -> int:
    """The offset of ``kid``'s record in ``kept``, or -1."""
    at = kept.find(kid)
    while at != -1 and at % WIDTH:  # matched across records' fields: look on
        at = kept.find(kid, at + 1)
    return at


def recall(room: Room, intent: Any, who: str | None) -> Reply | None:
    """The kept answer to this intent if it is a resend; ``id-reused`` if the id
    named other content in this game; None if it is to be judged."""
    intent_id = getattr(intent, "id", None)
    if intent_id is None or who is None:
        return None
    room = _current(room)
    if not room.kept:
        return None
    kid = _kid(who, intent_id)
    at = _find(room.kept, kid)
    if at == -1:
        return None
    _, content, game_no, version = _RECORD.unpack_from(room.kept, at)
    if game_no != room.game_no:
        return None  # an id of an earlier game: a new intent, whatever its content
    if content == digest(intent):
        if version != REPLY:
            return P.Ack(id=intent_id, version=version)
        return _reply.decode(room.replies[kid])  # a resend: rare, decoded only then
    raise Refused(
        "id-reused",
        f"The id {intent_id!r} already named another intent in this game; "
        "use a new id for each intent.",
    )


def remember(room: Room, intent: Any, who: str, answer: Reply, game_no: int) -> Room:
    """``room`` with ``answer`` kept for ``intent``'s id, judged in game ``game_no``."""
    kid = _kid(who, intent.id)
    room = _current(room)
    kept = room.kept
    gone: list[bytes] = []  # keys whose reply JSON goes with their record
    at = _find(kept, kid)
    if at != -1:  # the id's earlier answer (of an earlier game) gives way
        if _RECORD.unpack_from(kept, at)[3] == REPLY:
            gone.append(kid)
        kept = kept[:at] + kept[at + WIDTH :]
    cut = max(0, len(kept) - (ANSWERS_KEPT - 1) * WIDTH)  # the oldest make room
    for i in range(0, cut, WIDTH):
        old, _, _, version = _RECORD.unpack_from(kept, i)
        if version == REPLY:
            gone.append(old)
    ack = isinstance(answer, P.Ack)
    version = answer.version if isinstance(answer, P.Ack) else REPLY
    record = _RECORD.pack(kid, digest(intent), game_no, version)
    replies = room.replies
    if gone or not ack:
        replies = {k: v for k, v in replies.items() if k not in gone}
        if not ack:
            replies[kid] = P.encode(answer)
    return msgspec.structs.replace(room, kept=kept[cut:] + record, replies=replies)


class Keep(msgspec.Struct, frozen=True):
    """Keep ``answer`` to ``intent`` (a hint, answered after the room was
    judged); if a racing resend kept one first, that one stands."""

    intent: Any
    answer: Reply
    game_no: int


def keep(room: Room, pos: Position, k: Keep, ctx: Context) -> Change:
    kept = recall(room, k.intent, ctx.who)
    if kept is not None or ctx.who is None:
        return Change(room, reply=kept or k.answer, resent=kept is not None)
    new = remember(changed(room), k.intent, ctx.who, k.answer, k.game_no)
    return Change(new, reply=k.answer, seen=False)
