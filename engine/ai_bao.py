"""The computer player's search for Bao (any profile of ``engine.bao``).

Two searches on the Bao core's own functions (``engine.bao_core.expand`` simulates every move
of a position, ``finish`` applies takasia and the profile's ``after_move`` hook): there is no
second copy of the rules, and a new profile (a ``Rules`` value) works unchanged.

- ``search``: negamax alpha-beta with iterative deepening, a transposition table and move
  ordering (table move, then captures, then material gained), on a material evaluation.
- ``mcts``: UCT with random playouts (``Bao.random_playout``, the engine's fast path), kept to
  measure it against alpha-beta; ``tests/bench/strength.py --bao-mcts`` does, and alpha-beta
  won (see ``engine.ai``), so the levels use ``search``.

A position in the search is ``(b, hands, owned, p, block)``: the core's mutable lists, the
player to move and the takasia'd ring index (-1 for none). The node budget counts positions
visited (each one a move simulated by ``expand`` or a playout started), exactly, so a search
stopped by it is deterministic; ``expired`` (asked every 64 positions) is the wall-clock
safety net.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from engine import bao as B
from engine import bao_core as core

WIN = 10_000
INF = 1 << 30
EXACT, LOWER, UPPER = 0, 1, 2

Node = tuple[list[int], list[int], list[bool], int, int]


class _Stop(Exception):
    pass


def root(game: B.Bao, state: B.State) -> Node:
    return (
        list(state.pits),
        list(state.hands),
        list(state.nyumba),
        state.to_move,
        game._block(state),
    )


def options(game: B.Bao, node: Node) -> list[tuple[Any, ...]]:
    """Every legal move of ``node``, simulated: ``(move, child node or None, value)``.

    ``value`` is set for a move that ends the game (from the mover's side: WIN, -WIN or 0 for
    a safety stop, N8), else None; the child is None then.
    """
    b, hands, owned, p, block = node
    rules = game.rules
    namua = bool(hands[0] or hands[1])
    out: list[tuple[Any, ...]] = []
    illegal = rules.endless == "illegal"
    for kind, r, d, safari, b2, hands2, owned2, summary in core.expand(
        rules, b, hands, owned, p, block
    ):
        status = summary.status
        if status == core.ENDLESS:
            if illegal:
                continue  # K6
            out.append((B._move(kind, r, d, safari, p, namua), None, 0))  # N8: no winner
            continue
        t = core.finish(rules, game.takasia, b2, hands2, owned2, p, summary)
        if b2[0:8] == core.EMPTY_ROW:  # B13/B14, in the order the game checks them
            out.append((B._move(kind, r, d, safari, p, namua), None, WIN if p else -WIN))
        elif b2[16:24] == core.EMPTY_ROW:
            out.append((B._move(kind, r, d, safari, p, namua), None, -WIN if p else WIN))
        else:
            out.append(
                (B._move(kind, r, d, safari, p, namua), (b2, hands2, owned2, 1 - p, t), None)
            )
    return out


def evaluate(node: Node) -> int:
    """Static value for the player to move: seeds owned (board and hand) and front-row seeds,
    in quarter seeds."""
    b, hands, _, p, _ = node
    mine = p << 4
    theirs = mine ^ 16
    own = sum(b[mine : mine + 16]) + hands[p]
    other = sum(b[theirs : theirs + 16]) + hands[1 - p]
    front = sum(b[mine : mine + 8])
    ofront = sum(b[theirs : theirs + 8])
    return 4 * (own - other) + (front - ofront)


def _key(node: Node) -> tuple[Any, ...]:
    b, hands, owned, p, block = node
    return (tuple(b), hands[0], hands[1], owned[0], owned[1], p, block)


class Result:
    __slots__ = ("depth", "move", "nodes", "value")

    def __init__(self, move: Any, value: float, depth: int, nodes: int) -> None:
        self.move, self.value, self.depth, self.nodes = move, value, depth, nodes

    def __repr__(self) -> str:
        return (
            f"Result(move={self.move}, value={self.value}, depth={self.depth}, nodes={self.nodes})"
        )


def search(
    game: B.Bao,
    state: B.State,
    nodes: int,
    expired: Callable[[], bool],
    max_depth: int = 32,
    rng: random.Random | None = None,
    noise: float = 0.0,
) -> Result:
    """Alpha-beta with iterative deepening from ``state`` (a live position)."""
    tt: dict[tuple[Any, ...], tuple[int, int, int, Any]] = {}
    count = 0
    limit = nodes

    def ordered(node: Node, first: Any) -> list[tuple[int, Any, Any, Any]]:
        kids = []
        for move, child, value in options(game, node):
            if child is None:
                key = 10 * WIN if value > 0 else -10 * WIN if value < 0 else 0
            else:
                key = -evaluate(child)
            if move == first:
                key = 100 * WIN
            kids.append((key, move, child, value))
        kids.sort(key=lambda k: k[0], reverse=True)
        return kids

    def ab(node: Node, depth: int, alpha: int, beta: int) -> int:
        nonlocal count
        count += 1
        if count >= limit:
            raise _Stop
        if not count & 63 and expired():
            raise _Stop
        if depth <= 0:
            return evaluate(node)
        key = _key(node)
        entry = tt.get(key)
        first = None
        a0 = alpha
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
        kids = ordered(node, first)
        if not kids:
            return -WIN  # B14, K6: no legal move loses
        best, best_move = -INF, kids[0][1]
        for _, move, child, value in kids:
            v = value if child is None else -ab(child, depth - 1, -beta, -alpha)
            if v > best:
                best, best_move = v, move
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        flag = EXACT if a0 < best < beta else LOWER if best >= beta else UPPER
        tt[key] = (depth, flag, best, best_move)
        return best

    start = root(game, state)
    kids = ordered(start, None)
    if rng is not None:
        rng.shuffle(kids)
        kids.sort(key=lambda k: k[0], reverse=True)
    bias = {k[1]: (rng.gauss(0.0, noise) * 4 if rng is not None and noise else 0.0) for k in kids}
    order = [(m, c, v) for _, m, c, v in kids]
    if len(order) == 1:
        return Result(order[0][0], 0, 0, 0)
    best_move, best_value, done = order[0][0], -INF, 0
    for depth in range(1, max_depth + 1):
        it_best, it_value, scores = None, -INF, {}
        try:
            for k, (move, child, value) in enumerate(order):
                if child is None:
                    v = value
                elif noise:
                    v = -ab(child, depth - 1, -INF, INF)
                else:
                    alpha = it_value
                    if k == 0:
                        v = -ab(child, depth - 1, -INF, INF)
                    else:
                        v = -ab(child, depth - 1, -alpha - 1, -alpha)
                        if v > alpha:
                            v = -ab(child, depth - 1, -INF, -alpha)
                v += bias[move]
                scores[move] = v
                if v > it_value:
                    it_best, it_value = move, v
        except _Stop:
            if it_best is not None and order[0][0] in scores:
                best_move, best_value = it_best, it_value
            break
        best_move, best_value, done = it_best, it_value, depth
        order.sort(key=lambda mcv: -scores[mcv[0]])
        if all(abs(v) >= WIN for v in scores.values()) or (best_value >= WIN and not noise):
            break
    return Result(best_move, best_value, done, count)


# -- MCTS (measured against alpha-beta; not used by the levels) -------------------------------


class _Tree:
    __slots__ = ("children", "moves", "n", "node", "terminal", "untried", "w")

    def __init__(self, node: Node | None, terminal: float | None) -> None:
        self.node = node
        self.terminal = terminal  # value for the player who moved into this node
        self.n = 0
        self.w = 0.0  # total reward for the player who moved into this node
        self.children: list[_Tree] = []
        self.moves: list[Any] = []
        self.untried: list[tuple[Any, Any, Any]] | None = None


def mcts(
    game: B.Bao,
    state: B.State,
    nodes: int,
    expired: Callable[[], bool],
    rng: random.Random,
    c: float = 1.4,
) -> Result:
    """UCT from ``state``: ``nodes`` playouts (each one a leaf expanded and played out at
    random with the engine's fast path), the most visited root move."""
    tree = _Tree(root(game, state), None)
    rand = rng.random
    playouts = 0
    while playouts < nodes and (playouts & 15 or not expired()):
        playouts += 1
        path = [tree]
        t = tree
        while True:
            if t.terminal is not None:
                break
            if t.untried is None:
                t.untried = options(game, t.node)  # type: ignore[arg-type]
                rng.shuffle(t.untried)
            if t.untried:
                move, child, value = t.untried.pop()
                new = _Tree(child, None)
                if child is None:
                    new.terminal = 1.0 if value > 0 else 0.0 if value < 0 else 0.5
                t.children.append(new)
                t.moves.append(move)
                path.append(new)
                t = new
                break
            if not t.children:  # no legal move: the player to move here loses
                t.terminal = 1.0
                break
            log_n = math.log(t.n)
            t = max(t.children, key=lambda ch: ch.w / ch.n + c * math.sqrt(log_n / ch.n))
            path.append(t)
        if t.terminal is not None:
            reward = t.terminal  # for the player who moved into t
            if t is tree:
                break
        else:
            b, hands, owned, p, block = t.node  # type: ignore[misc]
            st = B.State(
                tuple(b),
                (hands[0], hands[1]),
                p,
                (owned[0], owned[1]),
                B.NAMES[(p << 4) + block] if block >= 0 else None,
            )
            winner, _ = game.random_playout(st, rand)
            mover = 1 - p
            reward = 0.5 if winner is None else 1.0 if winner == mover else 0.0
        for node in reversed(path):
            node.n += 1
            node.w += reward
            reward = 1.0 - reward
    best = max(range(len(tree.children)), key=lambda k: tree.children[k].n)
    ch = tree.children[best]
    return Result(tree.moves[best], ch.w / max(ch.n, 1), 0, playouts)
