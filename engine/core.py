"""The contract every game family implements, and the values they share.

A game is loaded by profile name (``engine.load("kalah", seeds=6)``) and is a
stateless object whose methods take and return immutable states::

    game.start() -> state
    game.to_move(state) -> 0 | 1              # 0 = South, moves first
    game.legal_moves(state) -> tuple[move]    # sorted; empty exactly when over
    game.play(state, move) -> state           # IllegalMove for anything else
    game.outcome(state) -> Outcome | None
    game.notation(move) -> str
    game.parse(state, text) -> move           # a legal move: BadNotation / IllegalMove
    game.describe(state) -> str ; game.position(text) -> state
    game.steps(state, move) -> tuple[Step, ...]
    game.board(state) -> dict                 # what a client draws
    game.apply(state, move) -> Transition     # all of the above for one move, in one pass
    game.choices(state) -> tuple[Choice, ...] # the legal moves as a player picks them
    game.origin(move, state) -> (pit, choice) # the pit clicked for a move, and what tells it apart

``apply`` is what a server calls once per move: the position after, the move's steps, its
notation, the outcome, whose turn it is and the legal moves that follow, with the sowing run
once. ``play`` is the same rules without the steps, for playouts and tests.

Moves are small hashable, orderable values; their text (``notation``) is what
crosses the wire. States are frozen msgspec Structs (``game.state_type``), so
they encode with ``msgspec.msgpack`` for storage.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec


class IllegalMove(ValueError):
    """A move that is not legal in the given position."""


class BadNotation(ValueError):
    """Text that is not a move (or not a position) in this game's notation."""


class BadOptions(ValueError):
    """Unknown profile or option, or an option value out of range."""


class Outcome(msgspec.Struct, frozen=True, omit_defaults=True):
    """How a finished game ended.

    ``winner`` is 0 (South), 1 (North) or None (draw or no winner).
    ``score`` is the final (South, North) seed count where the game keeps one.
    ``reason`` says what ended it in the game's own terms (``"board-empty"``,
    ``"front-empty"``, ``"resignation"`` …); ``adjudication`` is None for an
    ending by the rules of play and otherwise names the judgement applied
    (``"repetition"``, ``"resignation"``, ``"agreement"``, ``"safety-stop"``).
    """

    winner: int | None
    reason: str
    score: tuple[int, int] | None = None
    adjudication: str | None = None


class Step(msgspec.Struct, frozen=True, omit_defaults=True):
    """One animation step of a move, for a client to replay.

    ``kind`` is one of: ``lift`` (all ``seeds`` leave ``pit``), ``sow`` (one
    seed lands in ``pit``), ``capture`` (``seeds`` leave ``pit`` for the
    mover), ``store`` (``seeds`` arrive in ``to``), ``place`` (a seed from hand
    into ``pit``), ``relay``, ``stop``, ``extra-turn``, ``pass``, ``stage``,
    ``end`` and the like. Pits are named as in the game's notation; stores,
    score trays and hands as ``store0``/``store1`` and ``hand0``/``hand1``.
    ``player`` says whose seeds or whose pit where that matters; ``note``
    carries a word such as a stage name or a stop reason.
    """

    kind: str
    pit: str | None = None
    seeds: int = 0
    to: str | None = None
    player: int | None = None
    note: str | None = None


class Choice(msgspec.Struct, frozen=True):
    """A legal move as a player picks it: its notation (``move``), the pit a player clicks
    (None for a pass) and the words that tell it from other moves from that pit (``choice``:
    a direction, a kichwa, ``+`` for safari …; empty when the pit says it all)."""

    move: str
    pit: str | None
    choice: str


class Transition(msgspec.Struct, frozen=True):
    """Everything one legal move did, from ``game.apply(state, move)``.

    ``after`` is the new state (``game.play`` gives the same), ``steps`` its animation
    (``game.steps``), ``notation`` the move's text, ``to_move`` the player to move in
    ``after``, ``outcome`` ``game.outcome(after)`` and ``choices`` ``game.choices(after)``
    (empty exactly when the game is over).
    """

    move: Any
    notation: str
    steps: tuple[Step, ...]
    after: Any
    to_move: int
    outcome: Outcome | None
    choices: tuple[Choice, ...]


def resigned(loser: int) -> Outcome:
    """The outcome of ``loser`` resigning (rules K10, O12)."""
    return Outcome(winner=1 - loser, reason="resignation", adjudication="resignation")


def agreed_draw() -> Outcome:
    """The outcome of a draw agreed by both players (rules K10, O12)."""
    return Outcome(winner=None, reason="agreement", adjudication="agreement")


class Game(Protocol):
    """What ``engine.load`` returns. See the module docstring."""

    profile: str
    family: str  # "kalah", "oware" or "bao": the rules machinery a profile is played with
    options: dict[str, Any]
    state_type: type

    def start(self) -> Any: ...
    def to_move(self, state: Any) -> int: ...
    def legal_moves(self, state: Any) -> tuple[Any, ...]: ...
    def play(self, state: Any, move: Any) -> Any: ...
    def outcome(self, state: Any) -> Outcome | None: ...
    def notation(self, move: Any) -> str: ...
    def parse(self, state: Any, text: str) -> Any: ...
    def describe(self, state: Any) -> str: ...
    def position(self, text: str) -> Any: ...
    def steps(self, state: Any, move: Any) -> tuple[Step, ...]: ...
    def board(self, state: Any) -> dict[str, Any]: ...
    def apply(self, state: Any, move: Any) -> Transition: ...
    def choices(self, state: Any) -> tuple[Choice, ...]: ...
    def origin(self, move: Any, state: Any | None = None) -> tuple[str | None, str]: ...
