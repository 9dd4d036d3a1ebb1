"""``strength.py --latency N``: every level and the hint timed on ``N`` positions from random
games per profile, one at a time in this process (CPU and wall milliseconds a move: mean, 99th
percentile, max) and how many searches the wall-clock cap stopped before the node budget."""

from __future__ import annotations

import random
import time

from openings import load

from engine import ai


def latency(profiles: list[str], count: int) -> None:
    """Time each level and the hint on positions from random games (see the docstring)."""
    print(
        f"{'profile':18} {'level':13} {'cpu mean/p99/max ms':>22} {'wall mean/p99/max ms':>22}"
        f" {'cap s':>5} {'capped':>6}",
        flush=True,
    )
    for spec in profiles:
        game = load(spec)
        ai.prepare(game)
        rng = random.Random(f"latency/{spec}")
        states = []
        while len(states) < count:  # plain random games: no blunder filter needed here
            state = game.start()
            for _ in range(rng.randrange(0, 60)):
                moves = game.legal_moves(state)
                if not moves:
                    break
                state = game.play(state, rng.choice(moves))
            if game.legal_moves(state):
                states.append(state)
        fam = ai.family(game)
        for level in (*ai.LEVELS, "hint"):
            budget = ai.HINT[fam] if level == "hint" else ai.BUDGETS[fam][level]
            cpu, wall, capped = [], [], 0
            for k, state in enumerate(states):
                c0, w0 = time.process_time(), time.perf_counter()
                _, result = ai.analyse(game, state, budget, k)
                cpu.append(1000 * (time.process_time() - c0))
                wall.append(1000 * (time.perf_counter() - w0))
                if (
                    result is not None
                    and result.nodes < budget.nodes - 1
                    and (wall[-1] >= 1000 * budget.seconds)
                ):
                    capped += 1

            def stats(xs: list[float]) -> str:
                xs = sorted(xs)
                return (
                    f"{sum(xs) / len(xs):.1f}/{xs[min(len(xs) - 1, int(0.99 * len(xs)))]:.0f}"
                    f"/{xs[-1]:.0f}"
                )

            print(
                f"{spec:18} {level:13} {stats(cpu):>22} {stats(wall):>22} "
                f"{budget.seconds:5.2f} {capped:6}",
                flush=True,
            )
