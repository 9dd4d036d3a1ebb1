"""Random playouts on every profile and option set (STYLE convention 6).

Three kinds: the shared invariant checker through the public API; the engine against the plain
restatement of the rules in ``sowing_reference.py``, ply by ply; and the private fast path
(``random_playout``) replayed through the public API.
"""

from __future__ import annotations

import random

import pytest
from playout import check_random_playouts
from sowing_reference import kalah_moves, kalah_play, oware_moves, oware_play

import engine

KALAH_OPTIONS = [
    {"seeds": seeds, "empty_capture": empty} for seeds in (3, 4, 5, 6) for empty in (False, True)
]


@pytest.mark.parametrize("options", KALAH_OPTIONS, ids=str)
def test_kalah_random_playouts_keep_every_invariant(options):
    game = engine.load("kalah", **options)
    endings = check_random_playouts(game, games=400, seed=11, total_seeds=12 * options["seeds"])
    winners = {winner for winner, _reason, _adj in endings}
    assert {0, 1} <= winners
    assert {reason for _w, reason, _a in endings} == {"side-empty"}


def test_oware_random_playouts_keep_every_invariant():
    endings = check_random_playouts(engine.load("oware"), games=700, seed=12)
    reasons = {reason for _w, reason, _a in endings}
    assert reasons == {"majority", "no-moves", "repetition"}  # O9, O10 and O11 all reached
    assert {adj for _w, reason, adj in endings if reason == "repetition"} == {"repetition"}


@pytest.mark.parametrize("options", KALAH_OPTIONS, ids=str)
def test_kalah_matches_the_reference_rules(options):
    game = engine.load("kalah", **options)
    rng = random.Random(21)
    for _ in range(300):
        state = game.start()
        pits, stores, mover = list(state.pits), [0, 0], 0
        while True:
            moves = kalah_moves(pits, stores, mover)
            assert list(game.legal_moves(state)) == moves, game.describe(state)
            if not moves:
                break
            move = rng.choice(moves)
            pits, stores, mover = kalah_play(pits, stores, mover, move, options["empty_capture"])
            state = game.play(state, move)
            assert (list(state.pits), list(state.stores)) == (pits, stores)
            if any(pits):
                assert state.to_move == mover


def test_oware_matches_the_reference_rules():
    game = engine.load("oware")
    rng = random.Random(22)
    for _ in range(250):
        state = game.start()
        pits, scores, mover, reason = list(state.pits), [0, 0], 0, None
        seen = {(tuple(pits), (0, 0), 0)}
        while True:
            moves = oware_moves(pits, scores, mover, reason is not None)
            assert list(game.legal_moves(state)) == moves, game.describe(state)
            if not moves:
                break
            move = rng.choice(moves)
            pits, scores, mover, reason = oware_play(pits, scores, mover, move, seen)
            state = game.play(state, move)
            assert (list(state.pits), list(state.scores), state.to_move) == (pits, scores, mover)
        assert game.outcome(state).reason == reason


@pytest.mark.parametrize(
    "name, options",
    [("kalah", {}), ("kalah", {"seeds": 6, "empty_capture": True}), ("oware", {})],
    ids=str,
)
def test_fast_playouts_replay_through_the_public_api(name, options):
    game = engine.load(name, **options)
    rng = random.Random(31)
    for _ in range(300):
        moves: list[int] = []
        winner, plies = game.random_playout(rand=rng.random, record=moves)
        assert plies == len(moves)
        state = game.start()
        for move in moves:
            state = game.play(state, move)
        outcome = game.outcome(state)
        assert outcome is not None and outcome.winner == winner


def test_fast_playout_from_a_midgame_position_continues_the_history():
    game = engine.load("oware")
    state = game.start()
    for text in "aFbEcD":
        state = game.play(state, game.parse(state, text))
    assert len(state.history) == 6
    rng = random.Random(5)
    for _ in range(50):
        moves: list[int] = []
        winner, _plies = game.random_playout(state, rng.random, moves)
        end = state
        for move in moves:
            end = game.play(end, move)
        assert game.outcome(end).winner == winner
