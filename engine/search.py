"""Alpha-beta search for the sowing games (Kalah, Oware) on packed boards.

The computer player's engine for ``kalah`` and ``oware``: negamax alpha-beta with iterative
deepening, a transposition table keyed by the packed board, and move ordering (the table's
best move first, then extra turns and captures, then the rest). It plays moves with each
family's own rules function (``engine.kalah._play``, ``engine.oware._play`` and
``engine.oware._moves``) on packed ints: there is no second copy of the rules here.

Values are from the point of view of the player to move at a node. A Kalah extra turn (K5)
leaves the same player to move, so that child's value is taken as it is, with the same
window; every other child is negated with the window flipped. The rule is read off the
boards (``child & 1 == board & 1``), never assumed, so it holds for any family. An extra
turn costs no depth (the same player's move goes on), and past the horizon a quiescence search
follows extra turns and captures for up to ``QUIESCE`` plies (Kalah). Kalah's evaluation is
the store difference (a store past half the seeds is a win); Oware's is 4 × the captured
difference plus the difference of seeds on each side.

Oware's repetition rule (O11) depends on the path, not only the board: the search carries the
set of boards since the last capture (the game's own history at the root, then the moves of
the line searched) and, when a capture-free move lands on one of them, lets ``oware._play``
end the game by O11 exactly as the real game would. The transposition table ignores the path
(the usual graph-history compromise: a stored value may, rarely, be one a repetition would
change).

Budgets: ``nodes`` (positions visited, counted exactly) and ``expired`` (the wall-clock safety
net, asked every 512 nodes; ``engine.ai`` builds it). The search is deterministic as
long as the node budget is what stops it. An interrupted iteration still counts when its first
root move (the previous iteration's best) has been searched: any move that then beat it is
better by a deeper search.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine import kalah as K
from engine import oware as O
from engine import sowing as sw

WIN = 10_000  # a decided game is worth WIN plus the final margin
INF = 1 << 30
EXACT, LOWER, UPPER = 0, 1, 2
OVER = sw.OVER
XT = 0  # depth an extra turn costs (Kalah): none, it is the same player's move going on
QUIESCE = 6  # Kalah: plies of extra turns and captures followed past the horizon


class _Stop(Exception):
    """The budget ran out in the middle of an iteration."""


class Result:
    """What a search found: the move (ring/pit index), its value, depth completed, nodes."""

    __slots__ = ("depth", "move", "nodes", "scores", "value")

    def __init__(
        self, move: int, value: int, depth: int, nodes: int, scores: dict[int, float]
    ) -> None:
        self.move, self.value, self.depth, self.nodes, self.scores = (
            move,
            value,
            depth,
            nodes,
            scores,
        )

    def __repr__(self) -> str:
        return (
            f"Result(move={self.move}, value={self.value}, depth={self.depth}, nodes={self.nodes})"
        )


# -- Kalah ----------------------------------------------------------------------------------

_KSH = K.SH
_KPITS = (tuple(range(6)), tuple(range(7, 13)))


def kalah_weights(total: int) -> tuple[int, int]:
    """(store weight, pit weight) of the Kalah evaluation, in quarter seeds.

    Measured against OpenSpiel's MCTS (``tests/bench/vs_openspiel.py``, 100 games each at
    10,863 simulations): stores 4 and own-side seeds 1 scored 68 %, stores alone 76.5 %."""
    return 1, 0


def search_kalah(
    b: int,
    empty_capture: bool,
    total: int,
    nodes: int,
    expired: Callable[[], bool],
    max_depth: int = 64,
    rng: random.Random | None = None,
    noise: float = 0.0,
    quiesce: int = QUIESCE,
) -> Result:
    """Best ring pit to sow for the player to move on Kalah packed board ``b`` (not over).

    ``rng`` shuffles the root moves before searching (so equal moves are chosen by the seed)
    and, with ``noise`` > 0 (in seeds), perturbs each root move's value by that much
    (Gaussian), which is how the weak levels err.
    """
    play = K.play_packed
    sh = _KSH
    s0, s1 = sh[6], sh[13]
    half = total // 2
    ws, wp = kalah_weights(total)
    tt: dict[int, tuple[int, int, int, int]] = {}
    count = 0
    limit = nodes

    def evaluate(x: int) -> int:
        """Static value of a live board for the player to move, in quarter seeds."""
        a, c = x >> s0 & 255, x >> s1 & 255
        if a > half:
            return (WIN + a - c) * 4 if not x & 1 else -(WIN + a - c) * 4
        if c > half:
            return (WIN + c - a) * 4 if x & 1 else -(WIN + c - a) * 4
        if wp:
            pa = sum(x >> sh[r] & 255 for r in range(6))
            v = ws * (a - c) + wp * (2 * pa + a + c - total)
        else:
            v = ws * (a - c)
        return -v if x & 1 else v

    def final(x: int) -> int:
        a, c = x >> s0 & 255, x >> s1 & 255
        d = a - c if not x & 1 else c - a
        return (WIN + d if d > 0 else -WIN + d if d < 0 else 0) * 4

    def children(x: int) -> list[tuple[int, int, int]]:
        """(order key, ring pit, child) for every legal move, best-looking first."""
        p = x & 1
        st = sh[13] if p else sh[6]
        before = x >> st & 255
        out = []
        for i in _KPITS[p]:
            if x >> sh[i] & 255:
                c = play(x, i, empty_capture)
                key = (c >> st & 255) - before
                if c & 1 == p and not c & OVER:
                    key += 100  # an extra turn
                out.append((key, i, c))
        out.sort(reverse=True)
        return out

    def qs(x: int, alpha: int, beta: int, left: int) -> int:
        """Quiescence: past the horizon, follow only extra turns and captures."""
        nonlocal count
        count += 1
        if count >= limit:
            raise _Stop
        stand = evaluate(x)
        if stand >= beta or left <= 0 or abs(stand) >= WIN * 4:
            return stand
        alpha = max(alpha, stand)
        p = x & 1
        st = sh[13] if p else sh[6]
        before = x >> st & 255
        best = stand
        for i in _KPITS[p]:
            if not x >> sh[i] & 255:
                continue
            y = play(x, i, empty_capture)
            if y & OVER:
                v = final(y) if y & 1 == p else -final(y)
            elif y & 1 == p:
                v = qs(y, alpha, beta, left - 1)
            elif (y >> st & 255) - before >= 2:  # a capture
                v = -qs(y, -beta, -alpha, left - 1)
            else:
                continue
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def ab(x: int, depth: int, alpha: int, beta: int) -> int:
        nonlocal count
        count += 1
        if count >= limit:
            raise _Stop
        if not count & 511 and expired():
            raise _Stop
        if depth <= 0:
            if quiesce:
                count -= 1
                return qs(x, alpha, beta, quiesce)
            return evaluate(x)
        a0 = alpha
        entry = tt.get(x)
        first = -1
        if entry is not None:
            edepth, flag, value, first = entry
            if edepth >= depth:
                if flag == EXACT:
                    return value
                if flag == LOWER:
                    if value >= beta:
                        return value
                elif value <= alpha:
                    return value
        a, c = x >> s0 & 255, x >> s1 & 255
        if a > half or c > half:
            return evaluate(x)
        kids = children(x)
        if first >= 0:
            for k, kid in enumerate(kids):
                if kid[1] == first:
                    if k:
                        kids.insert(0, kids.pop(k))
                    break
        best = -INF
        move = kids[0][1]
        p = x & 1
        for _, i, y in kids:
            if y & OVER:
                v = final(y) if y & 1 == p else -final(y)
            elif y & 1 == p:
                v = ab(y, depth - XT, alpha, beta)
            else:
                v = -ab(y, depth - 1, -beta, -alpha)
            if v > best:
                best, move = v, i
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = EXACT if a0 < best < beta else LOWER if best >= beta else UPPER
        tt[x] = (depth, flag, best, move)
        return best

    def root_children(x: int) -> list[tuple[int, int, int]]:
        return children(x)

    return _deepen(b, root_children, ab, final, evaluate, max_depth, rng, noise, lambda: count)


# -- Oware ----------------------------------------------------------------------------------

_OSH = O.SH
_SCORES = O.SH[12]  # b >> _SCORES: both score trays, nothing else


def search_oware(
    b: int,
    seen: set[int],
    nodes: int,
    expired: Callable[[], bool],
    max_depth: int = 64,
    rng: random.Random | None = None,
    noise: float = 0.0,
) -> Result:
    """Best pit to sow for the player to move on Oware packed board ``b`` (not over).

    ``seen`` is every board since the last capture, ``b`` included (O11), as the game keeps
    it (``Oware._seen``); it is not modified.
    """
    play, moves = O.play_packed, O.moves_packed
    sh = _OSH
    t0, t1 = sh[12], sh[13]
    tt: dict[int, tuple[int, int, int, int]] = {}
    count = 0
    limit = nodes
    scratch: set[int] = set()

    def evaluate(x: int) -> int:
        a, c = x >> t0 & 255, x >> t1 & 255
        pa = sum(x >> sh[r] & 255 for r in range(6))
        pn = 48 - a - c - pa
        v = 4 * (a - c) + (pa - pn)
        return -v if x & 1 else v

    def final(x: int) -> int:
        a, c = x >> t0 & 255, x >> t1 & 255
        d = a - c if not x & 1 else c - a
        return (WIN + d if d > 0 else -WIN + d if d < 0 else 0) * 4

    def children(x: int, path: set[int]) -> list[tuple[int, int, int]]:
        p = x & 1
        st = t1 if p else t0
        before = x >> st & 255
        scores = x >> _SCORES
        out = []
        for i in moves(x):
            scratch.clear()
            c = play(x, i, scratch)
            gain = (c >> st & 255) - before
            if not c & OVER and c >> _SCORES == scores and c in path:
                c = play(x, i, {c})  # O11: the rules end the game by repetition
            out.append((gain, i, c))
        out.sort(reverse=True)
        return out

    def ab(x: int, depth: int, alpha: int, beta: int, path: set[int]) -> int:
        nonlocal count
        count += 1
        if count >= limit:
            raise _Stop
        if not count & 511 and expired():
            raise _Stop
        if depth <= 0:
            return evaluate(x)
        a0 = alpha
        entry = tt.get(x)
        first = -1
        if entry is not None:
            edepth, flag, value, first = entry
            if edepth >= depth:
                if flag == EXACT:
                    return value
                if flag == LOWER:
                    if value >= beta:
                        return value
                elif value <= alpha:
                    return value
        kids = children(x, path)
        if first >= 0:
            for k, kid in enumerate(kids):
                if kid[1] == first:
                    if k:
                        kids.insert(0, kids.pop(k))
                    break
        best = -INF
        move = kids[0][1]
        scores = x >> _SCORES
        for _, i, y in kids:
            if y & OVER:
                v = -final(y)  # no extra turns in Oware: the turn always passes (O5)
            elif y >> _SCORES != scores:  # a capture: O11 starts afresh
                v = -ab(y, depth - 1, -beta, -alpha, {y})
            else:
                path.add(y)
                try:
                    v = -ab(y, depth - 1, -beta, -alpha, path)
                finally:
                    path.discard(y)
            if v > best:
                best, move = v, i
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = EXACT if a0 < best < beta else LOWER if best >= beta else UPPER
        tt[x] = (depth, flag, best, move)
        return best

    root_path = set(seen)
    root_path.add(b)

    def root_children(x: int) -> list[tuple[int, int, int]]:
        return children(x, root_path)

    def child_value(y: int, depth: int, alpha: int, beta: int) -> int:
        # the root's view of a child, with the path bookkeeping of ``ab``
        if y >> _SCORES != b >> _SCORES:
            return -ab(y, depth, -beta, -alpha, {y})
        root_path.add(y)
        try:
            return -ab(y, depth, -beta, -alpha, root_path)
        finally:
            root_path.discard(y)

    return _deepen(
        b,
        root_children,
        child_value,
        final,
        evaluate,
        max_depth,
        rng,
        noise,
        lambda: count,
        negated=True,
    )


# -- iterative deepening at the root ---------------------------------------------------------


def _deepen(
    b: int,
    root_children: Callable[[int], list[tuple[int, int, int]]],
    ab: Callable[..., int],
    final: Callable[[int], int],
    evaluate: Callable[[int], int],
    max_depth: int,
    rng: random.Random | None,
    noise: float,
    used: Callable[[], int],
    negated: bool = False,
) -> Result:
    """Iterative deepening over the root moves; see the module docstring.

    ``ab(child, depth, alpha, beta)`` is the child's value from its mover's side (``negated``:
    already from the root's side).
    """
    kids = root_children(b)
    if rng is not None:
        rng.shuffle(kids)
        kids.sort(key=lambda k: k[0], reverse=True)  # stable: ties stay in seed order
    p = b & 1
    bias = {
        i: (rng.gauss(0.0, noise) * 4 if rng is not None and noise else 0.0) for _, i, _ in kids
    }
    order = [(i, y) for _, i, y in kids]
    best_move, best_value, depth_done = order[0][0], -INF, 0
    scores: dict[int, float] = {}

    def value_of(y: int, depth: int, alpha: int, beta: int) -> int:
        if y & OVER:
            return final(y) if y & 1 == p else -final(y)
        if negated:
            return ab(y, depth - 1, alpha, beta)
        if y & 1 == p:
            return ab(y, depth - XT, alpha, beta)
        return -ab(y, depth - 1, -beta, -alpha)

    if len(order) == 1:
        return Result(order[0][0], 0, 0, used(), {order[0][0]: 0})
    for depth in range(1, max_depth + 1):
        it_best: int | None = None
        it_value: float = -INF
        it_scores: dict[int, float] = {}
        try:
            for k, (i, y) in enumerate(order):
                v: float
                if noise:
                    v = value_of(y, depth, -INF, INF) + bias[i]  # exact values, then noise
                else:
                    alpha = int(it_value)
                    v = (
                        value_of(y, depth, alpha, INF)
                        if k == 0
                        else value_of(y, depth, alpha, alpha + 1)
                    )
                    if k and v > alpha:  # null-window test failed high: search exactly
                        v = value_of(y, depth, alpha, INF)
                it_scores[i] = v
                if v > it_value:
                    it_best, it_value = i, v
        except _Stop:
            if it_best is not None and order[0][0] in it_scores:
                best_move, best_value = it_best, int(it_value)
            break
        assert it_best is not None
        best_move, best_value, depth_done, scores = it_best, int(it_value), depth, it_scores
        order.sort(key=lambda iy: -it_scores[iy[0]])  # stable: best first for the next one
        if abs(best_value) >= WIN * 4 and not noise:
            break  # the game is decided within the horizon
        if all(abs(v) >= WIN * 4 for v in it_scores.values()):
            break  # every line is decided: deeper search changes nothing
    assert best_move is not None
    return Result(best_move, best_value, depth_done, used(), scores)


def kalah_move(game: K.Kalah, state: K.KalahState, **kw: object) -> tuple[int, Result]:
    """The search's move (0–11) for a Kalah game and state."""
    b = K.pack(state)
    r = search_kalah(b, game.empty_capture, game.total, **kw)  # type: ignore[arg-type]
    return K.MOVE_OF[r.move], r


def oware_move(game: O.Oware, state: O.OwareState, **kw: object) -> tuple[int, Result]:
    """The search's move (0–11) for an Oware game and state."""
    r = search_oware(O.pack(state), game.seen(state), **kw)  # type: ignore[arg-type]
    return r.move, r


__all__: Sequence[str] = ("Result", "kalah_move", "oware_move", "search_kalah", "search_oware")
