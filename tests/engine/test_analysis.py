"""Post-game analysis (engine/analysis.py): labels, best moves, determinism."""

from __future__ import annotations

import random

import pytest

import engine
from engine import ai, analysis, records


def blunder_game() -> tuple[bytes, int, str]:
    """A Kalah game in which one ply throws away a won position.

    Both sides play the intermediate level until the player to move has a forced win that the
    analysis budget sees, and a move that does not keep it; that move is played; the
    advanced level plays the game out. Returns (record, the ply number, the winning move)."""
    game = engine.load("kalah")
    state = game.start()
    moves: list[str] = []
    bad: tuple[int, str] | None = None
    rng = random.Random(7)
    nodes = analysis.NODES["kalah"]
    while game.legal_moves(state):
        mover = game.to_move(state)
        move = None
        if bad is None and len(game.legal_moves(state)) > 1:
            v = ai.valuation(game, state, nodes)
            if v.winner == mover:
                for m in game.legal_moves(state):
                    after = ai.valuation(game, game.play(state, m), nodes)
                    if after.winner != mover:
                        move = m
                        bad = (len(moves) + 1, game.notation(v.move))
                        break
        if move is None:
            level = "intermediate" if bad is None else "advanced"
            move = ai.choose(game, state, level, rng.randrange(1 << 30))
        moves.append(game.notation(move))
        state = game.play(state, move)
    assert bad is not None, "the game never reached a forced win"
    return records.text(records.dump(game, moves)).encode(), bad[0], bad[1]


@pytest.fixture(scope="module")
def blunder():
    return blunder_game()


def test_thrown_away_win_is_a_blunder_and_the_best_move_wins(blunder):
    data, ply, winning = blunder
    result = analysis.analyse(data)
    p = result.plies[ply - 1]
    assert p.ply == ply
    assert p.label == "blunder", p
    assert p.best == winning
    assert result.winners[ply - 1] == p.side  # the position before it was won
    assert result.winners[ply] != p.side  # and the move played let it go
    # the best line starts with the winning move, and a client can draw every ply of it
    assert p.line and p.line[0].move == winning and p.line[0].side == p.side
    assert all(m.board and m.steps for m in p.line)
    game = engine.load("kalah")
    state = records.replay(data)[ply - 1].before
    assert ai.valuation(game, game.play(state, game.parse(state, winning)), 20_000).winner == p.side


def test_same_record_same_analysis(blunder):
    data = blunder[0]
    first = analysis.encode(analysis.analyse(data))
    assert analysis.encode(analysis.analyse(data)) == first
    analysis._replayed.cache_clear()  # and from a cold start, as another worker would
    assert analysis.encode(analysis.analyse(data)) == first


def test_every_ply_and_position_is_covered(blunder):
    data = blunder[0]
    result = analysis.analyse(data)
    n = len(records.load(data).moves)
    assert len(result.plies) == n and len(result.values) == n + 1 == len(result.scores)
    assert all(0.0 <= s <= 1.0 for s in result.scores)
    for p in result.plies:
        assert p.loss >= 0 and 0 <= p.drop <= 1
        if p.played == p.best or p.forced:
            assert p.label is None and p.loss == 0
        if p.label is None:
            assert p.line == []


def test_labels_follow_the_documented_thresholds():
    t = analysis.THRESHOLDS["kalah"]
    assert analysis.label(0.09, t) is None
    assert analysis.label(0.10, t) == "inaccuracy"
    assert analysis.label(0.2, t) == "mistake"
    assert analysis.label(0.35, t) == "blunder"
    # a lead of `scale` seeds is worth 3/4; forced results are 1 and 0
    assert analysis.expected(5.0, None, 5.0) == pytest.approx(0.75)
    assert analysis.expected(-3.0, 0, 5.0) == 1.0 and analysis.expected(3.0, 1, 5.0) == 0.0


@pytest.mark.parametrize("profile", ["oware", "bao-kiswahili"])
def test_other_families(profile):
    game = engine.load(profile)
    state = game.start()
    moves = []
    for k in range(6):
        move = ai.choose(game, state, "beginner", k)
        moves.append(game.notation(move))
        state = game.play(state, move)
    data = records.text(records.dump(game, moves)).encode()
    result = analysis.analyse(data)
    assert result.family == game.family and len(result.plies) == 6
    assert [p.played for p in result.plies] == moves
    assert all(p.best_pit is None or isinstance(p.best_pit, str) for p in result.plies)


def test_a_bad_record_is_refused():
    with pytest.raises(records.BadRecord):
        analysis.plan(b'{"format": "nyumba-record"}')
