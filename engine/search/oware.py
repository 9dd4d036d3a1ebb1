"""Oware's game tree for the search, on packed boards with ``engine.oware.play_packed``.

Move ordering: by seeds captured. Evaluation: four times the captured difference plus the
difference of seeds on each side, in quarter seeds. The repetition rule (O11) depends on the
path, not only the board: the tree keeps the set of boards since the last capture (the game's
own, ``Oware.seen``, at the root, then the line searched, through ``enter``/``leave``) and,
when a capture-free move lands on one of them, lets ``play_packed`` end the game by O11
exactly as the real game would. ``OwareExpertTree`` (the expert level and the hint) adds capture
threats and big pits to the evaluation (``WEIGHTS``) and follows captures past the horizon.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import oware as O
from engine.search.alphabeta import won
from engine.search.tree import Kid, Noisy, Plain
from engine.sowing import OVER

SCORES = O.SCORES  # b >> SCORES: both score trays
T0, T1 = O.SH[12], O.SH[13]


class OwareTree(Plain):
    line = True
    clock = 511

    def __init__(self, game: O.Oware, state: O.OwareState) -> None:
        self.root = O.pack(state)
        self.path = game.seen(state)  # boards since the last capture, the root's included
        self.stack: list[set[int]] = []  # the paths a capture set aside, innermost last
        self.scratch: set[int] = set()

    def evaluate(self, x: int) -> int:
        data = x.to_bytes(15, "little")
        a, c = data[13], data[14]
        pa = sum(data[1:7])
        v = 4 * (a - c) + (2 * pa - 48 + a + c)  # seeds on South's side minus North's
        return -v if x & 1 else v

    def children(self, x: int) -> list[Kid]:
        p = x & 1
        st = T1 if p else T0
        before = x >> st & 255
        scores = x >> SCORES
        play, path, scratch = O.play_packed, self.path, self.scratch
        out: list[Kid] = []
        for i in O.moves_packed(x):
            scratch.clear()
            c = play(x, i, scratch)
            gain = (c >> st & 255) - before
            if not c & OVER and c >> SCORES == scores and c in path:
                c = play(x, i, {c})  # O11: the rules end the game by repetition
            if c & OVER:
                a, n = c >> T0 & 255, c >> T1 & 255
                out.append((gain, i, c, won(n - a if p else a - n), False))
            else:
                out.append((gain, i, c, None, False))
        out.sort(reverse=True)
        return out

    def enter(self, x: int, y: Any) -> None:
        if y >> SCORES != x >> SCORES:  # a capture: O11 starts afresh
            self.stack.append(self.path)
            self.path = {y}
        else:
            self.path.add(y)

    def leave(self, x: int, y: Any) -> None:
        if y >> SCORES != x >> SCORES:
            self.path = self.stack.pop()
        else:
            self.path.discard(y)


# The expert evaluation's weights, in quarter seeds: captured difference, seeds on one's own
# side, the largest capture the mover can make at once and the largest the opponent threatens
# (pits of one or two seeds in reach of a sowing's last seed, O6), and pits of 12 or more
# seeds (a kroo, which laps the board) on each side. Set by judgement, not tuned: the mini-match
# run meant for them did not fit this machine's shared CPU (``engine.ai`` has the level's score).
WEIGHTS = (4, 1, 2, 3, 2)
QUIESCE = 4  # plies of captures followed past the horizon


class OwareExpertTree(OwareTree):
    """Oware for the expert level and the hint: the basic evaluation plus capture threats
    and big pits (``WEIGHTS``), and a quiescence search of captures (``QUIESCE`` plies)."""

    quiesce = QUIESCE

    def noisy(self, x: int) -> Iterator[Noisy]:
        """Captures and moves that end the game (a capture cannot repeat a position, O11)."""
        p = x & 1
        st = T1 if p else T0
        before = x >> st & 255
        play, scratch = O.play_packed, self.scratch
        for i in O.moves_packed(x):
            scratch.clear()
            c = play(x, i, scratch)
            if c & OVER:
                a, n = c >> T0 & 255, c >> T1 & 255
                yield c, won(n - a if p else a - n), False
            elif c >> st & 255 > before:
                yield c, None, False

    def evaluate(self, x: int) -> int:
        data = x.to_bytes(15, "little")
        if x & 1:
            mine, theirs, store = data[7:13], data[1:7], data[14] - data[13]
        else:
            mine, theirs, store = data[1:7], data[7:13], data[13] - data[14]
        w = WEIGHTS
        return (
            w[0] * store
            + w[1] * (sum(mine) - sum(theirs))
            + w[2] * _threat(mine, theirs)
            - w[3] * _threat(theirs, mine)
            + w[4] * (sum(1 for v in mine if v >= 12) - sum(1 for v in theirs if v >= 12))
        )


def _threat(mover: bytes, other: bytes) -> int:
    """The most seeds one sowing of ``mover``'s row (fewer than 12 seeds) captures from
    ``other``'s row (O6; the grand slam, O7, and laps are left out)."""
    best = 0
    for i in range(6):
        n = mover[i]
        land = i + n - 6
        if n and 0 <= land < 6:
            taken = 0
            for k in range(land, -1, -1):  # every pit up to the last one got a seed
                v = other[k] + 1
                if v != 2 and v != 3:
                    break
                taken += v
            if taken > best:
                best = taken
    return best
