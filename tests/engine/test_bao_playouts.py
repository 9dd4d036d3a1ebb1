"""Random playouts on every Bao profile and option set (STYLE convention 6, rule B20).

The shared checker (``playout.py``) runs through a thin view that only translates Bao's board
and step words into the checker's: captured seeds left unsown by a win (``pending``, B13) are
shown as ``stores``, and a ``place`` step is a seed lifted from the hand and sown. Every other
Bao step kind is a marker that moves no seed. The Bao-specific checks (64 seeds in the state,
stages, nyumba ownership, takasia, endless moves) run alongside on the real states.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from playout import check_random_playouts

import engine
from engine import Step
from engine.bao import Move, State

# Games per profile at its default options; the other option value gets a third as many.
# CI runs these; set BAO_PLAYOUTS for a longer soak (e.g. 20000).
GAMES = int(os.environ.get("BAO_PLAYOUTS", "1000"))
MARKERS = {"relay", "stop", "nyumba", "takasia", "tax", "pass", "stage"}


class CheckerView:
    """A Bao game as the shared checker sees it; every call reaches the real game."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.state_type = game.state_type
        self.seen: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def board(self, state: State) -> dict[str, Any]:
        board = self.game.board(state)
        check_bao_state(self.game, state, board)
        return {"pits": board["pits"], "hands": board["hands"], "stores": board["pending"]}

    def play(self, state: State, move: Move) -> State:
        after = self.game.play(state, move)
        check_bao_move(self.game, state, move, after, self.seen)
        return after

    def steps(self, state: State, move: Move) -> tuple[Step, ...]:
        out: list[Step] = []
        for step in self.game.steps(state, move):
            if step.kind == "place":
                out.append(Step("lift", pit=f"hand{step.player}", seeds=1))
                out.append(Step("sow", pit=step.pit, seeds=1))
            elif step.kind == "stop" and step.note == "front-empty":
                out.append(Step("store", seeds=step.seeds, to=f"store{step.player}"))
            elif step.kind not in MARKERS:
                out.append(step)
        return tuple(out)


def check_bao_state(game: Any, state: State, board: dict[str, Any]) -> None:
    assert sum(state.pits) + sum(state.hands) + sum(state.pending) == 64
    assert board["stage"] == ("namua" if any(state.hands) else "mtaji")
    for p in (0, 1):
        if state.nyumba[p]:
            assert state.pits[16 * p + 4], "an owned nyumba is never empty (B15)"
    if state.takasia:
        assert board["stage"] == "mtaji" and game.takasia


def check_bao_move(game: Any, state: State, move: Move, after: State, seen: dict) -> None:
    for p in (0, 1):
        if after.nyumba[p]:
            assert state.nyumba[p], "ownership never comes back (B15)"
    if not any(state.hands):
        assert after.hands == (0, 0), "mtaji never goes back to namua"
    if any(state.hands) and move.pit:
        assert after.hands[state.to_move] == state.hands[state.to_move] - 1  # B16
    for key, hit in (
        ("takasia", after.takasia is not None),
        ("safari", move.safari),
        ("tax", move.tax),
        ("pass", not move.pit),
        ("pending", any(after.pending)),
        ("endless", bool(game._table(state).endless)),
        ("mtaji", any(state.hands) and not any(after.hands)),
    ):
        seen[key] = seen.get(key, 0) + hit


@pytest.mark.parametrize(
    "name, takasia, games",
    [("bao-kiswahili", True, GAMES), ("bao-kiswahili", False, GAMES // 3),
     ("bao-kujifunza", False, GAMES), ("bao-kujifunza", True, GAMES // 3)],
    ids=str,
)
def test_B20_random_playouts_keep_every_invariant(name, takasia, games):
    view = CheckerView(engine.load(name, takasia=takasia))
    endings = check_random_playouts(view, games=games, seed=3, total_seeds=64, max_plies=3000)
    assert {w for w, _r, _a in endings} == {0, 1}
    assert {r for _w, r, _a in endings} == {"front-empty", "no-move"}
    seen = view.seen
    assert seen["pending"] > 0  # B13 reached
    assert (seen["takasia"] > 0) == takasia
    if name == "bao-kiswahili":
        assert seen["safari"] > 0 and seen["tax"] > 0 and seen["mtaji"] > 0


def test_B20_move_generation_terminates_on_random_positions():
    """Positions no game reaches: seeds scattered anywhere, both stages."""
    game = engine.load("bao-kiswahili")
    rng = random.Random(8)
    for _ in range(2000):
        pits = [0] * 32
        hands = [0, 0] if rng.random() < 0.6 else [rng.randint(0, 10), rng.randint(1, 10)]
        scattered = rng.randint(8, 64 - sum(hands))
        for _ in range(scattered):
            pits[rng.randrange(32)] += 1
        pits[rng.choice((8, 24))] += 64 - sum(hands) - scattered  # a back pit keeps the rest
        if not any(pits[:8]) or not any(pits[16:24]):
            continue
        owned = (bool(pits[4]) and rng.random() < 0.5, bool(pits[20]) and rng.random() < 0.5)
        state = State(tuple(pits), (hands[0], hands[1]), rng.randrange(2), owned)
        assert game.position(game.describe(state)) == state
        moves = game.legal_moves(state)
        assert (game.outcome(state) is None) == bool(moves)
        for move in moves:
            after = game.play(state, move)
            assert sum(after.pits) + sum(after.hands) + sum(after.pending) == 64


@pytest.mark.parametrize("name, takasia", [("bao-kiswahili", True), ("bao-kujifunza", True)])
def test_fast_playouts_replay_through_the_public_api(name, takasia):
    game = engine.load(name, takasia=takasia)
    rng = random.Random(31)
    for _ in range(150):
        moves: list[Move] = []
        winner, plies = game._random_playout(rand=rng.random, record=moves)
        assert plies == len(moves)
        state = game.start()
        for move in moves:
            state = game.play(state, move)
        assert game.outcome(state).winner == winner
