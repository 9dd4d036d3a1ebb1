"""A random-playout checker for any game family (Kalah, Oware, and Bao when it lands).

``check_random_playouts(game, games=N, seed=S, total_seeds=48)`` plays random games through the
public API and checks, at every ply:

- seed conservation: every count in ``board()`` (pits, stores, and any ``hands``) sums to
  ``total_seeds``;
- ``legal_moves`` is sorted, without duplicates, non-empty exactly while ``outcome`` is None;
- ``notation``/``parse`` round-trip for every legal move; ``describe``/``position`` and
  msgpack encode/decode round-trip the state exactly;
- ``play`` leaves its input unchanged (encoded bytes before and after) and returns a
  ``state_type``;
- ``steps`` replayed on the pre-move ``board()`` give exactly the post-move ``board()``
  (``STEP_KINDS`` says what each kind does; a family with new kinds adds them there);
- ``apply`` agrees with ``play``, ``steps``, ``notation``, ``to_move``, ``outcome`` and
  ``choices`` (each choice is a legal move's notation with its ``origin``);
- every game ends within ``max_plies`` and its outcome agrees with its score.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec

from engine import Outcome, Step

Board = dict[str, Any]


def _add(board: Board, place: str | None, seeds: int) -> None:
    assert place is not None, "a step that moves seeds must name its place"
    if place.startswith("store"):
        board["stores"][int(place[5:])] += seeds
    elif place.startswith("hand"):
        board["hands"][int(place[4:])] += seeds
    else:
        board["pits"][place] += seeds


def _lift(board: Board, step: Step, hand: list[int]) -> None:
    _add(board, step.pit, -step.seeds)
    hand[0] += step.seeds


def _drop(board: Board, step: Step, hand: list[int]) -> None:
    _add(board, step.pit, step.seeds)
    hand[0] -= step.seeds


def _store(board: Board, step: Step, hand: list[int]) -> None:
    _add(board, step.to, step.seeds)
    hand[0] -= step.seeds


def _end(board: Board, step: Step, hand: list[int]) -> None:
    if step.pit is not None:  # a pit cleared into ``to``; without a pit, the end marker
        _add(board, step.pit, -step.seeds)
        _add(board, step.to, step.seeds)


def _nothing(board: Board, step: Step, hand: list[int]) -> None:
    pass


# What each step kind does to a board and to the seeds in hand (lifted, not yet placed).
STEP_KINDS: dict[str, Callable[[Board, Step, list[int]], None]] = {
    "lift": _lift,
    "sow": _drop,
    "capture": _lift,
    "store": _store,
    "end": _end,
    "extra-turn": _nothing,
    "grand-slam": _nothing,
}


def apply_steps(board: Board, steps: tuple[Step, ...]) -> Board:
    """The board after ``steps``, replayed on a copy of ``board``; no seed may stay in hand."""
    out: Board = {k: (dict(v) if isinstance(v, dict) else list(v)) for k, v in board.items()}
    hand = [0]
    for step in steps:
        assert step.kind in STEP_KINDS, f"unknown step kind {step.kind!r}"
        STEP_KINDS[step.kind](out, step, hand)
        assert hand[0] >= 0, f"more seeds placed than lifted at {step}"
    assert hand[0] == 0, f"{hand[0]} seeds left in hand after {steps}"
    return out


def seeds_on(board: Board) -> int:
    """Every seed a board() shows: pits, stores and hands."""
    return sum(board["pits"].values()) + sum(board["stores"]) + sum(board.get("hands", ()))


def check_outcome(outcome: Outcome) -> None:
    """The winner has the higher score; a draw has equal scores."""
    assert outcome.winner is None or (type(outcome.winner) is int and outcome.winner in (0, 1))
    if outcome.score is not None:
        south, north = outcome.score
        expected = None if south == north else int(north > south)
        assert outcome.winner == expected, outcome


def check_position(game: Any, state: Any, total_seeds: int) -> tuple[Any, ...]:
    """Every per-position invariant; returns the legal moves."""
    board = game.board(state)
    assert seeds_on(board) == total_seeds, (game.describe(state), board)
    assert all(n >= 0 for n in board["pits"].values()) and min(board["stores"]) >= 0
    legal = game.legal_moves(state)
    outcome = game.outcome(state)
    assert isinstance(legal, tuple)
    assert list(legal) == sorted(set(legal)), legal
    assert (outcome is None) == bool(legal), (game.describe(state), legal, outcome)
    assert game.to_move(state) in (0, 1)
    text = game.describe(state)
    assert isinstance(text, str) and "\n" not in text
    assert game.position(text) == state, text
    data = msgspec.msgpack.encode(state)
    assert msgspec.msgpack.decode(data, type=game.state_type) == state, text
    for move in legal:
        assert game.parse(state, game.notation(move)) == move, (text, move)
    return legal


def check_choices(game: Any, state: Any) -> None:
    """``choices`` are the legal moves in order, each with its notation and ``origin``."""
    legal = game.legal_moves(state)
    choices = game.choices(state)
    assert [c.move for c in choices] == [game.notation(m) for m in legal], choices
    assert [(c.pit, c.choice) for c in choices] == [game.origin(m, state) for m in legal]


def check_move(game: Any, state: Any, move: Any) -> Any:
    """Play ``move`` and check purity, steps and ``apply``; returns the new state."""
    before = msgspec.msgpack.encode(state)
    transition = game.apply(state, move)
    steps = game.steps(state, move)
    after = game.play(state, move)
    assert msgspec.msgpack.encode(state) == before, "play() or apply() changed its input"
    assert transition.move == move and transition.notation == game.notation(move)
    assert transition.after == after, (game.describe(transition.after), game.describe(after))
    assert msgspec.msgpack.encode(transition.after) == msgspec.msgpack.encode(after)
    assert transition.steps == steps
    assert transition.to_move == game.to_move(after)
    assert transition.outcome == game.outcome(after)
    assert transition.choices == game.choices(after)
    check_choices(game, after)
    assert isinstance(after, game.state_type)
    for step in steps:  # what goes on the wire: exact types (a bool is not a player)
        assert type(step) is Step and type(step.seeds) is int, step
        assert step.player is None or type(step.player) is int, step
    replayed = apply_steps(game.board(state), steps)
    assert replayed == game.board(after), (game.describe(state), game.notation(move), steps)
    return after


def check_random_playouts(
    game: Any,
    games: int = 100,
    seed: int = 0,
    total_seeds: int = 48,
    max_plies: int = 2000,
) -> Counter[Any]:
    """Play ``games`` random games of ``game`` checking every invariant at every ply.

    Returns a Counter of (winner, reason, adjudication) so callers can check the endings
    they expect were reached.
    """
    rng = random.Random(seed)
    endings: Counter[Any] = Counter()
    for _ in range(games):
        state = game.start()
        for _ply in range(max_plies + 1):
            legal = check_position(game, state, total_seeds)
            if not legal:
                break
            state = check_move(game, state, rng.choice(legal))
        else:
            raise AssertionError(f"no end after {max_plies} plies: {game.describe(state)}")
        outcome = game.outcome(state)
        check_outcome(outcome)
        endings[outcome.winner, outcome.reason, outcome.adjudication] += 1
    return endings
