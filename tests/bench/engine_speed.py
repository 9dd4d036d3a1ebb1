"""Random-playout speed of the rules engines, in plies per second.

    .venv/bin/python tests/bench/engine_speed.py [--seconds 3] [--profiles kalah oware:...]

For each profile it plays uniformly random games from the start for ``--seconds`` on each of
two paths and prints plies per second of this process's CPU time (``time.process_time``, so
that other work on a shared machine does not count against it; the wall-clock rate is shown
too):

- ``fast``: ``game.random_playout()``, the private path the computer player uses (the same
  rules function as the public API, on a packed board, with no state objects);
- ``public``: the immutable API a server uses, ``legal_moves`` + a random choice + ``play``.

A profile is ``name`` or ``name:option=value,option=value``. Adding one to the default list is
a one-line change to ``PROFILES`` (Bao: add its lines when its family lands).
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine

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


def fast(game, seconds: float, rng: random.Random) -> tuple[int, int, float, float]:
    playout, rand = game.random_playout, rng.random
    plies = games = 0
    wall, start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            plies += playout(None, rand)[1]
        games += 20
    return plies, games, time.process_time() - start, time.perf_counter() - wall


def public(game, seconds: float, rng: random.Random) -> tuple[int, int, float, float]:
    plies = games = 0
    wall, start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        state = game.start()
        moves = game.legal_moves(state)
        while moves:
            state = game.play(state, rng.choice(moves))
            moves = game.legal_moves(state)
            plies += 1
        games += 1
    return plies, games, time.process_time() - start, time.perf_counter() - wall


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=PROFILES)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{args.seconds:g} CPU-s per path, random playouts from the start"
    )
    print(
        f"{'profile':36} {'path':7} {'plies/s':>10} {'games/s':>9} {'plies/game':>10} "
        f"{'wall plies/s':>12}"
    )
    for spec in args.profiles:
        game = load(spec)
        for label, run in (("fast", fast), ("public", public)):
            plies, games, cpu, wall = run(game, args.seconds, random.Random(args.seed))
            print(
                f"{spec:36} {label:7} {plies / cpu:10,.0f} {games / cpu:9,.0f} "
                f"{plies / games:10.1f} {plies / wall:12,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
