"""Random-playout speed of the rules engines, in plies per second, beside OpenSpiel's.

    .venv/bin/python tests/bench/engine_speed.py [--seconds 3] [--rounds 3]
        [--profiles kalah oware:...]

For each profile it plays uniformly random games from the start on each path and prints plies
per second of this process's CPU time (``time.process_time``, so that other work on a shared
machine does not count against it; the wall-clock rate is shown too):

- ``fast``: ``game.random_playout()``, the packed-board path the computer player's playouts use
  (the same rules function as the public API, with no state objects);
- ``public``: the immutable API a server or a library user calls at every ply:
  ``legal_moves`` + a random choice + ``play`` + ``outcome``;
- ``openspiel``: for ``kalah`` (OpenSpiel's ``mancala``) and ``oware``, OpenSpiel's C++ engine
  driven from Python the same way: ``legal_actions`` + a random choice + ``apply_action`` +
  ``is_terminal``. It needs ``pyspiel`` (``pip install open_spiel`` in the same virtualenv; it
  is not a dependency of nyumba); without it the row says so.

The paths run interleaved, ``--rounds`` times ``--seconds`` each, so a change of load on a
shared machine touches them alike; the last column is ``public`` over ``openspiel``.

A profile is ``name`` or ``name:option=value,option=value``.

Figures (2 shared cores, load 3-6 from other work, 3 rounds of 2 s, CPython 3.11,
open_spiel 1.6): see the issue notes; public/OpenSpiel was 0.12x Kalah and 0.09x Oware before
the state cache, and is 0.4-0.5x and 0.35-0.4x with it.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine

try:
    import pyspiel
except ImportError:  # pragma: no cover - depends on the machine
    pyspiel = None

PROFILES = [
    "kalah",
    "kalah:seeds=6",
    "kalah:seeds=4,empty_capture=true",
    "oware",
    "bao-kiswahili",
    "bao-kiswahili:takasia=false",
    "bao-kujifunza",
    "bao-kujifunza:takasia=true",
    "bao-nakakamado-a",
]
OPENSPIEL = {"kalah": "mancala", "oware": "oware"}  # the same games (tests/bench/vs_openspiel.py)
Run = Callable[[float, random.Random], tuple[int, int]]


def option_value(text: str) -> bool | int | str:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return int(text) if text.lstrip("-").isdigit() else text


def load(spec: str) -> engine.Game:
    """``name`` or ``name:option=value,…`` -> the game."""
    name, _, opts = spec.partition(":")
    options = {}
    for item in filter(None, opts.split(",")):
        key, _, value = item.partition("=")
        options[key] = option_value(value)
    return engine.load(name, **options)


def fast(game: Any) -> Run:
    def run(seconds: float, rng: random.Random) -> tuple[int, int]:
        playout, rand = game.random_playout, rng.random
        plies = games = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            for _ in range(20):
                plies += playout(None, rand)[1]
            games += 20
        return plies, games

    return run


def public(game: Any) -> Run:
    def run(seconds: float, rng: random.Random) -> tuple[int, int]:
        legal_moves, play, outcome, choice = game.legal_moves, game.play, game.outcome, rng.choice
        plies = games = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            state = game.start()
            while outcome(state) is None:
                state = play(state, choice(legal_moves(state)))
                plies += 1
            games += 1
        return plies, games

    return run


def openspiel(name: str) -> Run:
    osp = pyspiel.load_game(name)

    def run(seconds: float, rng: random.Random) -> tuple[int, int]:
        choice = rng.choice
        plies = games = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            state = osp.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
                plies += 1
            games += 1
        return plies, games

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=PROFILES)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    osp_version = getattr(pyspiel, "__version__", "installed") if pyspiel else "not installed"
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, pyspiel "
        f"{osp_version}, {args.rounds} x {args.seconds:g} CPU-s per path, interleaved, "
        f"random playouts from the start"
    )
    print(
        f"{'profile':36} {'path':9} {'plies/s':>10} {'games/s':>9} {'plies/game':>10} "
        f"{'wall plies/s':>12} {'public/openspiel':>16}"
    )
    for spec in args.profiles:
        game = load(spec)
        paths: dict[str, Run] = {"fast": fast(game), "public": public(game)}
        if spec in OPENSPIEL and pyspiel is not None:
            paths["openspiel"] = openspiel(OPENSPIEL[spec])
        totals = {label: [0, 0, 0.0, 0.0] for label in paths}
        rngs = {label: random.Random(args.seed) for label in paths}
        for _ in range(args.rounds):
            for label, run in paths.items():
                wall, cpu = time.perf_counter(), time.process_time()
                plies, games = run(args.seconds, rngs[label])
                t = totals[label]
                t[0] += plies
                t[1] += games
                t[2] += time.process_time() - cpu
                t[3] += time.perf_counter() - wall
        rate = {label: t[0] / t[2] for label, t in totals.items()}
        for label, (plies, games, cpu, wall) in totals.items():
            ratio = ""
            if label == "openspiel":
                ratio = f"{rate['public'] / rate['openspiel']:.2f}x"
            print(
                f"{spec:36} {label:9} {plies / cpu:10,.0f} {games / cpu:9,.0f} "
                f"{plies / games:10.1f} {plies / wall:12,.0f} {ratio:>16}",
                flush=True,
            )
        if spec in OPENSPIEL and pyspiel is None:
            print(f"{spec:36} openspiel (pyspiel not installed: pip install open_spiel)")


if __name__ == "__main__":
    main()
