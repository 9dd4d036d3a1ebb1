"""Kalah's game tree for the search, on packed boards with ``engine.kalah.play_packed``.

Move ordering: extra turns (K5) first, then by seeds gained in the mover's store. Evaluation:
the store difference, in quarter seeds; a store past half the seeds is a won game (K9),
settled without search.
Past the horizon a quiescence search follows extra turns and captures for up to ``QUIESCE``
plies. ``KalahExpertTree`` (the expert level and the hint) values boards of few seeds exactly
from the endgame table (``engine.search.kalah_table``) and the others with ``WEIGHTS``. (Measured against OpenSpiel's MCTS, ``tests/bench/vs_openspiel.py``, 100 games each at
10,863 simulations: stores alone scored 76.5 %, stores 4 and own-side seeds 1 68 %.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import kalah as K
from engine.search import kalah_table
from engine.search.alphabeta import WIN, won
from engine.search.tree import Kid, Noisy, Plain
from engine.sowing import OVER

QUIESCE = 6  # plies of extra turns and captures followed past the horizon
S0, S1 = K.SH[6], K.SH[13]
SH = K.SH


class KalahTree(Plain):
    quiesce = QUIESCE
    clock = 511

    def __init__(self, game: K.Kalah, state: K.KalahState) -> None:
        self.root = K.pack(state)
        self.empty_capture = game.empty_capture
        self.half = game.total // 2

    def evaluate(self, x: int) -> int:
        a, c = x >> S0 & 255, x >> S1 & 255
        half = self.half
        if a > half:
            return (WIN + 4 * (a - c)) if not x & 1 else -(WIN + 4 * (a - c))
        if c > half:
            return (WIN + 4 * (c - a)) if x & 1 else -(WIN + 4 * (c - a))
        return 4 * (c - a) if x & 1 else 4 * (a - c)

    def settled(self, x: int) -> int | None:
        if x >> S0 & 255 > self.half or x >> S1 & 255 > self.half:
            return self.evaluate(x)
        return None

    def children(self, x: int) -> list[Kid]:
        p, st, before = _mover(x)
        play, empty_capture = K.play_packed, self.empty_capture
        out: list[Kid] = []
        for i in K.PITS[p]:
            if x >> SH[i] & 255:
                c = play(x, i, empty_capture)
                key = (c >> st & 255) - before
                if c & OVER:
                    out.append((key, i, c, _final(c, p), False))
                elif c & 1 == p:
                    out.append((key + 100, i, c, None, True))  # an extra turn
                else:
                    out.append((key, i, c, None, False))
        out.sort(reverse=True)
        return out

    def noisy(self, x: int) -> Iterator[Noisy]:
        """Extra turns and captures, pit by pit."""
        p, st, before = _mover(x)
        play, empty_capture = K.play_packed, self.empty_capture
        for i in K.PITS[p]:
            if not x >> SH[i] & 255:
                continue
            y = play(x, i, empty_capture)
            if y & OVER:
                yield y, _final(y, p), False
            elif y & 1 == p:
                yield y, None, True
            elif (y >> st & 255) - before >= 2:  # a capture
                yield y, None, False

    def public(self, move: Any) -> int:
        return K.MOVE_OF[move]


def _mover(x: int) -> tuple[int, int, int]:
    """The player to move, the shift of their store and the seeds in it."""
    p = x & 1
    st = S1 if p else S0
    return p, st, x >> st & 255


def _final(y: int, p: int) -> int:
    """The value of finished board ``y`` for player ``p``."""
    a, c = y >> S0 & 255, y >> S1 & 255
    return won(c - a if p else a - c)


# The expert evaluation's weights, in quarter seeds: store difference, seeds on one's own
# side, pits whose seeds reach the store exactly (an extra turn waiting) for the mover and for
# the opponent, the largest capture the opponent threatens (the seeds it would put in its store
# by one sowing) and the largest the mover threatens. Mini-matches against the advanced level at
# its own 15,000 nodes, 60 games each (``engine.ai``): stores only (with the endgame table)
# 53 %; (4, 1, 2, 2, 2, 1) 57 %; (4, 2, 2, 2, 2, 1) 48 %; (4, 1, 0, 0, 2, 0) 60 %, kept;
# (4, 1, 0, 0, 3, 0) 57 %; (4, 0, 0, 0, 2, 0) 55 %: a game of 60 swings about ±6 points, so
# the mover's own extra turns and captures (which the quiescence search follows anyway) were
# left at 0. What decides is the search's depth on top of this.
WEIGHTS = (4, 1, 0, 0, 2, 0)


class KalahExpertTree(KalahTree):
    """Kalah for the expert level and the hint: the endgame table (``kalah_table``) where it
    is valid, and an evaluation with more of the position than the stores (``WEIGHTS``)."""

    def __init__(self, game: K.Kalah, state: K.KalahState) -> None:
        super().__init__(game, state)
        self.total = game.total
        self.table = kalah_table.table(game.empty_capture, kalah_table.SEEDS)
        self.rows: dict[bytes, tuple[int, int, tuple[int, ...]]] = {}

    def settled(self, x: int) -> int | None:
        if x >> S0 & 255 > self.half or x >> S1 & 255 > self.half:
            return super().evaluate(x)
        if self.table.fits(x, self.total):
            return self.exact(x)
        return None

    def exact(self, x: int) -> int:
        """The value of a board in the table: its final margin with perfect play."""
        a, c = x >> S0 & 255, x >> S1 & 255
        return won((c - a if x & 1 else a - c) + self.table.future(x))

    def evaluate(self, x: int) -> int:
        a, c = x >> S0 & 255, x >> S1 & 255
        half = self.half
        if a > half or c > half:
            return super().evaluate(x)
        if self.total - a - c <= self.table.seeds:
            return self.exact(x)
        data = x.to_bytes(15, "little")
        if x & 1:
            mine, theirs, store = data[8:14], data[1:7], c - a
        else:
            mine, theirs, store = data[1:7], data[8:14], a - c
        rows = self.rows
        m = rows.get(mine) or self._row(mine)
        t = rows.get(theirs) or self._row(theirs)
        w = WEIGHTS
        v = w[0] * store + w[1] * (m[0] - t[0]) + w[2] * m[1] - w[3] * t[1]
        ec = self.empty_capture
        if t[2]:  # the opponent's captures: the quiescence search does not see them
            risk = 0
            for j in t[2]:
                n = mine[5 - j]
                if (n or ec) and n + 1 > risk:
                    risk = n + 1
            v -= w[4] * risk
        if w[5] and m[2]:
            threat = 0
            for j in m[2]:
                n = theirs[5 - j]
                if (n or ec) and n + 1 > threat:
                    threat = n + 1
            v += w[5] * threat
        return v

    def _row(self, row: bytes) -> tuple[int, int, tuple[int, ...]]:
        """One side's seeds, its pits that reach the store exactly, and the empty pits of
        that side its own sowing can end in (capture squares), by row index."""
        extra = sum(1 for k in range(6) if row[k] == 6 - k)
        lands = tuple(j for j in range(6) if not row[j] and any(row[i] == j - i for i in range(j)))
        out = (sum(row), extra, lands)
        self.rows[row] = out
        return out
