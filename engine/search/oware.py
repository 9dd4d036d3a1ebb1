"""Oware's game tree for the search, on packed boards with ``engine.oware.play_packed``.

Move ordering: by seeds captured. Evaluation: four times the captured difference plus the
difference of seeds on each side, in quarter seeds. The repetition rule (O11) depends on the
path, not only the board: the tree keeps the set of boards since the last capture (the game's
own, ``Oware.seen``, at the root, then the line searched, through ``enter``/``leave``) and,
when a capture-free move lands on one of them, lets ``play_packed`` end the game by O11
exactly as the real game would. ``OwareExpertTree`` (the expert level and the hint) values a
position by nine terms (``Weights``: captures, seeds at home, capture threats both ways, kroo,
empty and weak pits, waiting moves, seeds sown across) with weights learned from self-play,
each moving with the seeds left on the board, and follows captures past the horizon.

Two learned weights read like an Oware player's advice: a kroo (12 seeds or more) is worth
about one seed early and five late, when it laps the board and sweeps a row of singletons; an
empty pit of one's own costs one and a half seeds all game long (fewer moves to choose from).
The per-pit terms overlap (a pit's seeds, emptiness and reach go together), so the others are
best read together, not one by one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from operator import getitem
from typing import Any, NamedTuple

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


class Weights(NamedTuple):
    """The expert evaluation's weights, in seeds, each a pair: with all 48 seeds on the board
    and with none (between the two, the weight follows the seeds left on the board). Every
    term is the mover's minus the opponent's."""

    captured: tuple[float, float]  # seeds captured
    seeds: tuple[float, float]  # seeds on one's side (O10/O11 give them to the owner at the end)
    threat: tuple[float, float]  # the largest capture the mover makes at once (O6)
    threatened: tuple[float, float]  # the largest the opponent threatens (added, not subtracted)
    kroo: tuple[float, float]  # pits of 12 seeds or more, which lap the board
    empty: tuple[float, float]  # empty pits
    weak: tuple[float, float]  # pits of one or two seeds: a sowing's last seed captures them
    waiting: tuple[float, float]  # moves that stay on one's side (tempo: no seeds given away)
    reach: tuple[float, float]  # seeds one's moves would sow on the other side (up to 6 a pit)


# Learned from 600 games of self-play at the weights judged before (``tests/bench/tune.py play
# oware --games 600 --nodes 4000 --weights tests/bench/results/oware_judged_weights.json``, then
# ``fit oware``): least squares of the seeds each position's mover went on to gain, on 62,945
# positions; the fit explains 10 % of that variance (the judged weights, 1.6 %: most of a game's
# future is tactics the search finds, not what a static value sees). At 10,000 nodes a move
# (``tune.py match oware``: 40 games, sides alternating, random 4-ply openings) these weights
# beat the judged ones 36.5-3.5 (a fit of the first 300 games: 38.5-1.5).
WEIGHTS = Weights(
    captured=(1.10, 1.13),
    seeds=(0.02, 0.13),
    threat=(0.72, 0.83),
    threatened=(-0.39, -0.25),
    kroo=(1.04, 5.39),
    empty=(-1.66, -1.54),
    weak=(-0.73, -0.48),
    waiting=(0.78, -0.70),
    reach=(-0.08, -0.69),
)
QUIESCE = 4  # plies of captures followed past the horizon


# The per-pit terms of ``Weights``: what pit ``i`` of a row (in sowing order) holding ``v``
# seeds counts for each (the other terms, captures and threats, are the row's, not a pit's).
PIT_TERMS: dict[str, Callable[[int, int], int]] = {
    "seeds": lambda i, v: v,
    "kroo": lambda i, v: v >= 12,
    "empty": lambda i, v: v == 0,
    "weak": lambda i, v: 0 < v < 3,
    "waiting": lambda i, v: 0 < v < 6 - i,
    "reach": lambda i, v: min(max(v - (5 - i), 0), 6),
}
Tables = tuple[tuple[tuple[complex, ...], ...], complex, complex, complex]


def weigh(w: Weights) -> Tables:
    """``w`` as ``OwareExpertTree.evaluate`` reads it: per pit (in sowing order) and seed
    count, the weighted sum of the per-pit terms, and the weights of captures and threats;
    a weight is a complex number, its real part the full board's weight and its imaginary
    part the empty board's, so one sum carries both."""

    def c(pair: tuple[float, float]) -> complex:
        return complex(*pair)

    rows = tuple(
        tuple(
            sum(c(getattr(w, name)) * term(i, v) for name, term in PIT_TERMS.items())
            for v in range(256)
        )
        for i in range(6)
    )
    return rows, c(w.captured), c(w.threat), c(w.threatened)


