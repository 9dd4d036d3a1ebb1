"""The advanced level against DeepMind OpenSpiel's MCTS bot, in Kalah and Oware.

    /work/ospvenv/bin/python tests/bench/vs_openspiel.py [--games 200] [--jobs 2]
        [--games-list kalah oware] [--sims auto|N] [--level advanced] [--factor 1] [--match]
        [--opening 2] [--balance SEEDS] [--nodes N] [--evaluation basic|expert]
        [--log FILE --resume]

OpenSpiel is not a dependency of nyumba: install it in a separate virtualenv together with
msgspec (the engine's one import) and run this file with that Python, e.g.
``python3.11 -m venv /work/ospvenv && /work/ospvenv/bin/pip install open_spiel msgspec``. The
repository is put on ``sys.path`` here, so ``engine`` imports from the working tree. Without
``pyspiel`` the bench says so and exits 0 (it is a benchmark, not part of the test suite).

The opponent is OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``) with a C++ random-rollout evaluator
(``pyspiel.RandomRolloutEvaluator``, one rollout per leaf), UCT constant 2 and solving on, as
in OpenSpiel's own ``examples/mcts.py``. ``--sims auto`` sets its simulation count so that its
CPU time per move matches ours (``--factor F``: F times ours): it times the level on positions
from a few random games, times the bot on the same positions, and scales. A level thinks
longer on such positions than in its games (expert in Kalah: 169-208 ms a move in games, more
on the samples), so ``--match`` then sets each game's simulations from the match so far: MCTS's
CPU per simulation and ours per move, in each worker process (from the logged games too, on
``--resume``), so over a match both sides' mean CPU per move meet (``factor`` times ours for
MCTS). Both sides' CPU time per move over the match, and their ratio, are printed, so the match
of times can be checked. ``--nodes`` and ``--evaluation`` replace the level's node budget and
evaluation (for trying one).

Games: OpenSpiel's ``mancala`` is Kalah (six pits, four seeds, capture only opposite a
non-empty pit, the game ends when a side is empty and each side keeps its own seeds): our
``kalah`` profile with its defaults. Its ``oware`` is Abapa with the grand-slam, feeding and
repetition rules of our ``oware``; one difference, checked to change no result: when the
player to move cannot feed an empty opponent, OpenSpiel ends the game at once, ours one ply
later by O10 with the same seeds to the same player (``settle``). Move mapping: Kalah,
OpenSpiel's board is ring-ordered with North's store at 0, so our ring field ``r`` is its index
``r + 1`` and a move is that index;
Oware, an action is the pit index 0–5 counted from the mover's left, so our move is
``6 * player + action``. ``--check N`` replays N random games through both engines and compares
boards, scores, player to move and result after every ply before the match starts.

Sides alternate (game ``2k`` and ``2k+1`` share a random opening of ``--opening`` plies,
four by default, with the sides swapped); ``--balance SEEDS`` keeps only openings a search
values within that many seeds of even (``openings.balanced``), and no two pairs of a run share
an opening (``openings.distinct``; ``--repeats`` for the runs before, which drew each pair's
opening on its own from two plies: in Kalah 100 such pairs had 9 openings between them, so
every figure of those runs rests on 9 positions, each played 11 times a side on average,
and Oware's had 32). Score: our points (win 1,
draw ½) per game, and how many pairs split (each side won once: the opening, not the players,
decided). ``--log``/``--resume`` as in ``strength.py``: a run may span sessions.

Runs with balanced openings and matched CPU (``--match --balance 3``, seed 1, open_spiel 2.0.2;
logs in ``tests/bench/results/vs_openspiel.jsonl``); our points, W-D-L, pairs split, CPU ms a
move ours | MCTS. With distinct openings of four plies (the default now):

    kalah  expert    200 games  172-17-11  90.2 %  split 10 of 100  183   | 181   (~97,000 sims)
           (14-seed endgame table; with 12 seeds 172-15-13  89.8 %  split 12  197 | 198;
           with 10 seeds 169-18-13  89.0 %  split 12  297 | 303, on a host 1.5 times faster;
           the judged weights, 10 seeds: 164-15-21  85.8 %  split 15 of 100  304 | 298)
    kalah  advanced  200 games  177-11-12  91.2 %  split 12 of 100    6.4 | 6.3   (~3,300 sims)
           (10-seed table: 170-9-21  87.2 %  split 15 of 100  19.4 | 19.6, ~5,600 sims)
           (expert evaluation at 7,500 nodes: 166-16-18  87.0 %  split 19  41.3 | 42.8)
           (basic evaluation, 15,000 nodes, as before: 150-16-34  79.0 %  split 23  24.9 | 26.2)
    kalah  expert, MCTS 10x CPU (--factor 10), 200 games  150-25-25  81.2 %  split 24 of 100
           211 | 2,122  (~1,165,000 sims); as South 83.5 %, as North 79.0 %
    oware  advanced  200 games  182-6-12   92.5 %  split 11 of 100   96.2 | 96.8  (~3,400 sims)
    oware  expert    200 games  194-2-4    97.5 %  split  2 of 100  662   | 653   (~31,000 sims)
    oware  expert, MCTS 10x CPU (--factor 10), 200 games  169-11-20  87.2 %  split 18 of 100
           457 | 4,931  (~279,000 sims); as South 86.0 %, as North 88.5 %

With two random plies, openings repeating (``--repeats --opening 2``; Kalah: 9 openings):

    kalah  advanced  200 games  170-11-19  87.8 %  split 20 of 100   21.5 | 21.6  (~9,500 sims)
    oware  advanced  200 games  186-1-13   93.2 %  split 13 of 100   54.6 | 54.5  (~2,800 sims)
    kalah  expert    200 games  168-19-13  88.8 %  295 | 295; the judged weights 183-11-6  94.2 %
           split  6 of 100  248 | 246  (~107,000 sims)
    oware  expert    200 games  196-2-2    98.5 %  split  2 of 100  395   | 396   (~24,000 sims)
    kalah  expert (judged), MCTS 10x CPU (--factor 10), 200 games  139-21-40  74.8 %
           split 40 of 100  305 | 3,063  (~1,290,000 sims); as North 65.5 %, South 84.0 %.
           13 of the 40 losses come from one opening, 3 11, each lost as North in 16 plies;
           in the one replayed, MCTS (South) plays 1 and 4, a 2,000,000-node search then
           values the position +5 for South, and after the expert's fifth move finds South's
           forced win
    oware  expert with its judged weights, 20 games  16-0-4  80.0 %  500 | 491
    oware  expert at 30,000 nodes (``--nodes 30000``), 40 games each, weights of
           ``engine.search.oware.WEIGHTS`` as shipped 88.8 %; without the kroo term 81.2 %;
           without the kroo and own-side terms 87.5 % (156-182 ms a move, ~9,300 sims)

Earlier runs, random openings and a calibration only on sampled positions (200 games each,
2 jobs): kalah advanced 78.2 % (ours 19.2 ms, MCTS 20.2), oware advanced 94.5 % (46.3, 36.4);
the expert level, short runs: kalah 60 games 82.5 %, oware 32 games 73.4 %; MCTS with ten
times expert's CPU: kalah 6 games 5-0-1, oware 4 games 4-0-0.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

try:
    import pyspiel
except ImportError:  # pragma: no cover - depends on the machine
    pyspiel = None

from openings import balanced, distinct
from osp_rules import OSP_NAME, check, from_osp, result_matches, same, settle, to_osp
from runlog import append, fingerprint, logged

import engine
from engine import ai


def make_bot(profile: str, sims: int, seed: int) -> Any:
    og = pyspiel.load_game(OSP_NAME[profile])
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return og, pyspiel.MCTSBot(og, evaluator, 2.0, sims, 1000, True, seed, False)


def sample_positions(profile: str, count: int, seed: int) -> list[list[int]]:
    """Move lists reaching positions of random games (for calibration)."""
    game = engine.load(profile)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state, moves = game.start(), []
        for _ in range(rng.randrange(0, 40)):
            legal = game.legal_moves(state)
            if not legal:
                break
            m = rng.choice(legal)
            moves.append(m)
            state = game.play(state, m)
        if game.legal_moves(state):
            out.append(moves)
    return out


def calibrate(profile: str, level: str, seed: int, factor: float) -> tuple[int, float, float]:
    """(simulations for ``factor`` times our CPU, our CPU s/move, bot CPU s/simulation) on
    sampled positions."""
    game = engine.load(profile)
    og, bot = make_bot(profile, 2000, seed)
    ai.prepare(game)  # not timed: built once per process
    ours = theirs = 0.0
    sims = 0
    for k, moves in enumerate(sample_positions(profile, 24, seed)):
        state, s = game.start(), og.new_initial_state()
        for m in moves:
            state = game.play(state, m)
            s.apply_action(to_osp(profile, m))
        t = time.process_time()
        ai.choose(game, state, level, k)
        ours += time.process_time() - t
        t = time.process_time()
        bot.step(s)
        theirs += time.process_time() - t
        sims += 2000
    per_move, per_sim = ours / 24, theirs / sims
    return max(1, round(factor * per_move / per_sim)), per_move, per_sim


# Per worker process: CPU seconds and moves (ours) or simulations (MCTS's) so far in the
# match, from which each game's simulation count is set (``--match``).
SPENT = {"ours": [0.0, 0], "bot": [0.0, 0]}


def simulations(start: int, factor: float) -> int:
    """The simulations for MCTS's next game: ``factor`` times our CPU per move so far, at
    MCTS's CPU per simulation so far (``start`` until both have moved)."""
    (ours, moves), (bot, sims) = SPENT["ours"], SPENT["bot"]
    if not moves or not sims or not bot:
        return start
    return max(1, round(factor * (ours / moves) / (bot / sims)))


