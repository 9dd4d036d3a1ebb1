"""Post-game analysis: what the computer makes of every ply of a game record.

For each position of a game (the start, then the position after each ply) the search values it
with a fixed node budget (``NODES``, per family) through ``engine.ai.valuation``: the value in
seeds from South's view, the best move found and, when the search sees a forced win, the
winner. For each ply that gives

- ``before``: the value of the position before the ply;
- ``best``: the best move found there, and ``after``: the value of the move played (the
  position after it, searched with the same budget);
- ``loss``: the seeds the move gave away from the mover's side, and ``drop``: the expected
  score it gave away, and from that a ``label``.

Labels. A value ``v`` (seeds, South's view) reads as South's expected score
``E(v) = 1 / (1 + 3 ** (-v / scale))``: a lead of ``scale`` seeds is worth 3/4 of the
points, a forced win is worth 1 (and a forced loss 0). A ply's ``drop`` is how much of the
mover's expected score the move played gave away compared with the best move; the label is
``inaccuracy`` from a drop of 0.10, ``mistake`` from 0.20 and ``blunder`` from 0.30
(lichess's thresholds on the same kind of curve). A drop in expected score, not in seeds,
is what makes a move bad: giving back six seeds of a twenty-seed lead changes nothing; giving
away a forced win always counts. ``scale`` per family (``THRESHOLDS``), with what the labels
then mean in seeds from an even position:

=========  =====  ==========  ========  ========
family     scale  inaccuracy  mistake   blunder
=========  =====  ==========  ========  ========
kalah      5      1.9         3.9       6.3
oware      4      1.5         3.1       5.0
bao        8      3.0         6.2       10.1
=========  =====  ==========  ========  ========

Kalah's and Oware's seeds are the store/captured difference (Oware adds a quarter seed for
each seed on one's side, as its evaluation does); Bao's are the seeds each side owns (board
and hand) with a quarter seed for each front-row seed.

A ply whose mover had one legal move is ``forced`` and never labelled. A move that is the
best move found has no loss. A move the search of the next position likes better than its
parent's search liked the best move (the two searches see different horizons) has no loss
either: losses are never negative.

"Show me": for each labelled ply, ``line`` is the best line from the position before the ply,
``LINE`` plies long (shorter when the game ends): the best move, then the best move found at
each following position with a quarter of the budget, each with its board and steps so a
client can draw and animate it without knowing the rules.

Deterministic: every search runs on a node budget with seed 0 and no noise, so the same record
gives the same analysis on any machine (the wall-clock cap of ``engine.ai.valuation`` is a
safety net of 600 s). ``VERSION`` names the budgets and thresholds; a cache keyed with it
never serves an analysis made with other ones.

The work is cut in position-sized jobs (``value_job``, ``line_job``) so a host can run them
one at a time in a worker, report progress between them and stop when asked;
``assemble`` turns their answers into the ``Analysis``. ``analyse`` does it all in one call.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable
from typing import Any

import msgspec

from engine import ai, records

VERSION = 1
NODES: dict[str, int] = {"kalah": 20_000, "oware": 20_000, "bao": 4_000}
LINE = 4  # plies of the best line shown for a labelled ply


class Thresholds(msgspec.Struct, frozen=True):
    """How values read as expected scores, and the drops that earn each label."""

    scale: float  # seeds of lead worth 3/4 of the points
    inaccuracy: float = 0.10
    mistake: float = 0.20
    blunder: float = 0.30


THRESHOLDS: dict[str, Thresholds] = {
    "kalah": Thresholds(scale=5.0),
    "oware": Thresholds(scale=4.0),
    "bao": Thresholds(scale=8.0),
}


class Value(msgspec.Struct, frozen=True, array_like=True):
    """One position searched (``value_job``): position ``index`` (0: the start)."""

    index: int
    value: float  # seeds, South's view
    winner: int | None  # a forced win found for that side
    best: str | None  # notation of the best move found; None once over
    best_pit: str | None
    played: str | None  # the move the game played here; None at the last position
    played_pit: str | None
    side: int | None  # who was to move (None once over)
    forced: bool  # one legal move only
    depth: int
    nodes: int


class LineMove(msgspec.Struct, frozen=True):
    """One ply of a best line, drawn as a replay draws a ply."""

    move: str
    side: int
    pit: str | None
    board: dict[str, Any]
    steps: list[dict[str, Any]]


class PlyAnalysis(msgspec.Struct, frozen=True):
    ply: int  # 1-based, as in the record
    side: int  # who played it
    played: str
    best: str
    before: float  # seeds, South's view, before the ply
    after: float  # seeds, South's view, after the move played
    loss: float  # seeds the move gave away, mover's view (>= 0)
    drop: float  # expected score the move gave away (0..1)
    label: str | None  # "inaccuracy", "mistake", "blunder" or None
    forced: bool
    played_pit: str | None
    best_pit: str | None
    line: list[LineMove] = []


class Analysis(msgspec.Struct, frozen=True):
    version: int
    game: str
    family: str
    nodes: int  # the budget each position was searched with
    thresholds: Thresholds
    values: list[float]  # every position's value, seeds, South's view (0: the start)
    scores: list[float]  # every position's expected score for South (0..1): the graph
    winners: list[int | None]
    plies: list[PlyAnalysis]


# -- the jobs ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _replayed(data: bytes) -> tuple[Any, records.Record, list[Any]]:
    """(game, record, every position) for a record's bytes; kept for the next job of the same
    record (a worker is asked for one position at a time)."""
    record = records.load(data)
    game = records.game_of(record)
    states = [game.start()]
    for ply in records.replay(record):
        states.append(ply.after)
    return game, record, states


def plan(data: bytes) -> tuple[str, int]:
    """(family, plies) of a record; ``records.BadRecord`` if it does not load."""
    game, record, _ = _replayed(bytes(data))
    return game.family, len(record.moves)


def key(data: bytes) -> str:
    """The cache key of a record's analysis: its bytes and ``VERSION``."""
    return hashlib.sha256(b"analysis:%d:" % VERSION + bytes(data)).hexdigest()[:32]


