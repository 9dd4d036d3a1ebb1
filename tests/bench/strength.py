"""Strength of the computer levels: each level against the one below, per game.

    .venv/bin/python tests/bench/strength.py [--games 200] [--jobs 2] [--profiles kalah oware …]
        [--pairs beginner:intermediate intermediate:advanced …] [--opening 4] [--bao-mcts N]
        [--balance SEEDS] [--log FILE --resume]

For each profile and each pairing (lower:upper), ``--games`` games are played (200 by
default): game ``2k`` and ``2k+1`` start from the same random opening (``--opening`` uniformly
random plies from the start, drawn from the bench seed and ``k``) with the sides swapped, so
sides alternate and each opening is played both ways (opening moves that hand the opponent an
immediate win are left out: ``openings.random_opening``). ``--balance SEEDS`` keeps only
openings a 100,000-node search values within that many seeds of even with no forced win
(``openings.balanced``: drawn again from the same seed until one is), so a pair measures the
levels rather than the opening; the gate runs use ``--balance 3``. Every move is ``engine.ai.choose`` with
a seed drawn from the game and ply. The score is the upper level's points (win 1, draw ½) per
game; the target is ≥ 70 %. Per level it prints the mean and worst CPU time per move
(``time.process_time`` of the worker, so other work on a shared machine does not count) and
the wall-clock mean, how many of the openings the upper level won with both sides and how
many split one game each (the same side winning both: an opening that decides the game
whatever the levels, as most do in Bao la Kujifunza), and how many moves hit the level's
wall-clock cap (none should: the node budget is meant to bind first, which is what keeps a
level deterministic). ``--no-cap`` lifts
the caps to 600 s, for a host that stops the bench now and then (a stopped process's wall
clock runs on, and a cap that binds there makes a move weaker and irreproducible).

``--bao-mcts N`` instead plays, per Bao profile, the advanced alpha-beta against UCT with
random playouts (``tests/bench/uct.py``) given ``N`` playouts per move (pick ``N`` so both use
about the same time per move; the times are printed): how the Bao search was chosen.

``--latency N`` instead times every level and the hint on ``N`` positions from random games
per profile, one at a time in this process: CPU and wall milliseconds per move (mean, 99th
percentile, max) and how many searches the wall-clock cap stopped before the node budget.

Last full run (200 games a pairing, 2 jobs, opening 4, seed 1; upper level's score; CPU ms a
move of the upper level, mean/max; no move hit a wall-clock cap):

    kalah             beginner:intermediate   183-3-14   92.2 %    1.6/8
    kalah             intermediate:advanced   194-1-5    97.2 %   17.9/73
    oware             beginner:intermediate   192-2-6    96.5 %    0.7/23
    oware             intermediate:advanced   199-1-0    99.8 %   42.8/145
    bao-kiswahili     beginner:intermediate   182-0-18   91.0 %    0.2/27
    bao-kiswahili     intermediate:advanced   200-0-0   100.0 %   55.3/146
    bao-kujifunza     beginner:intermediate   162-0-38   81.0 %    0.2/19
    bao-kujifunza     intermediate:advanced   169-0-31   84.5 %   34.6/112
    bao-nakakamado-a  beginner:intermediate   174-0-26   87.0 %    0.2/14
    bao-nakakamado-a  intermediate:advanced   197-0-3    98.5 %   52.3/127

Expert against advanced from balanced openings (``--pairs advanced:expert --no-cap --balance
3``), 200 games, logged in ``tests/bench/results/strength.jsonl``, each pair's opening drawn on
its own (at four plies about 80 of Kalah's 100 are distinct, 90 of Oware's):

    kalah             advanced:expert  200 games  171-12-17  88.5 %  254/1,150  (19 of 100 split)
                      (advanced then searched with the basic evaluation; the judged weights:
                      162-14-24, 84.5 %, 338/1,218, 27 split)
    oware             advanced:expert  200 games  189-4-7    95.5 %  369/927    (7 split)
    bao-kiswahili     advanced:expert  200 games  170-0-30   85.0 %  817/2,157  (22 split)
    bao-kujifunza     advanced:expert  200 games  148-0-52   74.0 %  624/1,542  (52 split)
    bao-nakakamado-a  advanced:expert  200 games  168-0-32   84.0 %  1,070/2,608  (30 split)

(``--balance 6`` for the Bao profiles.) No two pairs of a run share an opening now
(``openings.distinct``: a repeat is drawn again from the seed and an attempt number), which
logs ``"distinct": true`` with the run; ``--repeats`` selects the runs above. Kalah's advanced
level now searches 3,000 nodes with the expert evaluation; from distinct openings, on a host a
third as fast as the one above (Kalah's expert evaluation: 98,000 nodes a second):

    kalah             advanced:expert  200 games  133-30-37  74.0 %  610/2,009  (37 of 100 split)

Games run in ``--jobs`` worker processes; ``--log FILE`` appends each game as a line of JSON
as it ends, so a run stopped early still leaves its games, and ``--resume`` counts the games
of the log that the same engine (``runlog.fingerprint``, a digest of ``engine/``) played with
the same seed, opening and balance, and plays only the rest: a 200-game run may span sessions
(``tests/bench/results/`` keeps such logs). A game still going after ``--max-plies`` plies is
scored a draw and counted in the ``capped`` column.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import uct
from latency import latency
from openings import Cache, Opening, balanced, distinct, load
from runlog import append, fingerprint, logged

from engine import ai

PROFILES = ["kalah", "oware", "bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"]
PAIRS = ["beginner:intermediate", "intermediate:advanced", "advanced:expert"]


def player_move(game: Any, state: Any, who: str, seed: int) -> Any:
    if who.startswith("mcts"):
        n = int(who.split("=")[1])
        deadline = time.perf_counter() + 30
        return uct.mcts(game, state, n, lambda: time.perf_counter() > deadline, random.Random(seed))
    return ai.choose(game, state, who, seed)


def make_opening(task: tuple[str, int, int, int, float, int, int]) -> tuple[int, Opening]:
    """Opening ``k`` of a run (its pair of games shares it): see ``openings.balanced``; drawn
    again (``attempt`` > 0) where a lower pair has it."""
    spec, k, plies, bench_seed, within, nodes, attempt = task
    return k, balanced(load(spec), plies, draw_seed(bench_seed, spec, k, attempt), within, nodes)


def draw_seed(bench_seed: int, spec: str, k: int, attempt: int) -> str:
    # the seed string as before openings could be balanced: a run with --balance 0 replays
    # the openings of earlier runs (not hash(): str hashes differ per process)
    return f"{bench_seed}/{spec}/{k}" + (f"/{attempt}" if attempt else "")


def play_game(task: tuple[str, str, str, int, list[Any], int, int]) -> dict[str, Any]:
    spec, lower, upper, index, moves, bench_seed, max_plies = task
    game = load(spec)
    ai.prepare(game)  # not timed: built once per process
    state = game.start()
    for m in moves:
        state = game.play(state, m)
    upper_side = (game.to_move(state) + index) % 2  # the pair plays each opening both ways
    names = {upper_side: upper, 1 - upper_side: lower}
    cpu: dict[str, list[float]] = {lower: [0.0, 0, 0.0], upper: [0.0, 0, 0.0]}  # sum, n, max
    wall: dict[str, float] = {lower: 0.0, upper: 0.0}
    capped = {lower: 0, upper: 0}
    plies = 0
    while game.legal_moves(state) and plies < max_plies:
        who = names[game.to_move(state)]
        c0, w0 = time.process_time(), time.perf_counter()
        move = player_move(game, state, who, (bench_seed * 1_000_003 + index) * 4096 + plies)
        c, w = time.process_time() - c0, time.perf_counter() - w0
        tally = cpu[who]
        tally[0] += c
        tally[1] += 1
        tally[2] = max(tally[2], c)
        wall[who] += w
        if not who.startswith("mcts") and w >= _cap(game, who):
            capped[who] += 1
        state = game.play(state, move)
        plies += 1
    out = game.outcome(state)
    if out is None or out.winner is None:
        points = 0.5
    else:
        points = 1.0 if out.winner == upper_side else 0.0
    return {
        "spec": spec,
        "pair": f"{lower}:{upper}",
        "points": points,
        "plies": plies,
        "unfinished": out is None,
        "cpu": cpu,
        "wall": wall,
        "capped": capped,
        "upper_side": upper_side,
        "index": index,
        "opening": [game.notation(m) for m in moves],
    }


def _lift_caps() -> None:
    """``--no-cap``: every level's wall-clock cap 600 s, in this worker."""
    for levels in ai.BUDGETS.values():
        for level, budget in levels.items():
            levels[level] = budget._replace(seconds=600.0)


