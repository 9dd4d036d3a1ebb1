"""Shared machinery of the sowing games (Kalah, Oware): packed boards and sowing tables.

Each family keeps its rules in one private function that works on a *packed board*: a single
Python int. Bit 0 is the player to move (0 South, 1 North), bit 1 is set once the game is
over, bit 2 marks an Oware game ended by repetition (O11). Ring field ``k`` (a pit, a store or
a score tray) holds its seed count in 8 bits at ``shift(k)``. Sowing ``n`` seeds from a pit is
then one integer addition of a precomputed *add-vector* (+1 in every field sown, −n in the
origin), and "is this side empty" is one AND with a mask: that is what makes random playouts
fast in pure Python. The public, immutable API packs a state, calls the same function and
unpacks the result, so there is one copy of the rules.

>>> b = pack([4, 0, 2], to_move=1)
>>> unpack(b, 3), b & TO_MOVE
([4, 0, 2], 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engine.core import BadNotation

TO_MOVE = 1
OVER = 2
REPETITION = 4
WIDTH = 8  # bits per field: a pit may hold every seed in the game (72 at most)
FIELD = (1 << WIDTH) - 1
PIT_NAMES = "abcdefABCDEF"  # move k is the pit named PIT_NAMES[k] (K3, O2)
SIDE_NAMES = ("South", "North")


def shift(k: int) -> int:
    """Bit offset of ring field ``k`` in a packed board."""
    return WIDTH * (k + 1)


def pack(values: Iterable[int], to_move: int = 0, flags: int = 0) -> int:
    """Packed board holding ``values`` in ring fields 0, 1, …"""
    b = to_move | flags
    for k, v in enumerate(values):
        b |= v << shift(k)
    return b


def unpack(b: int, count: int) -> list[int]:
    """The first ``count`` ring fields of packed board ``b``."""
    return [b >> shift(k) & FIELD for k in range(count)]


def mask(fields: Iterable[int]) -> int:
    """A mask covering the given ring fields (for emptiness tests)."""
    return sum(FIELD << shift(k) for k in fields)


class SowingTables:
    """For each sowing pit ``i`` and seed count ``n``: the ring fields sown, in order
    (``seq[i][n]``), the last one (``last[i][n]``) and the packed add-vector (``add[i][n]``,
    which also empties the origin)."""

    def __init__(
        self,
        ring: int,
        pits: Sequence[int],
        skipped: Callable[[int, int], bool],
        max_seeds: int,
    ) -> None:
        self.seq: list[tuple[tuple[int, ...], ...]] = [() for _ in range(ring)]
        self.add: list[tuple[int, ...]] = [() for _ in range(ring)]
        self.last: list[tuple[int, ...]] = [() for _ in range(ring)]
        for i in pits:
            order = [j % ring for j in range(i + 1, i + 1 + ring) if not skipped(i, j % ring)]
            seqs = [tuple(order[t % len(order)] for t in range(n)) for n in range(max_seeds + 1)]
            self.seq[i] = tuple(seqs)
            self.add[i] = tuple(sum(1 << shift(j) for j in s) - (len(s) << shift(i)) for s in seqs)
            self.last[i] = tuple(s[-1] if s else i for s in seqs)


def read_counts(text: str, tokens: Sequence[str], what: str) -> list[int]:
    """Seed counts from position tokens; BadNotation naming ``text`` otherwise."""
    try:
        counts = [int(t) for t in tokens]
    except ValueError:
        raise BadNotation(f"bad {what} in position {text!r}: {' '.join(tokens)!r}") from None
    if any(c < 0 or c > FIELD for c in counts):
        raise BadNotation(f"bad {what} in position {text!r}: counts must be 0–{FIELD}")
    return counts


def read_side(text: str, token: str) -> int:
    """0 for ``South``, 1 for ``North``; BadNotation otherwise."""
    if token not in SIDE_NAMES:
        raise BadNotation(f"position {text!r} must name the player to move: South or North")
    return SIDE_NAMES.index(token)
