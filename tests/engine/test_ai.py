"""The computer player (``engine.ai``): behaviour, not timings.

Legal moves at every level in every profile, the same move for the same seed, forced wins
and captures found in constructed positions, Kalah extra turns and exact endgames checked
against a plain minimax over the public API, and the hint.
"""

from __future__ import annotations

import random
import time
from functools import cache

import pytest

import engine
from engine import ai

PROFILES = [
    ("kalah", {}),
    ("kalah", {"seeds": 6}),
    ("kalah", {"seeds": 3, "empty_capture": True}),
    ("oware", {}),
] + [(p.name, {}) for p in engine.profiles() if p.name.startswith("bao")]


def positions(game, count: int, seed: int) -> list:
    """Positions from random games (the start included), live ones only."""
    rng = random.Random(seed)
    out = [game.start()]
    while len(out) < count:
        state = game.start()
        for _ in range(rng.randrange(1, 60)):
            moves = game.legal_moves(state)
            if not moves:
                break
            state = game.play(state, rng.choice(moves))
        if game.legal_moves(state):
            out.append(state)
    return out


@pytest.mark.parametrize(
    ("profile", "options"), PROFILES, ids=[f"{p}{o or ''}" for p, o in PROFILES]
)
def test_every_level_plays_legal_deterministic_moves(profile, options):
    game = engine.load(profile, **options)
    for k, state in enumerate(positions(game, 4, seed=len(profile))):
        legal = game.legal_moves(state)
        for level in ("beginner", "intermediate"):
            move = ai.choose(game, state, level, seed=k)
            assert move in legal
            assert ai.choose(game, state, level, seed=k) == move
    state = positions(game, 2, seed=3)[1]
    budget = ai.BUDGETS[ai.family(game)]["advanced"]
    small = budget._replace(nodes=min(budget.nodes, 3000))
    a = ai.analyse(game, state, small, seed=5)[0]
    assert a in game.legal_moves(state)
    assert ai.analyse(game, state, small, seed=5)[0] == a
    assert ai.hint(game, game.start(), seed=1) in game.legal_moves(game.start())


def test_levels_are_the_servers():
    assert ai.LEVELS[:3] == ("beginner", "intermediate", "advanced")
    for fam in ai.BUDGETS.values():
        assert set(fam) == set(ai.LEVELS)
    game = engine.load("kalah")
    with pytest.raises(ValueError):
        ai.choose(game, game.start(), "grandmaster", 0)


def test_finished_game_has_no_move():
    game = engine.load("kalah")
    over = game.position("0 0 0 0 0 0 [25] 0 0 0 0 0 0 [23] South")
    with pytest.raises(ValueError):
        ai.choose(game, over, "beginner", 0)


def test_kalah_extra_turn_then_capture():
    # f's one seed reaches the store (K5: South moves again); then e's seed lands in the
    # emptied f and captures A's ten (K6). Playing e first captures nothing.
    game = engine.load("kalah")
    state = game.position("0 0 0 0 1 1 [18] 10 1 0 0 0 0 [17] South")
    for level in ("intermediate", "advanced"):
        assert game.notation(ai.choose(game, state, level, seed=0)) == "f"
    assert game.notation(ai.hint(game, state, seed=0)) == "f"
    after = game.play(state, game.parse(state, "f"))
    assert game.notation(ai.choose(game, after, "advanced", seed=0)) == "e"


def test_kalah_north_extra_turn_same_sign():
    # The mirror for North: an extra turn must not flip the side the value belongs to.
    game = engine.load("kalah")
    state = game.position("10 1 0 0 0 0 [17] 0 0 0 0 1 1 [18] North")
    assert game.notation(ai.choose(game, state, "advanced", seed=0)) == "F"


def test_oware_takes_a_capture():
    # f's single seed makes A three: capture it (O6). Any other move gives nothing.
    game = engine.load("oware")
    state = game.position("1 0 0 0 0 1 / 2 0 3 0 0 1 score 20 20 South".replace("20 20", "20-20"))
    assert game.notation(ai.choose(game, state, "advanced", seed=0)) == "f"


def _value(game, state, memo) -> int:
    """Exact game value for the player to move: +1 win, 0 draw, -1 loss (public API)."""
    key = game.describe(state)
    if key in memo:
        return memo[key]
    out = game.outcome(state)
    if out is not None:
        v = 0 if out.winner is None else 1 if out.winner == game.to_move(state) else -1
    else:
        v = -2
        for m in game.legal_moves(state):
            nxt = game.play(state, m)
            w = _value(game, nxt, memo)
            # an extra turn keeps the player: the child's value is already ours
            w = w if game.to_move(nxt) == game.to_move(state) and not game.outcome(nxt) else -w
            if game.outcome(nxt) is not None:
                o = game.outcome(nxt)
                w = 0 if o.winner is None else 1 if o.winner == game.to_move(state) else -1
            v = max(v, w)
    memo[key] = v
    return v


