"""UCT with random playouts, kept to measure against the computer player's alpha-beta
(``tests/bench/strength.py --bao-mcts N``); it lost in every Bao profile (``engine/ai.py``).

It runs on the public API (``legal_moves``, ``play``, ``outcome``) and the game's own random
playout (``game.random_playout``), so it shares no code with ``engine.search``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any


class _Node:
    __slots__ = ("children", "moves", "n", "state", "terminal", "untried", "w")

    def __init__(self, state: Any, terminal: float | None) -> None:
        self.state = state
        self.terminal = terminal  # reward for the player who moved into this node, if over
        self.n = 0
        self.w = 0.0  # total reward for the player who moved into this node
        self.children: list[_Node] = []
        self.moves: list[Any] = []
        self.untried: list[Any] | None = None


def mcts(
    game: Any,
    state: Any,
    playouts: int,
    expired: Callable[[], bool],
    rng: random.Random,
    c: float = 1.4,
) -> Any:
    """UCT from ``state``: ``playouts`` leaves expanded and played out at random; the most
    visited root move."""
    tree = _Node(state, None)
    rand = rng.random
    done = 0
    while done < playouts and (done & 15 or not expired()):
        done += 1
        path = [tree]
        t = tree
        while t.terminal is None:
            if t.untried is None:
                t.untried = list(game.legal_moves(t.state))
                rng.shuffle(t.untried)
            if t.untried:
                move = t.untried.pop()
                mover = game.to_move(t.state)
                after = game.play(t.state, move)
                over = game.outcome(after)
                terminal = None
                if over is not None:
                    terminal = 0.5 if over.winner is None else float(over.winner == mover)
                new = _Node(after, terminal)
                t.children.append(new)
                t.moves.append(move)
                path.append(new)
                t = new
                break
            log_n = math.log(t.n)
            t = max(t.children, key=lambda ch: ch.w / ch.n + c * math.sqrt(log_n / ch.n))
            path.append(t)
        if t.terminal is not None:
            reward = t.terminal
        else:
            winner, _ = game.random_playout(t.state, rand)
            mover = 1 - game.to_move(t.state)  # Bao has no extra turns
            reward = 0.5 if winner is None else 1.0 if winner == mover else 0.0
        for node in reversed(path):
            node.n += 1
            node.w += reward
            reward = 1.0 - reward
    best = max(range(len(tree.children)), key=lambda k: tree.children[k].n)
    return tree.moves[best]
