"""Openings for the strength benches (``strength.py``, ``vs_openspiel.py``): random, and
balanced when asked.

A match from random openings with the sides alternating (each opening played twice, once
each way) measures the players only where the opening leaves the game open. An opening that
is already won for one side, whatever is played next, gives each player one win of its pair
(a *split*) and pulls every score towards 50 %. Valued by a 100,000-node search (seed 1, 20
openings of four random plies each): Kalah -14 … +9 seeds, Oware -5 … +4, Bao la Kiswahili
-3 … +18, Nakakamado A -4 … +26, and in Bao la Kujifunza 13 of 20 were a forced win for one
side before either player moved (the expert-against-advanced run there split 33 of 35 pairs).

``balanced`` draws random openings in a fixed order from a seed and keeps the first that a
search (``engine.ai.valuation``: the basic evaluation, ``nodes`` positions, deterministic)
finds neither forced nor more than ``within`` seeds from even. The search is the engine's own,
so "balanced" means balanced as far as the advanced level's evaluation sees, at about seven
times its nodes; it says nothing about which side a perfect player would win.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import engine
from engine import ai, search


class Opening(NamedTuple):
    moves: list[Any]  # from the start
    state: Any
    value: float | None  # the search's value, South's view, in seeds (None: not valued)
    draws: int  # random openings drawn to find this one


def load(spec: str) -> Any:
    """The game a profile spec names: ``kalah`` or ``kalah:seeds=6,empty_capture=true``."""
    name, _, opts = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, opts.split(",")):
        key, _, value = item.partition("=")
        options[key] = (
            value.lower() == "true"
            if value.lower() in ("true", "false")
            else int(value)
            if value.isdigit()
            else value
        )
    return engine.load(name, **options)


def random_opening(
    game: Any, plies: int, rng: random.Random, careful: bool = True
) -> tuple[list[Any], Any]:
    """``plies`` random moves from the start, each among those that do not lose by force
    within a short search (``hangs``; every legal move when not ``careful``); drawn again
    from ``rng`` if the game ends."""
    while True:
        state, moves = game.start(), []
        for _ in range(plies):
            legal = game.legal_moves(state)
            if not legal:
                break
            safe = [m for m in legal if not careful or not hangs(game, state, m)]
            move = rng.choice(safe or legal)
            moves.append(move)
            state = game.play(state, move)
        if game.legal_moves(state):
            return moves, state


def hangs(game: Any, state: Any, move: Any) -> bool:
    """Does ``move`` lose by force within a short search (3,000 nodes)? (In Bao la Kujifunza a
    game can end on the third ply.)"""
    me = game.to_move(state)
    after = game.play(state, move)
    out = game.outcome(after)
    if out is not None:
        return bool(out.winner == 1 - me)
    if game.to_move(after) == me:
        return False  # a Kalah extra turn: never a blunder at once
    _, result = ai.analyse(game, after, ai.Budget(nodes=3_000, seconds=60.0), 0)
    return result is not None and result.value >= search.WIN


def balanced(
    game: Any, plies: int, seed: str, within: float = 0.0, nodes: int = 100_000, tries: int = 200
) -> Opening:
    """The first of the random openings drawn from ``seed`` that the search values within
    ``within`` seeds of even, with no forced win found (``within`` 0: the first opening,
    not valued). After ``tries`` draws, the most even one seen.

    Bao draws differently (its runs began after this was measured): at 30-odd moves a ply,
    ``hangs`` cost most of a Bao draw, and in Bao la Kujifunza about 30 draws are needed for
    one balanced opening (18 openings took 55 minutes of CPU), so Bao's random plies are
    plain uniform (the valuation rejects forced wins anyway) and a search of a fifth of the
    nodes first throws out draws it finds forced or far from even (``4 * within + 8``)."""
    rng = random.Random(seed)
    closest: Opening | None = None
    bao = game.family == "bao"
    for draw in range(1, tries + 1):
        moves, state = random_opening(game, plies, rng, careful=not bao)
        if within <= 0:
            return Opening(moves, state, None, draw)
        if bao:
            v = ai.valuation(game, state, nodes // 5, seconds=600.0)
            if v.winner is not None or abs(v.value) > 4 * within + 8:
                continue
        v = ai.valuation(game, state, nodes, seconds=600.0)
        if v.winner is not None:
            continue
        found = Opening(moves, state, v.value, draw)
        if abs(v.value) <= within:
            return found
        if closest is None or abs(v.value) < abs(closest.value or 0.0):
            closest = found
    if closest is None:
        raise RuntimeError(f"no opening of {plies} plies without a forced win in {tries} draws")
    return closest


class Cache:
    """Balanced openings found before, a JSON line each (moves in the game's notation), keyed
    by everything that decides them: the profile, the family's engine (``runlog.fingerprint``),
    the seed string, plies, ``within`` and nodes. In Bao la Kujifunza one opening costs about a
    minute of search, so a run keeps them (``--openings FILE``) for the next run or session."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        self.lines: dict[str, list[str]] = {}
        if self.path and self.path.exists():
            for line in self.path.read_text().splitlines():
                entry = json.loads(line)
                self.lines[entry["key"]] = entry["moves"]

    @staticmethod
    def key(spec: str, engine_id: str, seed: str, plies: int, within: float, nodes: int) -> str:
        return json.dumps([spec, engine_id, seed, plies, within, nodes])

    def get(self, game: Any, key: str) -> Opening | None:
        texts = self.lines.get(key)
        if texts is None:
            return None
        state, moves = game.start(), []
        for text in texts:
            move = game.parse(state, text)
            moves.append(move)
            state = game.play(state, move)
        return Opening(moves, state, None, 0)

    def put(self, game: Any, key: str, opening: Opening) -> None:
        texts = [game.notation(m) for m in opening.moves]
        self.lines[key] = texts
        if self.path:
            with self.path.open("a") as f:
                f.write(json.dumps({"key": key, "moves": texts, "value": opening.value}) + "\n")


def distinct(
    first: dict[int, list[Any]], redraw: Callable[[int, int], list[Any]], attempts: int = 100
) -> dict[int, list[Any]]:
    """The openings ``first`` (pair ``k``: its moves), each one already taken by a lower ``k``
    replaced by ``redraw(k, attempt)`` for attempts 1, 2, … until it is new. A run's pairs then
    start from different openings: drawn independently they repeat, and in Kalah two balanced
    random plies give only 9 openings in 100 pairs (11 pairs each on average), so a
    player's one weak line counted a dozen times. After ``attempts`` redraws of one pair a
    ``RuntimeError`` says so: Bao la Kujifunza has only about 40 openings of four plies within
    6 seeds of even (147 balanced draws gave 32 distinct ones, 9 seen once), so 100 distinct
    ones cannot be found there and a run needs more plies (``--opening``)."""
    seen: set[str] = set()
    out: dict[int, list[Any]] = {}
    for k in sorted(first):
        moves, attempt = first[k], 0
        while repr(moves) in seen:
            attempt += 1
            if attempt > attempts:
                raise RuntimeError(
                    f"pair {k}: {attempts} redraws all repeat one of the {len(seen)} openings "
                    "of the pairs before it; draw more plies (--opening)"
                )
            moves = redraw(k, attempt)
        seen.add(repr(moves))
        out[k] = moves
    return out