@cache
def _endgames(profile: str, seeds_left: int, count: int) -> list:
    game = engine.load(profile)
    rng = random.Random(7)
    out = []
    while len(out) < count:
        state = game.start()
        while game.legal_moves(state) and sum(state.pits) > seeds_left:
            state = game.play(state, rng.choice(game.legal_moves(state)))
        if game.legal_moves(state) and len(game.legal_moves(state)) > 1:
            out.append(state)
    return out


@pytest.mark.parametrize(("profile", "seeds_left", "count"), [("kalah", 9, 25)])
def test_endgames_played_perfectly(profile, seeds_left, count):
    """In small Kalah endgames (extra turns, captures, the side-empty ending) the advanced
    level picks a move keeping the exact game value."""
    game = engine.load(profile)
    memo: dict[str, int] = {}
    for state in _endgames(profile, seeds_left, count):
        best = _value(game, state, memo)
        move = ai.choose(game, state, "advanced", seed=1)
        nxt = game.play(state, move)
        o = game.outcome(nxt)
        if o is not None:
            got = 0 if o.winner is None else 1 if o.winner == game.to_move(state) else -1
        else:
            got = _value(game, nxt, memo)
            if game.to_move(nxt) != game.to_move(state):
                got = -got
        assert got == best, game.describe(state)


def test_oware_repetition_is_seen_in_search():
    """Positions from random Oware games where a move ends the game by repetition (O11,
    through the game's history): a winning one is seen as a forced win; a losing one is not
    played unless every move loses."""
    from engine import search

    game = engine.load("oware")
    rng = random.Random(3)
    wins = losses = 0
    for _ in range(150):
        state = game.start()
        while game.legal_moves(state) and (wins < 4 or losses < 4):
            moves = game.legal_moves(state)
            me = game.to_move(state)
            ends = {m: game.outcome(game.play(state, m)) for m in moves}
            reps = {m: o for m, o in ends.items() if o and o.adjudication == "repetition"}
            if reps and len(moves) > 1:
                move, result = ai.analyse(game, state, ai.BUDGETS["oware"]["advanced"], 0)
                for m, o in reps.items():
                    if o.winner == me:
                        wins += 1
                        assert result.value >= search.WIN, game.describe(state)
                    elif o.winner == 1 - me:
                        losses += 1
                        assert move != m or result.value <= -search.WIN, game.describe(state)
            state = game.play(state, rng.choice(moves))
        if wins >= 4 and losses >= 4:
            break
    assert wins >= 4 and losses >= 4


def test_bao_finds_the_winning_capture():
    """Positions from random Bao games where a move empties the opponent's front row: the
    computer plays one of them, at every level but beginner."""
    for profile in [p.name for p in engine.profiles() if p.name.startswith("bao")]:
        game = engine.load(profile)
        rng = random.Random(11)
        found = 0
        for _ in range(400):
            state = game.start()
            while game.legal_moves(state) and found < 3:
                moves = game.legal_moves(state)
                me = game.to_move(state)
                wins = [
                    m for m in moves if (o := game.outcome(game.play(state, m))) and o.winner == me
                ]
                if wins and len(wins) < len(moves):
                    found += 1
                    for level in ("intermediate", "advanced"):
                        assert ai.choose(game, state, level, seed=found) in wins
                    break
                state = game.play(state, rng.choice(moves))
            if found >= 3:
                break
        assert found == 3, profile


def test_search_does_not_change_the_game_state():
    game = engine.load("oware")
    state = positions(game, 3, seed=9)[2]
    before = game.describe(state)
    ai.choose(game, state, "advanced", seed=0)
    assert game.describe(state) == before


def test_same_move_in_another_process():
    """The server asks a worker process, whose string hashing differs: the move must not."""
    import os
    import subprocess
    import sys

    code = (
        "import engine, random\n"
        "from engine import ai\n"
        "for name in ('kalah', 'oware', 'bao-kiswahili', 'bao-kujifunza'):\n"
        "    g = engine.load(name)\n"
        "    s = g.start()\n"
        "    r = random.Random(4)\n"
        "    for _ in range(6):\n"
        "        s = g.play(s, r.choice(g.legal_moves(s)))\n"
        "    print(name, *(g.notation(ai.choose(g, s, lv, 9)) for lv in ai.LEVELS))\n"
    )
    outs = set()
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            ).stdout
        )
    assert len(outs) == 1


@pytest.mark.parametrize("profile,options", PROFILES[::2])
def test_resting_in_the_pause_hook_changes_no_move(profile, options):
    """The server's workers rest in ``pause`` to leave the CPU to the event loop; the node
    budget, not the clock, decides the move, so the moves are the same."""
    game = engine.load(profile, **options)
    calls = [0]

    def pause() -> None:
        calls[0] += 1
        if calls[0] % 3 == 0:
            time.sleep(0.0005)

    for k, state in enumerate(positions(game, 3, seed=11)):
        for level in ai.LEVELS:
            assert ai.choose(game, state, level, k, pause) == ai.choose(game, state, level, k)
    assert calls[0] > 0
