"""Kalah's endgame table: the exact rest of the game for every position with few seeds left.

What is left of a Kalah game depends only on the seeds still in the pits, not on the stores:
the stores only add their counts to the end result (K8, K9; the game is not cut short at half
the seeds). So the table holds, for every board of at most ``seeds`` seeds in the twelve pits
(both sides non-empty, the player to move the table's "mover"), the *future margin*: the seeds
the mover will put in their store from now to the end, minus the opponent's, with perfect play
by both sides for the largest final margin. The final margin of a position is then its store
difference plus that number, exactly.

Why it can be built bottom-up: a move either puts a seed in a store (the board holds fewer
seeds after it) or keeps every seed lifted on the mover's own side, nearer the mover's store
(K4 with fewer seeds than the distance to the store). So among boards with one seed count, the
*distance* (every seed's pits to go to its owner's store, summed over the board) falls with
every move: boards of one count, taken in order of distance, and counts taken upwards, see
every child's value before its parent's. One entry per board with South to move is enough:
North to move is the same board with the two rows swapped (the ring is symmetric).

Index: each row of six pits holding ``s`` seeds is ranked among the ``C(s + 5, 5)`` rows of
that count (``_ROWS``); a board's index is the offset of its (mover's count, other's count)
block plus ``mover's rank × rows of the other's count + other's rank``. Values are bytes
(margin + 128). The table is valid for ``empty_capture`` as built and any ``seeds`` option
(the seeds only change the total; ``KalahTable.fits`` checks the board's seed count).

Size and time (Python 3.11, one core): the standard rules' table holds every board of at most
``SHIPPED_SEEDS = 14`` seeds, 9,657,700 boards (9.7 MB of values in memory), built in 35.5 s of CPU;
it is shipped built (``engine/data/kalah-table-14.zlib``, 2.4 MB; lzma would be 1.7 MB but
decompresses in 100 ms, not 35) and read once per process at first use (``table``, about 150 ms of
CPU with the row index), so the first expert move or hint of a Kalah game does not wait. A variant's
table (``empty_capture``) is built at first use with ``SEEDS = 10``: 646,646 boards in about 2 s.
Measured against MCTS at equal CPU (``tests/bench/vs_openspiel.py``, the same 100 distinct openings,
200 games), the expert scored 89.0 % with 10 seeds (the table shipped before, 140 KB), 89.8 % with
12 (2.7 M boards, 9.2 s, 634 KB) and 90.2 % with 14: each within the ±2 points such a run carries
(losses 13, 13 and 11; draws 18, 15 and 17).
"""

from __future__ import annotations

import functools
import itertools
import zlib
from math import comb
from pathlib import Path

from engine import kalah as K
from engine.sowing import OVER

SEEDS = 10  # the most seeds on the board a table position holds
S0, S1 = K.SH[6], K.SH[13]
UNKNOWN = 255


def _rows(most: int) -> tuple[dict[bytes, tuple[int, int]], list[list[list[bytes]]]]:
    """Every row of six pits with at most ``most`` seeds: row -> (seeds, rank among rows of
    that count), and the rows by seeds and *distance* (each seed's pits to go to the store)."""
    rank: dict[bytes, tuple[int, int]] = {}
    groups: list[list[list[bytes]]] = [[[] for _ in range(6 * s + 1)] for s in range(most + 1)]
    for s in range(most + 1):
        n = 0
        for cut in itertools.combinations(range(s + 5), 5):  # stars and bars, in a fixed order
            bounds = (-1, *cut, s + 5)
            row = bytes(bounds[k + 1] - bounds[k] - 1 for k in range(6))
            rank[row] = (s, n)
            groups[s][sum(v * (6 - k) for k, v in enumerate(row))].append(row)
            n += 1
    return rank, groups


