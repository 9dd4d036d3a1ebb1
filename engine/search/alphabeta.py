"""The one search: negamax alpha-beta with iterative deepening, a transposition table, move
ordering, principal-variation windows at the root and an optional quiescence search.

A family plugs in through a ``Tree`` (``engine.search.tree``): its nodes, its ordered children,
its evaluation. Nothing here knows a rule. Values are in quarter seeds from the point of view
of the player to move at a node; a decided game is worth ``WIN`` plus four times the final
margin where the family keeps one (``won``), so every family's wins sit on one scale.

A child the same player moves from again (a Kalah extra turn, K5) keeps the value as it is,
with the same window, and costs no depth; every other child is negated with the window flipped.
Past the horizon, a family with ``quiesce > 0`` has its noisy children (``Tree.noisy``: Kalah's
extra turns and captures) followed for up to that many plies, standing pat on the evaluation.

Budgets: ``nodes`` (positions visited, counted exactly) and ``expired`` (the wall-clock safety
net, asked when the node count's low bits under ``Tree.clock`` are zero; ``engine.ai`` builds
it). The search is deterministic as long as the node budget is what stops it. An interrupted
iteration still counts when its first root move (the previous iteration's best) has been
searched: any move that then beat it is better by a deeper search.

The table ignores the path a node was reached by (the usual graph-history compromise: in Oware,
where O11 depends on the path, a stored value may rarely be one a repetition would change).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.search.tree import Tree

WIN = 40_000  # a decided game, in quarter seeds; plus 4 x the final margin where there is one
INF = 1 << 30
EXACT, LOWER, UPPER = 0, 1, 2


def won(margin: int) -> int:
    """The value of a finished game for a player ahead by ``margin`` seeds (0: a draw)."""
    return WIN + 4 * margin if margin > 0 else -WIN + 4 * margin if margin < 0 else 0


class Result:
    """What a search found: the move (the game's own), its value for the player to move,
    the depth completed, the nodes visited and each root move's value at that depth."""

    __slots__ = ("depth", "move", "nodes", "scores", "value")

    def __init__(
        self, move: Any, value: float, depth: int, nodes: int, scores: dict[Any, float]
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
            f"Result(move={self.move!r}, value={self.value}, depth={self.depth}, "
            f"nodes={self.nodes})"
        )


class _Stop(Exception):
    """The budget ran out in the middle of an iteration."""


def alphabeta(
    tree: Tree,
    nodes: int,
    expired: Callable[[], bool],
    max_depth: int = 64,
    rng: random.Random | None = None,
    noise: float = 0.0,
) -> Result:
    """The best move from ``tree.root`` (a live position with at least one move).

    ``rng`` shuffles the root moves before searching (so equal moves are chosen by the seed)
    and, with ``noise`` > 0 (in seeds), perturbs each root move's value by that much
    (Gaussian), which is how the weak levels err.
    """
    children, evaluate, settled, noisy = tree.children, tree.evaluate, tree.settled, tree.noisy
    key_of, enter, leave = tree.key, tree.enter, tree.leave
    keyed, line, quiesce, clock = tree.keyed, tree.line, tree.quiesce, tree.clock
    table: dict[Any, tuple[int, int, int, Any]] = {}
    count = 0
    limit = nodes

    def qs(x: Any, alpha: int, beta: int, left: int) -> int:
        """Quiescence: past the horizon, follow only the noisy children."""
        nonlocal count
        count += 1
        if count >= limit:
            raise _Stop
        stand = evaluate(x)
        if stand >= beta or left <= 0 or abs(stand) >= WIN:
            return stand
        alpha = max(alpha, stand)
        best = stand
        for y, value, same in noisy(x):
            if value is not None:
                v = value
            elif same:
                v = qs(y, alpha, beta, left - 1)
            else:
                v = -qs(y, -beta, -alpha, left - 1)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def ab(x: Any, depth: int, alpha: int, beta: int) -> int:
        nonlocal count
        count += 1
        if count >= limit:
            raise _Stop
        if not count & clock and expired():
            raise _Stop
        if depth <= 0:
            if quiesce:
                count -= 1  # the quiescence search counts this node
                return qs(x, alpha, beta, quiesce)
            return evaluate(x)
        a0 = alpha
        k = key_of(x) if keyed else x
        entry = table.get(k)
        first = None
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
        decided = settled(x)
        if decided is not None:
            return decided
        kids = children(x)
        if not kids:
            return -WIN  # no legal move loses (Bao B14, K6)
        if first is not None:
            for n, kid in enumerate(kids):
                if kid[1] == first:
                    if n:
                        kids.insert(0, kids.pop(n))
                    break
        best = -INF
        move = kids[0][1]
        for _, i, y, final, same in kids:  # ``descend``, inlined: this loop is the hot spot
            if final is not None:
                v = final
            elif same:
                v = ab(y, depth, alpha, beta)
            elif not line:
                v = -ab(y, depth - 1, -beta, -alpha)
            else:
                enter(x, y)
                try:
                    v = -ab(y, depth - 1, -beta, -alpha)
                finally:
                    leave(x, y)
            if v > best:
                best, move = v, i
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = EXACT if a0 < best < beta else LOWER if best >= beta else UPPER
        table[k] = (depth, flag, best, move)
        return best

    def descend(x: Any, y: Any, same: bool, depth: int, alpha: int, beta: int) -> int:
        """The value of live child ``y`` of ``x``, for the player to move at ``x``."""
        if same:
            return ab(y, depth, alpha, beta)
        if not line:
            return -ab(y, depth - 1, -beta, -alpha)
        enter(x, y)
        try:
            return -ab(y, depth - 1, -beta, -alpha)
        finally:
            leave(x, y)

    return _deepen(tree, children(tree.root), ab, descend, max_depth, rng, noise, lambda: count)


def _deepen(
    tree: Tree,
    kids: list[Any],
    ab: Callable[..., int],
    descend: Callable[..., int],
    max_depth: int,
    rng: random.Random | None,
    noise: float,
    used: Callable[[], int],
) -> Result:
    """Iterative deepening over the root's children; see the module docstring."""
    root = tree.root
    if rng is not None:
        rng.shuffle(kids)
        kids.sort(key=lambda k: k[0], reverse=True)  # stable: ties stay in seed order
    bias = {k[1]: (rng.gauss(0.0, noise) * 4 if rng is not None and noise else 0.0) for k in kids}
    order = [kid[1:] for kid in kids]
    if len(order) == 1:
        return Result(tree.public(order[0][0]), 0, 0, used(), {order[0][0]: 0})
    best_move, depth_done = order[0][0], 0
    best_value: float = -INF
    scores: dict[Any, float] = {}

    def value_of(y: Any, value: int | None, same: bool, depth: int, alpha: int, beta: int) -> int:
        return value if value is not None else descend(root, y, same, depth, alpha, beta)

    for depth in range(1, max_depth + 1):
        it_best: Any = None
        it_value: float = -INF
        it_scores: dict[Any, float] = {}
        try:
            for n, (i, y, value, same) in enumerate(order):
                v: float
                if noise:
                    v = value_of(y, value, same, depth, -INF, INF)  # exact values, then noise
                else:
                    alpha = int(it_value)
                    v = value_of(y, value, same, depth, alpha, INF if n == 0 else alpha + 1)
                    if n and v > alpha:  # the null-window test failed high: search exactly
                        v = value_of(y, value, same, depth, alpha, INF)
                v += bias[i]
                it_scores[i] = v
                if v > it_value:
                    it_best, it_value = i, v
        except _Stop:
            if it_best is not None and order[0][0] in it_scores:
                best_move, best_value = it_best, it_value
            break
        best_move, best_value, depth_done, scores = it_best, it_value, depth, it_scores
        order.sort(key=lambda entry: -it_scores[entry[0]])  # stable: best first for the next
        if abs(best_value) >= WIN and not noise:
            break  # the game is decided within the horizon
        if all(abs(v) >= WIN for v in it_scores.values()):
            break  # every line is decided: deeper search changes nothing
    public = {tree.public(i): v for i, v in scores.items()}
    return Result(tree.public(best_move), best_value, depth_done, used(), public)
