"""Which layout a stored room is in, and which one a node writes.

A room's ``data`` in the store (``server/rooms/stored.py``) says its layout in its first
byte, so that two releases can share a store during a rolling upgrade: each release reads
the layout of the release before and its own, and writes the older one until the operator
says every node reads the newer (``nyumba layout current``: a flag the store holds,
``server/store/layouts.py``; deploy/README.md, "Upgrading").

    1  a plain msgpack ``Room`` (its first byte a map's): written before moves were appended
    2  0xc1 (a byte msgpack never uses) | base length | base | moves: up to commit 8597019
    3  the same shape, its first byte the layout's number (3): the release before
    4  the same, and a clocked room's moves are appended too: a move's record carries the
       clock after it (``Notice.clock``), which the releases before ignore (a room of
       layout 3 read with such a record would show the clock of its base)

From layout 3 on the first byte is the layout's number (under 0x80: a msgpack integer,
never a map, so never layout 1). A release that changes the shape of what a stored room
holds (the base, a move's record) makes a new number, reads it beside the one before, and
writes it only once the store's flag names it; the compare-and-set appends a move only to a
room whose first byte is the one the node writes (``server/store/scripts.py``).
"""

from __future__ import annotations

PREVIOUS = 3  # what the release before this one writes once switched (it reads 1, 2 and 3)
CURRENT = 4  # this release's own
UNSET = 2  # what a store whose flag was never set holds: the layout of the releases before it
READS = (1, 2, 3, 4)
# What this release writes, as the flag says: 2 too, so that a store nobody switched (its
# flag unset) still serves nodes of every release since 8597019 and this one beside them.
WRITES = (UNSET, PREVIOUS, CURRENT)
CLOCKED = 4  # the first layout whose appended moves carry the clock (``stored.appended``)
_MARKS = {2: b"\xc1", 3: b"\x03", 4: b"\x04"}


class UnknownLayout(ValueError):
    """A stored room, or the store's flag, names a layout this release does not know."""


def mark(layout: int) -> bytes:
    """The first byte of a room stored in ``layout`` (2, 3 or 4)."""
    return _MARKS[layout]


def layout_of(data: bytes) -> int:
    """The layout of a stored room's ``data``."""
    first = data[0]
    if first == 0xC1:
        return 2
    if first >= 0x80:
        return 1
    if not 3 <= first <= CURRENT:  # a number from layout 3 on
        raise UnknownLayout(
            f"a room stored in layout {first}, which this release does not read (it reads "
            f"{', '.join(map(str, READS))}): a newer release wrote it"
        )
    return first


def written(flag: bytes | str | None) -> int:
    """The layout a node writes when the store's flag says ``flag`` (None: unset)."""
    text = str(UNSET) if flag is None else flag.decode() if isinstance(flag, bytes) else flag
    if text not in {str(n) for n in WRITES}:
        raise UnknownLayout(
            f"the store asks for layout {text!r}; this release writes "
            f"{', '.join(map(str, WRITES[:-1]))} or {WRITES[-1]}"
            " (an upgrade may cross one release at a time)"
        )
    return int(text)
