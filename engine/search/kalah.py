"""Kalah's game tree for the search, on packed boards with ``engine.kalah.play_packed``.

Move ordering: extra turns (K5) first, then by seeds gained in the mover's store. Evaluation:
the store difference, in quarter seeds; a store past half the seeds is a won game (K9),
settled without search.
Past the horizon a quiescence search follows extra turns and captures for up to ``QUIESCE``
plies. (Measured against OpenSpiel's MCTS, ``tests/bench/vs_openspiel.py``, 100 games each at
10,863 simulations: stores alone scored 76.5 %, stores 4 and own-side seeds 1 68 %.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import kalah as K
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