def value_job(data: bytes, index: int, pause: Callable[[], None] | None = None) -> Value:
    """Search position ``index`` of the record (0: the start, ``plies``: the last)."""
    game, record, states = _replayed(bytes(data))
    if not 0 <= index < len(states):
        raise ValueError(f"no position {index} in a game of {len(states) - 1} plies")
    state = states[index]
    v = ai.valuation(game, state, NODES[game.family], 0, pause)
    moves = game.legal_moves(state)
    played = record.moves[index] if index < len(record.moves) else None
    played_pit = game.origin(game.parse(state, played), state)[0] if played else None
    best = game.notation(v.move) if moves else None
    best_pit = game.origin(v.move, state)[0] if moves else None
    return Value(
        index,
        round(v.value, 2),
        v.winner,
        best,
        best_pit,
        played,
        played_pit,
        game.to_move(state) if moves else None,
        len(moves) == 1,
        v.depth,
        v.nodes,
    )


def line_job(
    data: bytes, index: int, first: str, pause: Callable[[], None] | None = None
) -> list[LineMove]:
    """The best line from position ``index``, starting with ``first`` (its best move)."""
    game, _, states = _replayed(bytes(data))
    state = states[index]
    out: list[LineMove] = []
    text: str | None = first
    budget = max(1, NODES[game.family] // 4)
    while text is not None and len(out) < LINE:
        move = game.parse(state, text)
        t = game.apply(state, move)
        out.append(
            LineMove(
                t.notation,
                game.to_move(state),
                game.origin(move, state)[0],
                game.board(t.after),
                msgspec.to_builtins(t.steps),
            )
        )
        state = t.after
        if not t.choices or len(out) >= LINE:
            break
        text = game.notation(ai.valuation(game, state, budget, 0, pause).move)
    return out


# -- putting it together -----------------------------------------------------------------------


def expected(value: float, winner: int | None, scale: float) -> float:
    """South's expected score (0..1) for a value in seeds (South's view)."""
    if winner is not None:
        return 1.0 if winner == 0 else 0.0
    x = max(-60.0, min(60.0, value / scale))
    return 1.0 / (1.0 + math.pow(3.0, -x))


def label(drop: float, t: Thresholds) -> str | None:
    for name, floor in (
        ("blunder", t.blunder),
        ("mistake", t.mistake),
        ("inaccuracy", t.inaccuracy),
    ):
        if drop >= floor - 1e-9:
            return name
    return None


def assemble(
    game_name: str, family: str, values: list[Value], lines: dict[int, list[LineMove]]
) -> Analysis:
    """The analysis from every position's ``Value`` (in order) and the lines found so far."""
    t = THRESHOLDS[family]
    scores = [round(expected(v.value, v.winner, t.scale), 4) for v in values]
    plies: list[PlyAnalysis] = []
    for v, nxt in zip(values, values[1:], strict=False):
        assert v.played is not None and v.side is not None and v.best is not None
        sign = 1.0 if v.side == 0 else -1.0
        me_before = scores[v.index] if v.side == 0 else 1 - scores[v.index]
        me_after = scores[nxt.index] if v.side == 0 else 1 - scores[nxt.index]
        same = v.forced or v.played == v.best
        loss = 0.0 if same else max(0.0, sign * (v.value - nxt.value))
        drop = 0.0 if same else max(0.0, me_before - me_after)
        plies.append(
            PlyAnalysis(
                v.index + 1,
                v.side,
                v.played,
                v.best,
                v.value,
                nxt.value,
                round(loss, 2),
                round(drop, 4),
                None if v.forced else label(drop, t),
                v.forced,
                v.played_pit,
                v.best_pit,
                lines.get(v.index + 1, []),
            )
        )
    return Analysis(
        VERSION,
        game_name,
        family,
        NODES[family],
        t,
        [v.value for v in values],
        scores,
        [v.winner for v in values],
        plies,
    )


def wanted_lines(analysis: Analysis) -> list[tuple[int, str]]:
    """(position index, first move) of every labelled ply's best line."""
    return [(p.ply - 1, p.best) for p in analysis.plies if p.label is not None]


def analyse(
    data: bytes,
    pause: Callable[[], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """The whole analysis of a record, in this process."""
    family, plies = plan(data)
    game_name = _replayed(bytes(data))[1].game
    values = []
    for i in range(plies + 1):
        values.append(value_job(data, i, pause))
        if progress is not None:
            progress(i + 1, plies + 1)
    first = assemble(game_name, family, values, {})
    lines = {i + 1: line_job(data, i, move, pause) for i, move in wanted_lines(first)}
    return assemble(game_name, family, values, lines)


encode = msgspec.json.Encoder().encode


def job(kind: str, data: bytes, index: int, first: str | None, pause: Any = None) -> bytes:
    """One job for a worker process, its answer as msgpack: ``plan`` -> [True, family, plies,
    game] or [False, why the record does not load],
    ``value`` -> ``Value`` of position ``index``, ``line`` -> the best line from position
    ``index`` starting with ``first``."""
    if kind == "plan":
        try:
            family, plies = plan(data)
        except records.BadRecord as exc:
            return msgspec.msgpack.encode([False, str(exc)])
        return msgspec.msgpack.encode([True, family, plies, _replayed(bytes(data))[1].game])
    if kind == "value":
        return msgspec.msgpack.encode(value_job(data, index, pause))
    if kind == "line" and first is not None:
        return msgspec.msgpack.encode(line_job(data, index, first, pause))
    raise ValueError(f"no analysis job {kind!r}")
