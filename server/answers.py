"""Exactly once: the answers a room keeps for intent ids.

The rule every intent with an ``id`` follows:

* the first arrival of an id is judged, and its answer (the ``ack``, the
  ``error`` or the ``hint``) is kept with the room, in the store;
* a later arrival of the same id from the same seat owner, with the same
  content, gets that answer again and changes nothing — on any node, after
  any reconnect or restart;
* the same id with other content in the same game is refused ``id-reused``;
  in a later game it names a new intent (ids are scoped to seat + game);
* the room keeps the answers of its latest ``ANSWERS_KEPT`` ids; an older
  id is judged afresh (a resent ``move`` or ``undo`` is then ``stale``).

Answers that depend on no judgement of the room (``busy``, ``internal``,
``rate-limited``, a message that did not decode, anything a spectator
sends) are not kept: a resend is judged as if it were the first arrival.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from server import protocol as P
from server.room import Answer, Refused, Reply, Room

ANSWERS_KEPT = 64

# Kept answers are one msgpack blob in the room, and an ack is kept as its version: the room
# is decoded on every change and read, and 64 answers kept as nested structs made an Oware
# room at 141 moves 2.6x the bytes and 2.6x as slow to decode (435-550 us against 166-184 us,
# measured with load 26 on 2 cores).
_answers = msgspec.msgpack.Decoder(list[Answer])
_encode = msgspec.msgpack.Encoder().encode
_reply = msgspec.json.Decoder(Reply)


def digest(intent: msgspec.Struct) -> bytes:
    """A fingerprint of an intent's content (its canonical encoding)."""
    return hashlib.blake2b(P.encode(intent), digest_size=8).digest()


def _key(who: str, intent_id: str) -> str:
    return f"{who}:{intent_id}"


def recall(room: Room, intent: Any, who: str | None) -> Reply | None:
    """The kept answer to this intent if it is a resend; ``id-reused`` if the id
    named other content in this game; None if it is to be judged."""
    intent_id = getattr(intent, "id", None)
    if intent_id is None or who is None or not room.answers:
        return None
    key = _key(who, intent_id)
    for answer in _answers.decode(room.answers):
        if answer.key == key:
            if answer.digest == digest(intent):
                if answer.sent is None:
                    return P.Ack(id=intent_id, version=answer.version)
                return _reply.decode(answer.sent)  # a resend: rare, decoded only then
            if answer.game_no == room.game_no:
                raise Refused(
                    "id-reused",
                    f"The id {intent_id!r} already named another intent in this game; "
                    "use a new id for each intent.",
                )
            return None  # an id of an earlier game: a new intent
    return None


def remember(room: Room, intent: Any, who: str, answer: Reply, game_no: int) -> Room:
    """``room`` with ``answer`` kept for ``intent``'s id, judged in game ``game_no``."""
    key = _key(who, intent.id)
    answers = [a for a in _answers.decode(room.answers or b"\x90") if a.key != key]
    if isinstance(answer, P.Ack):
        kept = Answer(key, game_no, digest(intent), answer.version)
    else:
        kept = Answer(key, game_no, digest(intent), sent=P.encode(answer))
    answers.append(kept)
    return msgspec.structs.replace(room, answers=_encode(answers[-ANSWERS_KEPT:]))
