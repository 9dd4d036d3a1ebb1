"""How a room is written to the store: whole, or as one move appended.

A room's ``data`` in the store (``server/store/store.py``) is a base — the whole ``Room``,
msgpack — followed by the moves made since, each the move's notice (``notice.Notice``: its
``moved`` message, the stamp, the engine state after it, the kept answer and, in a clocked
room from layout 4 on, the clock after it; ``Ply`` is what is read from it): a move's compare-and-set sends that notice once, and the store both
appends it and publishes it, where it used to send the whole room and a whole state
(kilobytes, growing with the game). Every other change — and every
``TAIL``-th move, so that reading a room stays short — writes the room whole again. Reading
is ``decode_room``: the base, then the moves applied (no engine: each carries its state).

    mark (1 byte) | base length (4 bytes) | base | (length (2 bytes) | Notice)*

The mark says the layout (``server/rooms/layout.py``), and a node writes the one the store
asks for. A room stored in another layout this release reads (a plain msgpack ``Room`` as
the earliest versions wrote it, or the other mark) is read as it is, and its next change
writes it whole in the node's layout (the store refuses an append under another mark).
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.rooms import protocol as P
from server.rooms.answers import WIDTH
from server.rooms.clock import ClockRec
from server.rooms.layout import CLOCKED, layout_of, mark
from server.rooms.moved import decode_moved, expand_step
from server.rooms.notice import Notice, decode_notice
from server.rooms.room import Played, Room, encode_room

TAIL = 32  # moves appended after a base before the room is written whole again


def whole(room: Room, layout: int) -> bytes:
    """The room as a base with no moves after it, in ``layout`` (2, 3 or 4)."""
    base = encode_room(room)
    return mark(layout) + len(base).to_bytes(4, "big") + base


# What a move changes in the room (``played``); every other field must be the very
# object it was (``changed`` copies them) or equal to it.
# From layout 4 on (``CLOCKED``) the record carries the clock too, which a move changes.
_MOVED = {"rev", "stamp", "version", "state", "history", "outcome", "last", "offer", "kept"}
_SAME = [name for name in Room.__struct_fields__ if name not in _MOVED]
_SAME_CLOCKED = [name for name in _SAME if name != "clock"]


def appended(before: Room, after: Room, layout: int) -> tuple[int, bytes] | None:
    """Whether the store may append the move that made ``after`` from ``before`` to a room
    stored in ``layout``: it did and nothing else changed (``played`` reading the record back
    gives ``after``; a clocked room's clock is in the record from layout 4 on, before which
    a clocked move is written whole). Then the kept answers' change, ``(cut, kept)``, for the
    move's notice, which is the record; None when the room must be written whole."""
    last = after.last
    if (
        last is None
        or after.outcome is not None
        or after.offer is not None
        or before.tail >= TAIL - 1
        or after.rev != before.rev + 1
        or after.version != before.version + 1
        or len(after.history) != len(before.history) + 1
    ):
        return None
    for name in _SAME_CLOCKED if layout >= CLOCKED else _SAME:
        a, b = getattr(after, name), getattr(before, name)
        if a is not b and a != b:
            return None
    ply = after.history[-1]
    if (ply.move, ply.side, ply.id) != (last.move, last.side, last.id) or after.history[
        :-1
    ] != before.history:
        return None
    if after.kept == before.kept:
        return 0, b""
    kept = after.kept[-WIDTH:]
    cut = len(before.kept) + WIDTH - len(after.kept)
    if cut < 0 or before.kept[cut:] + kept != after.kept:
        return None
    return cut, kept


def record(notice: bytes) -> bytes:
    """What the store appends before a move's notice: its length (the notice follows)."""
    if len(notice) > 0xFFFF:
        raise ValueError("a move's notice over 64 KiB")
    return len(notice).to_bytes(2, "big")


class Ply(msgspec.Struct, gc=False):
    """A move appended to a stored room (server/rooms/stored.py): the revision's stamp, the
    engine state after it, the move, the side and the intent id, its steps (compact, as in
    ``moved``), the kept answers: ``cut`` bytes dropped from the front, ``kept`` added, and the
    clock after it (None: the room's base has it; always so before layout 4). Stored as the
    move's notice (``notice.Notice``), which carries all of it."""

    stamp: str
    state: bytes
    move: str
    side: int
    id: str | None
    steps: list[list[Any]]
    cut: int
    kept: bytes
    clock: ClockRec | None = None


def ply_of(n: Notice) -> Ply:
    m = decode_moved(n.moved)
    return Ply(n.stamp, n.state, m.move, n.side, n.id, m.steps, n.cut, n.kept, n.clock)


# A room in the store: msgpack, one decoder built once (``room.encode_room`` writes it).
_decode_room = msgspec.msgpack.Decoder(Room).decode


def decode_room(data: bytes) -> Room:
    """A room as stored in any layout this release reads (``layout``: a plain record, or a
    one-byte mark, a base record and the moves appended after it)."""
    if layout_of(data) == 1:
        return _decode_room(data)
    end = 5 + int.from_bytes(data[1:5], "big")
    room = _decode_room(data[5:end])
    plies = []
    while end < len(data):
        size = int.from_bytes(data[end : end + 2], "big")
        plies.append(ply_of(decode_notice(data[end + 2 : end + 2 + size])))
        end += 2 + size
    if plies:
        room = played(room, *plies)
    room.tail = len(plies)
    return room


def played(room: Room, *plies: Ply) -> Room:
    """``room`` after the appended moves ``plies`` (none of which ended the game)."""
    history, kept, last, clock = list(room.history), room.kept, room.last, room.clock
    for ply in plies:
        if ply.clock is not None:
            clock = ply.clock
        history.append(Played(ply.move, ply.side, ply.id))
        steps = [expand_step(s, ply.side) for s in ply.steps]
        last = P.LastMove(move=ply.move, side=ply.side, steps=steps, id=ply.id)
        kept = kept[ply.cut :] + ply.kept
    return msgspec.structs.replace(
        room,
        rev=room.rev + len(plies),
        stamp=plies[-1].stamp,
        version=room.version + len(plies),
        state=plies[-1].state,
        history=history,
        outcome=None,
        last=last,
        offer=None,
        kept=kept,
        clock=clock,
    )