def set_level(
    level: str,
    nodes: int,
    evaluation: str,
    no_cap: bool,
    spent: dict[str, list[float]] | None = None,
) -> None:
    """``--nodes``/``--evaluation``/``--no-cap``: this worker's budget for ``level``; ``spent``:
    the logged games' CPU, so a resumed match goes on matching from where it stopped."""
    SPENT.update({k: list(v) for k, v in (spent or {}).items()})
    for budgets in ai.BUDGETS.values():
        b = budgets[level]
        budgets[level] = b._replace(
            nodes=nodes or b.nodes,
            evaluation=evaluation or b.evaluation,
            seconds=600.0 if no_cap else b.seconds,
        )


def play_game(task: tuple[str, str, int, float, int, int, list[int]]) -> dict[str, Any]:
    profile, level, start, factor, index, seed, opening = task
    game = engine.load(profile)
    sims = simulations(start, factor) if factor > 0 else start
    og, bot = make_bot(profile, sims, (seed * 1_000_003 + index) & 0x7FFFFFFF)
    ai.prepare(game)  # not timed: built once per process
    state, s = game.start(), og.new_initial_state()
    for m in opening:  # the pair's opening
        state = game.play(state, m)
        s.apply_action(to_osp(profile, m))
    ours_side = (game.to_move(state) + index) % 2
    spent = {"ours": [0.0, 0, 0.0], "bot": [0.0, 0, 0.0]}  # CPU s, moves, max
    plies = 0
    while game.legal_moves(state):
        t = time.process_time()
        if game.to_move(state) == ours_side:
            move = ai.choose(game, state, level, (seed * 1_000_003 + index) * 4096 + plies)
            who = "ours"
        else:
            action = bot.step(s)
            move = from_osp(profile, action, s.current_player())
            who = "bot"
        t = time.process_time() - t
        tally = spent[who]
        tally[0] += t
        tally[1] += 1
        tally[2] = max(tally[2], t)
        state = game.play(state, move)
        s.apply_action(to_osp(profile, move))
        plies += 1
        state = settle(game, state, s)
        if not same(profile, game, state, s):
            raise AssertionError(f"engines disagree: {game.describe(state)} / {s}")
    o = game.outcome(state)
    assert result_matches(game, state, s)
    SPENT["ours"][0] += spent["ours"][0]
    SPENT["ours"][1] += spent["ours"][1]
    SPENT["bot"][0] += spent["bot"][0]
    SPENT["bot"][1] += spent["bot"][1] * sims
    points = 0.5 if o.winner is None else 1.0 if o.winner == ours_side else 0.0
    return {
        "profile": profile,
        "index": index,
        "points": points,
        "plies": plies,
        "ours": spent["ours"],
        "bot": spent["bot"],
        "sims": sims,
        "side": ours_side,
        "opening": opening,
    }


