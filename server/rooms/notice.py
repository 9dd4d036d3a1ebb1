"""What a room's channel carries to every node: one ``Notice`` per stored
change (msgpack), published by the compare-and-set (``server/store/store.py``) and
forwarded by each node's fan-out (``server/live/fanout.py``)."""

from __future__ import annotations

import enum

import msgspec

from server.rooms.clock import ClockRec


class NoticeKind(enum.StrEnum):
    """What a notice on a room's channel says (one letter on the wire)."""

    STATE = "S"  # a new room revision: forward ``payload``, the encoded ``state`` message
    PRESENCE = "P"  # presence changed: rebuild the state and forward it
    EVENT = "E"  # ``payload`` is an event message (an offer's news) to forward as it is


class Notice(msgspec.Struct, array_like=True, frozen=True, gc=False, omit_defaults=True):
    """What a room's channel carries to every node. For ``STATE``, ``seats``
    are the seat owners' token hashes (so nodes can tell each connection its
    sides), ``computer`` the side the computer must play now, ``stamp`` the
    revision's stamp and ``base`` the stamp of the revision it replaced (a node
    that forwarded another revision under that number knows the store's history
    is not the one it showed: ``server/live/fanout.py``).

    A move's notice carries no ``payload`` and no ``seats`` (they did not change) but
    ``moved``, the encoded ``moved`` message without its ``id`` (``server/rooms/moved.py``),
    with ``side`` (who moved), ``id`` (the intent's, for the mover's connections) and
    ``position`` (the new position's text): a node draws the full ``state`` for its
    connections that want one from the one it forwarded before (``server/rooms/delta.py``).
    The same bytes are what the store appends to the room (``state``, ``cut``, ``kept``)."""

    rev: int
    kind: NoticeKind
    payload: bytes = b""
    seats: list[str | None] = []
    computer: int | None = None
    stamp: str = ""
    base: str = ""
    moved: bytes = b""
    side: int = 0
    id: str | None = None
    position: str = ""
    # What the stored room needs besides (the notice of a move is also the record the store
    # appends to the room, server/rooms/stored.py): the engine state after the move, and the
    # kept answers (``cut`` bytes dropped from the front, ``kept`` added); from layout 4 on
    # (``layout.CLOCKED``) a clocked room's clock after the move (the releases before ignore
    # it: their nodes read only rooms whose clocked moves were written whole).
    state: bytes = b""
    cut: int = 0
    kept: bytes = b""
    clock: ClockRec | None = None


_notice_enc = msgspec.msgpack.Encoder()
_notice_dec = msgspec.msgpack.Decoder(Notice)


def encode_notice(notice: Notice) -> bytes:
    return _notice_enc.encode(notice)


def decode_notice(data: bytes) -> Notice:
    return _notice_dec.decode(data)


# Heard on a Cluster after a subscription moved (notices missed): the node reads the room again.
REREAD = encode_notice(Notice(0, NoticeKind.PRESENCE))