def terms(x: int) -> tuple[int, ...]:
    """The terms of packed board ``x`` (``Weights``' fields in order) from its mover's side,
    counted plainly: what ``OwareExpertTree.evaluate`` weighs, and what the weights are fitted
    on (``tests/bench/tune.py``)."""
    mine, theirs, store = _sides(x)
    counts = {
        "captured": store,
        "threat": _threat(mine, theirs),
        "threatened": _threat(theirs, mine),
    }
    for name, term in PIT_TERMS.items():
        counts[name] = sum(term(i, v) for i, v in enumerate(mine)) - sum(
            term(i, v) for i, v in enumerate(theirs)
        )
    return tuple(counts[name] for name in Weights._fields)


class OwareExpertTree(OwareTree):
    """Oware for the expert level and the hint: the learned evaluation (``WEIGHTS``) and a
    quiescence search of captures (``QUIESCE`` plies)."""

    quiesce = QUIESCE
    tables: Tables = weigh(WEIGHTS)

    def noisy(self, x: int) -> Iterator[Noisy]:
        """Captures and moves that end the game (a capture cannot repeat a position, O11).

        Only a move whose last seed lands on the opponent's side, making two or three there
        (O6), is played to see whether it captures, unless the opponent's side is empty: then
        every move is played, as any may end the game (O8, O10); with seeds there, a move that
        captures nothing cannot end it."""
        p = x & 1
        st = T1 if p else T0
        before = x >> st & 255
        play, scratch, sh, table = O.play_packed, self.scratch, O.SH, O.MOVES
        every = not x & O.SIDE[1 - p]
        for i in O.moves_packed(x):
            if not every:
                add, last, theirs = table[i][x >> sh[i] & 255]
                if not theirs or (x + add) >> sh[last] & 255 not in (2, 3):
                    continue
            scratch.clear()
            c = play(x, i, scratch)
            if c & OVER:
                a, n = c >> T0 & 255, c >> T1 & 255
                yield c, won(n - a if p else a - n), False
            elif c >> st & 255 > before:
                yield c, None, False

    def evaluate(self, x: int) -> int:
        data = x.to_bytes(15, "little")
        if x & 1:  # what _sides says, inline: this is the search's hottest function
            mine, theirs, store = data[7:13], data[1:7], data[14] - data[13]
        else:
            mine, theirs, store = data[1:7], data[7:13], data[13] - data[14]
        rows, captured, threat, threatened = self.tables
        v = (
            sum(map(getitem, rows, mine))
            - sum(map(getitem, rows, theirs))
            + captured * store
            + threat * _threat(mine, theirs)
            + threatened * _threat(theirs, mine)
        )
        board = 48 - data[13] - data[14]
        return round((v.real * board + v.imag * (48 - board)) / 12)  # quarter seeds


def _sides(x: int) -> tuple[bytes, bytes, int]:
    """The mover's row, the opponent's (each in sowing order) and the captured difference."""
    data = x.to_bytes(15, "little")
    if x & 1:
        return data[7:13], data[1:7], data[14] - data[13]
    return data[1:7], data[7:13], data[13] - data[14]


def _threat(mover: bytes, other: bytes) -> int:
    """The most seeds one sowing of ``mover``'s row (fewer than 12 seeds) captures from
    ``other``'s row (O6; the grand slam, O7, and laps are left out): ``other``'s row as the
    pits a seed makes two or three (``_KIND``) picks, from ``_RUNS``, what a sowing ending on
    each of its pits takes (every pit up to the last one got a seed); ``_LANDS`` says where a
    pit's sowing ends. Twice as fast as walking the pits (the evaluation's largest cost)."""
    run = _RUNS[other.translate(_KIND)]
    a, b, c, d, e, f = _LANDS
    return max(
        run[a[mover[0]]],
        run[b[mover[1]]],
        run[c[mover[2]]],
        run[d[mover[3]]],
        run[e[mover[4]]],
        run[f[mover[5]]],
    )


_KIND = bytes([0, 1, 2] + [0] * 253)  # a pit of one or two seeds: capturable with one more


def _run(kinds: tuple[int, ...]) -> tuple[int, ...]:
    """Seeds taken by a sowing whose last seed lands on each pit of a row of ``kinds``
    (and, last, 0 for a sowing that ends elsewhere)."""
    out = []
    for land in range(6):
        taken = 0
        for k in range(land, -1, -1):
            if not kinds[k]:
                break
            taken += kinds[k] + 1
        out.append(taken)
    return (*out, 0)


_RUNS = {bytes(k): _run(k) for k in itertools.product(range(3), repeat=6)}
# pit i's sowing of n seeds ends on the other row's pit i + n - 6, or elsewhere (index 6)
_LANDS = tuple(
    tuple(i + n - 6 if 0 < n and 0 <= i + n - 6 < 6 else 6 for n in range(256)) for i in range(6)
)