def make_opening(task: tuple[str, int, int, int, float, int]) -> tuple[int, list[int]]:
    """Opening ``k`` of a run, drawn again (``attempt`` > 0) where an earlier pair has it."""
    profile, k, plies, seed, within, attempt = task
    game = engine.load(profile)
    key = f"{seed}/{profile}/{k}" + (f"/{attempt}" if attempt else "")
    return k, balanced(game, plies, key, within).moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games-list", nargs="+", default=["kalah", "oware"])
    ap.add_argument("--sims", default="auto")
    ap.add_argument("--level", default="advanced")
    ap.add_argument("--nodes", type=int, default=0, help="the level's node budget instead")
    ap.add_argument("--evaluation", default="", help="the level's evaluation instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--factor", type=float, default=1.0, help="MCTS's CPU per move over ours")
    ap.add_argument(
        "--match",
        action="store_true",
        help="set each game's simulations from both sides' CPU so far in the match",
    )
    ap.add_argument("--opening", type=int, default=4, help="random plies before the game")
    ap.add_argument(
        "--repeats",
        action="store_true",
        help="let pairs share an opening (the runs before openings were made distinct)",
    )
    ap.add_argument(
        "--balance", type=float, default=0.0, help="openings within this many seeds of even"
    )
    ap.add_argument("--check", type=int, default=200, help="random games to cross-check")
    ap.add_argument("--no-cap", action="store_true", help="our wall-clock cap 600 s")
    ap.add_argument("--log", help="append one line of JSON per game to this file, as it ends")
    ap.add_argument(
        "--resume", action="store_true", help="count the --log's games of this engine and run"
    )
    args = ap.parse_args()
    if pyspiel is None:
        print(
            "vs_openspiel: skipped: open_spiel (pyspiel) is not importable in this Python; "
            "install it in a separate venv with msgspec and run this file with that Python"
        )
        return
    for profile in args.games_list:
        engine_id = fingerprint(profile)  # the profiles here are families of their own
        run = {
            "profile": profile,
            "level": args.level,
            "nodes": args.nodes,
            "evaluation": args.evaluation,
            "seed": args.seed,
            "factor": args.factor,
            "match": args.match,
            "opening": args.opening,
            "balance": args.balance,
        }
        if not args.repeats:
            run["distinct"] = True
        results: dict[int, dict[str, Any]] = {}
        for g in logged(args.log if args.resume else None, run, lambda g: engine_id):
            if g["index"] < args.games:
                results.setdefault(g["index"], g)
        if args.check and len(results) < args.games:
            check(profile, args.check, args.seed)
        if args.sims == "auto":
            set_level(args.level, args.nodes, args.evaluation, args.no_cap)
            sims, per_move, per_sim = calibrate(profile, args.level, args.seed, args.factor)
            print(
                f"# {profile}: {args.level} takes {1000 * per_move:.1f} ms CPU per move on "
                f"sampled positions; MCTS {1e6 * per_sim:.1f} µs CPU per simulation: "
                f"{sims} simulations ({args.factor:g} x our CPU)"
                + (", then matched game by game" if args.match else ""),
                flush=True,
            )
        else:
            sims = int(args.sims)
        todo = [i for i in range(args.games) if i not in results]
        t0 = time.time()
        ctx = multiprocessing.get_context("spawn")
        logs = list(results.values())  # a resumed match goes on from the logged games' CPU
        so_far = {
            "ours": [sum(r["ours"][0] for r in logs), sum(r["ours"][1] for r in logs)],
            "bot": [sum(r["bot"][0] for r in logs), sum(r["bot"][1] * r["sims"] for r in logs)],
        }
        init = (args.level, args.nodes, args.evaluation, args.no_cap, so_far)
        with ctx.Pool(args.jobs, set_level, init) as pool:
            # distinct openings depend on every lower pair's, so all are drawn, even on resume
            pairs = sorted({i // 2 for i in (range(args.games) if not args.repeats else todo)})
            found = dict(
                pool.imap(
                    make_opening,
                    [(profile, k, args.opening, args.seed, args.balance, 0) for k in pairs],
                )
            )
            if not args.repeats:
                found = distinct(
                    found,
                    lambda k, n: make_opening(
                        (profile, k, args.opening, args.seed, args.balance, n)
                    )[1],
                )
            factor = args.factor if args.match else 0.0
            tasks = [(profile, args.level, sims, factor, i, args.seed, found[i // 2]) for i in todo]
            for r in pool.imap_unordered(play_game, tasks, chunksize=1):
                results[r["index"]] = r
                append(args.log, r, engine_id, run)
        summary(profile, list(results.values()), engine_id, time.time() - t0)


def summary(profile: str, results: list[dict[str, Any]], engine_id: str, seconds: float) -> None:
    pts = [r["points"] for r in results]
    w, d, lo = pts.count(1.0), pts.count(0.5), pts.count(0.0)
    ours = [sum(r["ours"][0] for r in results), sum(r["ours"][1] for r in results)]
    bot = [sum(r["bot"][0] for r in results), sum(r["bot"][1] for r in results)]
    by_pair: dict[int, float] = {}
    for r in results:
        by_pair[r["index"] // 2] = by_pair.get(r["index"] // 2, 0.0) + r["points"]
    split = sum(1 for v in by_pair.values() if v == 1.0)
    openings = {repr(r["opening"]) for r in results if "opening" in r}
    sims = sorted(r["sims"] for r in results)
    print(
        f"{profile}: {len(pts)} games vs OpenSpiel MCTS (simulations {sims[0]}–{sims[-1]}, "
        f"median {sims[len(sims) // 2]}): W-D-L {w}-{d}-{lo}, score "
        f"{100 * sum(pts) / len(pts):.1f}%; CPU ms/move ours {1000 * ours[0] / ours[1]:.1f} "
        f"(max {1000 * max(r['ours'][2] for r in results):.0f}), MCTS "
        f"{1000 * bot[0] / bot[1]:.1f} (max {1000 * max(r['bot'][2] for r in results):.0f}), "
        f"MCTS/ours {bot[0] / bot[1] / (ours[0] / ours[1]):.2f}; pairs split {split} of "
        f"{len(by_pair)} ({len(openings)} distinct openings logged); "
        f"{sum(r['plies'] for r in results) / len(results):.0f} plies/game; "
        f"engine {engine_id}; {seconds:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