def _cap(game: Any, level: str) -> float:
    return ai.BUDGETS[ai.family(game)][level].seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", nargs="+", default=PROFILES)
    ap.add_argument("--pairs", nargs="+", default=PAIRS)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--opening", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=1000)
    ap.add_argument(
        "--bao-mcts",
        type=int,
        default=0,
        help="play advanced alpha-beta against MCTS with this many playouts",
    )
    ap.add_argument("--json", help="append one line of results per pairing to this file")
    ap.add_argument(
        "--no-cap",
        action="store_true",
        help="wall-clock caps of 600 s (on a host that pauses the bench, so no cap binds)",
    )
    ap.add_argument(
        "--log", help="append one line per game to this file (a long run's partial results)"
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="count the --log's games of this engine and run settings; play only the rest",
    )
    ap.add_argument(
        "--balance",
        type=float,
        default=0.0,
        help="keep only openings a search values within this many seeds of even (openings.py)",
    )
    ap.add_argument("--balance-nodes", type=int, default=100_000)
    ap.add_argument(
        "--openings", help="keep balanced openings in this file and take them from it (Cache)"
    )
    ap.add_argument(
        "--repeats",
        action="store_true",
        help="let pairs share an opening (the runs before openings were made distinct)",
    )
    ap.add_argument(
        "--latency",
        type=int,
        default=0,
        help="time every level and the hint on this many positions per profile",
    )
    args = ap.parse_args()
    if args.latency:
        latency(args.profiles, args.latency)
        return
    pairs = [p.split(":") for p in args.pairs]
    if args.bao_mcts:
        pairs = [[f"mcts={args.bao_mcts}", "advanced"]]
        args.profiles = [p for p in args.profiles if p.startswith("bao")]
    engine_ids = {spec: fingerprint(ai.family(load(spec))) for spec in args.profiles}
    run: dict[str, Any] = {"seed": args.seed, "opening": args.opening, "balance": args.balance}
    if not args.repeats:
        run["distinct"] = True
    results: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    done: set[tuple[str, str, int]] = set()
    log = args.log if args.resume else None
    wanted = {f"{lo}:{up}" for lo, up in pairs}
    for g in logged(log, run, lambda g: engine_ids.get(g["spec"])):
        key = (g["spec"], g["pair"], g["index"])
        if key not in done and g["index"] < args.games and g["pair"] in wanted:
            done.add(key)
            results[g["spec"], g["pair"]].append(g)
    print(
        f"# engine {' '.join(sorted(set(engine_ids.values())))}; opening {args.opening} random plies"
        + (f", balanced within {args.balance:g} seeds" if args.balance else "")
        + f"; seed {args.seed}; {len(done)} games from the log",
        flush=True,
    )
    tasks_open = [  # distinct openings depend on every lower pair's: all are drawn on resume
        (spec, k, args.opening, args.seed, args.balance, args.balance_nodes, 0)
        for spec in args.profiles
        for k in range((args.games + 1) // 2)
        if not args.repeats
        or any((spec, f"{lo}:{up}", i) not in done for lo, up in pairs for i in (2 * k, 2 * k + 1))
    ]
    print(
        f"{'profile':18} {'pair':24} {'games':>5} {'W-D-L':>11} {'score':>6} "
        f"{'plies':>5} {'capped':>6}  cpu ms/move mean/max (wall mean), lower | upper",
        flush=True,
    )
    expected = {(spec, f"{lo}:{up}"): args.games for spec in args.profiles for lo, up in pairs}
    for key, games in results.items():
        if len(games) == expected.get(key):
            report(key, games, args.json)
    t0 = time.time()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.jobs, _lift_caps if args.no_cap else None) as pool:
        found: dict[tuple[str, int], Opening] = {}
        cache = Cache(args.openings if args.balance else None)
        games = {spec: load(spec) for spec in args.profiles}

        def key(spec: str, k: int, attempt: int) -> str:
            seed = draw_seed(args.seed, spec, k, attempt)
            return Cache.key(
                spec, engine_ids[spec], seed, args.opening, args.balance, args.balance_nodes
            )

        keys = {(spec, k): key(spec, k, 0) for spec, k, *_ in tasks_open}
        for spec, k, *_ in tasks_open:
            known = cache.get(games[spec], keys[spec, k])
            if known is not None:
                found[spec, k] = known
        tasks_open = [t for t in tasks_open if (t[0], t[1]) not in found]
        for task, (k, op) in zip(
            tasks_open, pool.imap(make_opening, tasks_open, chunksize=1), strict=True
        ):
            found[task[0], k] = op
            cache.put(games[task[0]], keys[task[0], k], op)
        if args.balance and tasks_open:
            draws = [found[t[0], t[1]].draws for t in tasks_open]
            print(
                f"# {len(tasks_open)} openings balanced within {args.balance:g} seeds; "
                f"{sum(draws)} drawn ({max(draws)} at most for one); "
                f"{len(found) - len(tasks_open)} from {args.openings}",
                flush=True,
            )
        moves = {sk: op.moves for sk, op in found.items()}
        if not args.repeats:

            def redraw(spec: str, k: int, attempt: int) -> list[Any]:
                game, at = games[spec], key(spec, k, attempt)
                op = cache.get(game, at)
                if op is None:
                    task = (spec, k, args.opening, args.seed, args.balance, args.balance_nodes)
                    op = make_opening((*task, attempt))[1]
                    cache.put(game, at, op)
                return op.moves

            for spec in args.profiles:
                own = {k: m for (s, k), m in moves.items() if s == spec}
                new = distinct(own, lambda k, n, spec=spec: redraw(spec, k, n))
                moves.update({(spec, k): m for k, m in new.items()})
        tasks = [  # game by game across the pairings: a run stopped early has some of each
            (spec, lo, up, i, moves[spec, i // 2], args.seed, args.max_plies)
            for i in range(args.games)
            for spec in args.profiles
            for lo, up in pairs
            if (spec, f"{lo}:{up}", i) not in done
        ]
        for r in pool.imap_unordered(play_game, tasks, chunksize=1):
            key = (r["spec"], r["pair"])
            results[key].append(r)
            append(args.log, r, engine_ids[r["spec"]], run)
            if len(results[key]) == expected[key]:
                report(key, results[key], args.json)
    for key, games in results.items():
        if len(games) < expected[key]:
            report(key, games, args.json)
    print(f"# done in {time.time() - t0:.0f} s", flush=True)


def report(key: tuple[str, str], games: list[dict[str, Any]], path: str | None) -> None:
    spec, pair = key
    lower, upper = pair.split(":")
    pts = [g["points"] for g in games]
    w, d, lo = pts.count(1.0), pts.count(0.5), pts.count(0.0)
    score = 100 * sum(pts) / len(pts)
    plies = sum(g["plies"] for g in games) / len(games)
    capped = sum(g["capped"][lower] + g["capped"][upper] for g in games)
    unfinished = sum(g["unfinished"] for g in games)

    def times(level: str) -> tuple[float, float, float]:
        n = sum(g["cpu"][level][1] for g in games)
        if not n:
            return 0.0, 0.0, 0.0
        cpu = sum(g["cpu"][level][0] for g in games)
        wall = sum(g["wall"][level] for g in games)
        return 1000 * cpu / n, 1000 * max(g["cpu"][level][2] for g in games), 1000 * wall / n

    tl, tu = times(lower), times(upper)
    by_opening: dict[int, float] = defaultdict(float)
    for g in games:
        by_opening[g["index"] // 2] += g["points"]
    both = sum(1 for v in by_opening.values() if v == 2.0)
    split = sum(1 for v in by_opening.values() if v == 1.0)
    print(
        f"{spec:18} {pair:24} {len(games):5} {f'{w}-{d}-{lo}':>11} {score:5.1f}% "
        f"{plies:5.0f} {capped:6}  {tl[0]:.1f}/{tl[1]:.0f} ({tl[2]:.1f}) | "
        f"{tu[0]:.1f}/{tu[1]:.0f} ({tu[2]:.1f})"
        + (f"  [{unfinished} stopped at the ply limit]" if unfinished else "")
        + f"  openings won both ways {both}, split {split} of {len(by_opening)}",
        flush=True,
    )
    if path:
        with open(path, "a") as f:
            f.write(
                json.dumps(
                    {
                        "profile": spec,
                        "pair": pair,
                        "games": len(games),
                        "wins": w,
                        "draws": d,
                        "losses": lo,
                        "score": round(score, 1),
                        "plies": round(plies, 1),
                        "capped": capped,
                        "cpu_ms_lower": round(tl[0], 2),
                        "cpu_ms_upper": round(tu[0], 2),
                        "max_ms_lower": round(tl[1], 1),
                        "max_ms_upper": round(tu[1], 1),
                    }
                )
                + "\n"
            )


if __name__ == "__main__":
    main()
