"""The computer player's entry point.

``choose(game, state, level, seed)`` returns a legal move. Until the search
lands (the computer-player issue) every level plays a uniformly random legal
move, deterministic for a given seed.
"""

from __future__ import annotations

import random
from typing import Any

LEVELS = ("beginner", "intermediate", "advanced")


def choose(game: Any, state: Any, level: str, seed: int) -> Any:
    moves = game.legal_moves(state)
    if not moves:
        raise ValueError("no legal move: the game is over")
    return random.Random(seed).choice(moves)
