"""The computer player's search: one alpha-beta for every game family.

``engine.search.alphabeta`` is the search (iterative deepening, one transposition table, one
``Result``, one win scale); each family gives it a ``Tree`` (``engine.search.tree``): its move
generator, move ordering and evaluation on the family's own fast path, declared by the family
module (``kalah.play_packed``, ``oware.play_packed``/``moves_packed``/``Oware.seen``,
``bao_core.expand``/``finish`` with ``bao.move_of``/``Bao.takasia_ring``). ``TREES`` is the
registry, keyed by ``game.family``; a new family adds a module here and a line there.

>>> import engine, time
>>> from engine import search
>>> game = engine.load("kalah")
>>> search.think(game, game.start(), nodes=2000, expired=lambda: False).move in range(6)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.search.alphabeta import INF, WIN, Result, search, won
from engine.search.bao import BaoTree
from engine.search.kalah import KalahTree
from engine.search.oware import OwareTree
from engine.search.tree import Tree

TREES: dict[str, Callable[[Any, Any], Tree]] = {
    "kalah": KalahTree,
    "oware": OwareTree,
    "bao": BaoTree,
}


def think(
    game: Any,
    state: Any,
    nodes: int,
    expired: Callable[[], bool],
    max_depth: int = 64,
    rng: random.Random | None = None,
    noise: float = 0.0,
) -> Result:
    """Search ``state`` (live) of ``game`` with its family's tree; ``Result.move`` is one of
    ``game.legal_moves(state)``. See ``alphabeta.search`` for the arguments."""
    try:
        make = TREES[game.family]
    except KeyError:
        raise TypeError(f"no search for {game!r} (family {game.family!r})") from None
    return search(make(game, state), nodes, expired, max_depth, rng, noise)


__all__ = ["INF", "TREES", "WIN", "Result", "Tree", "think", "won"]
