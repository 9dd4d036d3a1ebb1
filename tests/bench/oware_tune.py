"""Learn the weights of Oware's expert evaluation from self-play (issue #20's "learn its weights").

    .venv/bin/python tests/bench/oware_tune.py play --games 600 --nodes 4000 --out FILE
        [--weights JSON] [--jobs 2]
    .venv/bin/python tests/bench/oware_tune.py fit FILE [FILE …]
    .venv/bin/python tests/bench/oware_tune.py match JSON [--games 40 --nodes 10000]

``play`` lets the search play itself (``--nodes`` a move, the expert evaluation (with
``--weights``, those instead of the shipped: the shipped weights were learned from games at
``results/oware_judged_weights.json``, the ones before them), Gaussian
noise of ``--noise`` seeds on the root values, from ``--opening`` random plies) and writes, per
game, every position as a packed board (``engine.oware.pack``) with the game's final score.
``fit`` says what each position was worth: the seeds its mover went on to gain over the
opponent from there (final margin minus captured margin now), and fits it by least squares
on ``features`` of the position, all from the mover's side; it prints each feature's weight in
seeds and in the evaluation's quarter seeds, and how much of the variance the fit explains
against captured-margin-only and against the shipped ``WEIGHTS``. The fit is an ordinary
least-squares solve of the normal equations (a dozen features: no library needed); the line
after "as Weights" is the tapered fit as a JSON object of ``engine.search.oware.Weights``' fields.
``match`` plays weights from such a file against the shipped ones, both at ``--nodes``.
About 2 s of CPU a self-play game at 4,000 nodes, 10 s a match game at 10,000.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from openings import random_opening  # noqa: E402

import engine  # noqa: E402
from engine import ai, search  # noqa: E402
from engine import oware as O  # noqa: E402
from engine.search import oware as SO  # noqa: E402

NAMES = SO.Weights._fields  # the evaluation's terms, each the mover's minus the opponent's


def features(x: int) -> list[float]:
    """The position's terms (``NAMES``) from its mover's side, as the expert evaluation counts
    them (``engine.search.oware.PIT_TERMS`` for the per-pit ones)."""
    data = x.to_bytes(15, "little")
    if x & 1:
        mine, theirs, store = data[7:13], data[1:7], data[14] - data[13]
    else:
        mine, theirs, store = data[1:7], data[7:13], data[13] - data[14]
    rows = {
        "captured": store,
        "threat": SO._threat(mine, theirs),
        "threatened": SO._threat(theirs, mine),
    }
    for name, term in SO.PIT_TERMS.items():
        rows[name] = sum(term(i, v) for i, v in enumerate(mine)) - sum(
            term(i, v) for i, v in enumerate(theirs)
        )
    return [float(rows[name]) for name in NAMES]


def play(task: tuple[int, int, float, int, dict[str, Any] | None]) -> dict[str, Any]:
    seed, nodes, noise, opening, weights = task
    evaluation = "expert"
    if weights is not None:
        search.TREES["oware"]["trial"] = _trial(weights)
        evaluation = "trial"
    game = engine.load("oware")
    rng = random.Random(seed)
    state = game.start()
    for _ in range(opening):
        state = game.play(state, rng.choice(game.legal_moves(state)))
    budget = ai.Budget(nodes=nodes, seconds=600.0, noise=noise, evaluation=evaluation)
    boards = []
    while moves := game.legal_moves(state):
        boards.append(O.pack(state))
        if len(moves) == 1:
            move = moves[0]
        else:
            seed_: Any = rng.random()  # a float, as the shipped weights' games were played with
            move = ai.analyse(game, state, budget, seed_)[0]
        state = game.play(state, move)
    over = game.outcome(state)
    assert over is not None and over.score is not None
    return {"seed": seed, "boards": boards, "score": list(over.score)}


def fit(paths: list[str]) -> None:
    rows: list[list[float]] = []
    ys: list[float] = []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            g = json.loads(line)
            south, north = g["score"]
            for x in g["boards"]:
                f = features(x)
                margin = south - north if not x & 1 else north - south
                board = 48 - (x >> O.SH[12] & 255) - (x >> O.SH[13] & 255)
                rows.append(f + [v * board / 48 for v in f])  # tapered: weight at 48 and at 0
                ys.append(margin - f[0])
    n, k = len(rows), len(NAMES)
    w = _solve(rows, ys, range(k))
    t = _solve(rows, ys, range(2 * k))
    print("tapered, weight in seeds with 48 seeds on the board / with none:")
    for j, name in enumerate(NAMES):
        print(f"{name:>11} {t[j] + t[j + k]:7.3f} {t[j]:7.3f}")
    learned = {
        name: [round(t[j] + t[j + k] + (j == 0), 3), round(t[j] + (j == 0), 3)]
        for j, name in enumerate(NAMES)
    }
    print("as Weights (captured: one seed of margin now plus its fitted gain):")
    print(json.dumps(learned))
    mean = sum(ys) / n
    total = sum((y - mean) ** 2 for y in ys)

    def explained(weights: list[float], cols: range | list[int]) -> float:
        err = sum((y - sum(weights[j] * r[j] for j in cols)) ** 2 for r, y in zip(rows, ys))
        return 1 - err / total

    print(
        f"{n} positions, {sum(1 for _ in paths)} files; variance of the future margin {total / n:.1f}"
    )
    print(f"{'feature':>11} {'seeds':>7} {'quarters':>8}")
    for name, v in zip(NAMES, w):
        print(f"{name:>11} {v:7.3f} {4 * v + (4 if name == 'captured' else 0):8.2f}")
    print(f"explained by the fit: {explained(w, range(k)):.3f}")
    print(f"explained by the tapered fit: {explained(t, range(2 * k)):.3f}")
    shipped = [a for a, _ in SO.WEIGHTS]  # the full board's weights; captured is the gain
    shipped[0] -= 1.0  # over the captured margin now
    print(f"explained by the shipped WEIGHTS (full board's): {explained(shipped, range(k)):.3f}")
    basic = [0.0] * k
    basic[1] = 0.25
    print(f"explained by the basic evaluation: {explained(basic, range(k)):.3f}")


def _solve(rows: list[list[float]], ys: list[float], cols: range) -> list[float]:
    """Least squares through the normal equations, by Gauss-Jordan elimination."""
    k = len(cols)
    a = [
        [sum(r[i] * r[j] for r in rows) for j in cols] + [sum(r[i] * y for r, y in zip(rows, ys))]
        for i in cols
    ]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(k):
            if r != c and a[c][c]:
                f = a[r][c] / a[c][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c])]
    return [a[i][k] / a[i][i] if a[i][i] else 0.0 for i in range(k)]


def match(task: tuple[dict[str, Any], int, int, int, int]) -> float:
    """One game, trial weights against the shipped ones, both at ``nodes``; the trial's
    points. Game ``index`` plays pair ``index // 2``'s opening, the trial South when even."""
    weights, nodes, index, seed, plies = task
    search.TREES["oware"]["trial"] = _trial(weights)
    game = engine.load("oware")
    rng = random.Random(seed * 7919 + index // 2)
    _, state = random_opening(game, plies, rng)
    side = index % 2  # the trial's side
    budgets = {
        side: ai.Budget(nodes=nodes, seconds=600.0, evaluation="trial"),
        1 - side: ai.Budget(nodes=nodes, seconds=600.0, evaluation="expert"),
    }
    ply = 0
    while moves := game.legal_moves(state):
        budget = budgets[game.to_move(state)]
        move = moves[0] if len(moves) == 1 else ai.analyse(game, state, budget, seed + ply)[0]
        state = game.play(state, move)
        ply += 1
    over = game.outcome(state)
    assert over is not None
    return 0.5 if over.winner is None else float(over.winner == side)


def _trial(weights: dict[str, Any]) -> type[SO.OwareExpertTree]:
    """The expert tree with ``weights`` (``Weights``' fields) instead of the shipped ones."""
    return type("Trial", (SO.OwareExpertTree,), {"tables": SO.weigh(SO.Weights(**weights))})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("play")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--nodes", type=int, default=4000)
    p.add_argument("--noise", type=float, default=0.5)
    p.add_argument("--opening", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--weights", help="a JSON object of Weights' fields (default: the shipped)")
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    m = sub.add_parser("match")
    m.add_argument("weights", help="a JSON object of Weights' fields")
    m.add_argument("--games", type=int, default=100)
    m.add_argument("--nodes", type=int, default=20000)
    m.add_argument("--opening", type=int, default=4)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "fit":
        fit(args.files)
        return
    if args.cmd == "match":
        weights = json.loads(Path(args.weights).read_text())
        games = [(weights, args.nodes, k, args.seed, args.opening) for k in range(args.games)]
        points = 0.0
        with Pool(args.jobs) as pool:
            for k, won in enumerate(pool.imap(match, games), 1):
                points += won
                if k % 10 == 0 or k == args.games:
                    print(
                        f"{k} games: trial {points:g} points, {100 * points / k:.1f} %", flush=True
                    )
        return
    weights = json.loads(Path(args.weights).read_text()) if args.weights else None
    tasks = [
        (args.seed * 1_000_003 + k, args.nodes, args.noise, args.opening, weights)
        for k in range(args.games)
    ]
    with Pool(args.jobs) as pool, open(args.out, "a") as out:
        for k, g in enumerate(pool.imap_unordered(play, tasks), 1):
            out.write(json.dumps(g) + "\n")
            out.flush()
            if k % 20 == 0:
                print(f"{k} games", flush=True)


if __name__ == "__main__":
    main()
