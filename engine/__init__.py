"""nyumba's rules engine: pure, immutable, no I/O.

>>> import engine
>>> game = engine.load("kalah")
>>> state = game.start()
>>> game.notation(game.legal_moves(state)[0])
'a'

``engine.load(profile, **options)`` returns a game object (see
``engine.core``); ``engine.profiles()`` lists the profiles with their options.
``game.apply(state, move)`` says everything one move did (``Transition``):

>>> t = game.apply(state, game.parse(state, "c"))
>>> t.notation, t.to_move, [c.move for c in t.choices]
('c', 0, ['a', 'b', 'd', 'e', 'f'])

The rules, rule by rule: ``docs/rules/``; the design: ``docs/design.md``.
"""

from __future__ import annotations

from engine.core import (
    BadNotation,
    BadOptions,
    Choice,
    Game,
    IllegalMove,
    Outcome,
    Step,
    Transition,
    agreed_draw,
    resigned,
)
from engine.registry import Option, Profile, load, profiles

__all__ = [
    "BadNotation",
    "BadOptions",
    "Choice",
    "Game",
    "IllegalMove",
    "Option",
    "Outcome",
    "Profile",
    "Step",
    "Transition",
    "agreed_draw",
    "load",
    "profiles",
    "resigned",
]