class KalahTable:
    """The future margin of every board of at most ``seeds`` seeds (the module docstring)."""

    def __init__(
        self, seeds: int = SEEDS, empty_capture: bool = False, values: bytes | None = None
    ) -> None:
        self.seeds, self.empty_capture = seeds, empty_capture
        self.rank, groups = _rows(seeds)
        count = [comb(s + 5, 5) for s in range(seeds + 1)]
        self.count = count
        self.base: dict[tuple[int, int], int] = {}
        size = 0
        for s in range(seeds + 1):
            for mine in range(s + 1):
                self.base[mine, s - mine] = size
                size += count[mine] * count[s - mine]
        if values is not None:  # as built before (``write``)
            if len(values) != size:
                raise ValueError(f"a table of {len(values)} boards; {size} expected")
            self.values = bytearray(values)
            return
        self.values = bytearray([UNKNOWN]) * size
        self._build(groups)

    def index(self, mine: bytes, theirs: bytes) -> int:
        """The table index of a board: the mover's row and the other row, each in sowing order."""
        m, rm = self.rank[mine]
        t, rt = self.rank[theirs]
        return self.base[m, t] + rm * self.count[t] + rt

    def future(self, x: int) -> int:
        """The future margin of packed board ``x`` (live, at most ``seeds`` on the board) for
        its player to move."""
        data = x.to_bytes(15, "little")
        if x & 1:
            i = self.index(data[8:14], data[1:7])
        else:
            i = self.index(data[1:7], data[8:14])
        return self.values[i] - 128

    def fits(self, x: int, total: int) -> bool:
        """Is packed board ``x`` (of a game with ``total`` seeds) in the table?"""
        return total - (x >> S0 & 255) - (x >> S1 & 255) <= self.seeds

    def _build(self, groups: list[list[list[bytes]]]) -> None:
        values, index, ec, play = self.values, self.index, self.empty_capture, K.play_packed
        for n in range(1, self.seeds + 1):
            for distance in range(6 * n + 1):
                for mine in range(1, n):  # both rows non-empty: the game is live
                    theirs_seeds = n - mine
                    for d1 in range(
                        max(0, distance - 6 * theirs_seeds), min(6 * mine, distance) + 1
                    ):
                        for row in groups[mine][d1]:
                            for other in groups[theirs_seeds][distance - d1]:
                                x = int.from_bytes(b"\0" + row + b"\0" + other + b"\0", "little")
                                best = -128
                                for i in range(6):
                                    if not row[i]:
                                        continue
                                    y = play(x, i, ec)
                                    data = y.to_bytes(15, "little")
                                    v = data[7] - data[14]
                                    if not y & OVER:
                                        if y & 1:
                                            v -= values[index(data[8:14], data[1:7])] - 128
                                        else:
                                            v += values[index(data[1:7], data[8:14])] - 128
                                    if v > best:
                                        best = v
                                values[index(row, other)] = best + 128


# The table for the standard rules as shipped (zlib, 2.4 MB, 14 seeds): read in 150 ms where
# building it takes 35 s, so a server's first Kalah hint or expert move does not wait
# for it. ``write`` makes it; tests/engine/test_expert.py checks it against a fresh build.
# Variants (``empty_capture``) build a table of ``SEEDS`` at first use instead.
SHIPPED_SEEDS = 14
SHIPPED = Path(__file__).resolve().parent.parent / "data" / f"kalah-table-{SHIPPED_SEEDS}.zlib"


def table(empty_capture: bool = False) -> KalahTable:
    """The table for ``empty_capture``: for the standard rules the shipped one (built, the same,
    where the file is missing), for the variant one of ``SEEDS`` built once per process."""
    if empty_capture:
        return _built(True, SEEDS)
    return _shipped()


@functools.cache
def _shipped() -> KalahTable:
    if SHIPPED.is_file():
        return KalahTable(SHIPPED_SEEDS, False, zlib.decompress(SHIPPED.read_bytes()))
    return _built(False, SHIPPED_SEEDS)


@functools.cache
def _built(empty_capture: bool, seeds: int) -> KalahTable:
    return KalahTable(seeds, empty_capture)


def write(path: Path = SHIPPED) -> None:
    """Build the shipped table and write it where ``table`` reads it."""
    path.write_bytes(zlib.compress(bytes(KalahTable(SHIPPED_SEEDS, False).values), 9))
