"""The computer player's search: one alpha-beta for every game family.

``engine.search.alphabeta`` is the search (iterative deepening, one transposition table, one
``Result``, one win scale); each family gives it a ``Tree`` (``engine.search.tree``): its move
generator, move ordering and evaluation on the family's own fast path, declared by the family
module (``kalah.play_packed``, ``oware.play_packed``/``moves_packed``/``Oware.seen``,
``bao_core.expand``/``finish`` with ``bao.move_of``/``Bao.takasia_ring``). ``TREES`` is the
registry, keyed by ``game.family`` and then by evaluation: ``"basic"`` (the first three levels;
Kalah's first two) or ``"expert"`` (the expert level, the hint and Kalah's advanced level: more
features, and Kalah's endgame table, ``engine.search.kalah_table``); a new family adds a module
here and a line there.

>>> import engine
>>> from engine import search
>>> game = engine.load("kalah")
>>> result = search.alphabeta(search.tree(game, game.start()), 2000, expired=lambda: False)
>>> result.move in game.legal_moves(game.start())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.search.alphabeta import INF, WIN, Result, alphabeta, won
from engine.search.bao import BaoExpertTree, BaoTree
from engine.search.kalah import KalahExpertTree, KalahTree
from engine.search.oware import OwareExpertTree, OwareTree
from engine.search.tree import Tree

EVALUATIONS = ("basic", "expert")
TREES: dict[str, dict[str, Callable[[Any, Any], Tree]]] = {
    "kalah": {"basic": KalahTree, "expert": KalahExpertTree},
    "oware": {"basic": OwareTree, "expert": OwareExpertTree},
    "bao": {"basic": BaoTree, "expert": BaoExpertTree},
}


def tree(game: Any, state: Any, evaluation: str = "basic") -> Tree:
    """The search tree of ``state`` (live) in ``game``, from its family's entry in ``TREES``
    with ``evaluation`` (one of ``EVALUATIONS``);
    ``alphabeta(tree(game, state), …).move`` is one of ``game.legal_moves(state)``."""
    try:
        make = TREES[game.family][evaluation]
    except KeyError:
        raise TypeError(
            f"no search for {game!r} (family {game.family!r}, evaluation {evaluation!r})"
        ) from None
    return make(game, state)


__all__ = ["EVALUATIONS", "INF", "TREES", "WIN", "Result", "Tree", "alphabeta", "tree", "won"]
