"""A hash tag for each Cluster slot: a key whose name holds ``{tag_of(slot)}`` lives in ``slot``.

A script touches one slot only, so a set that a room's compare-and-set writes must live in the
room's slot: on a Cluster the waiting set (``server/store/waiting.py``) is one set per slot,
each named with its slot's tag. The tags are the shortest hexadecimal numbers that land in each
slot, found once per process (about 0.2 s, on a Cluster only).
"""

from __future__ import annotations

import binascii
import functools

SLOTS = 16384


@functools.cache
def _tags() -> tuple[str, ...]:
    tags: list[str | None] = [None] * SLOTS
    left, n = SLOTS, 0
    while left:
        tag = b"%x" % n
        slot = binascii.crc_hqx(tag, 0) % SLOTS  # a key's slot: CRC16 of its tag (Cluster spec)
        if tags[slot] is None:
            tags[slot] = tag.decode()
            left -= 1
        n += 1
    return tuple(t for t in tags if t is not None)


def tag_of(slot: int) -> str:
    return _tags()[slot]
