"""OpenSpiel's Kalah (``mancala``) and Oware against ours, for ``vs_openspiel.py``: moves and
boards mapped both ways (that script's docstring says how), and ``check``, which replays random
games through both engines ply by ply. Needs ``pyspiel`` (the OpenSpiel venv)."""

from __future__ import annotations

import random
from typing import Any

try:
    import pyspiel
except ImportError:  # pragma: no cover - vs_openspiel says so and exits
    pyspiel = None

import engine
from engine import kalah as K

OSP_NAME = {"kalah": "mancala", "oware": "oware"}


def to_osp(profile: str, move: int) -> int:
    if profile == "kalah":
        return K.RING[move] + 1
    return move % 6


def from_osp(profile: str, action: int, player: int) -> int:
    if profile == "kalah":
        return K.MOVE_OF[action - 1]
    return 6 * player + action


def osp_board(profile: str, s: Any) -> tuple[list[int], tuple[int, int], int]:
    """(pits a–f A–F, (South, North) store or score, player to move) of an OpenSpiel state."""
    if profile == "kalah":
        v = [int(x) for x in s.observation_tensor(0)[:14]]
        pits = v[1:7] + v[8:14]
        return pits, (v[7], v[0]), int(s.observation_tensor(0)[14])
    words = s.observation_string(0).replace("|", " ").split()
    player, s0, s1, pits = int(words[0]), int(words[1]), int(words[2]), [int(w) for w in words[3:]]
    return pits, (s0, s1), player


def same(profile: str, game: Any, state: Any, s: Any) -> bool:
    """Do our state and OpenSpiel's show the same position?"""
    if game.outcome(state) is not None or s.is_terminal():
        return game.outcome(state) is not None and s.is_terminal()
    pits, stores, player = osp_board(profile, s)
    ours = state.stores if profile == "kalah" else state.scores
    return (
        pits == list(state.pits)
        and tuple(stores) == tuple(ours)
        and (player == game.to_move(state) == s.current_player())
    )


def settle(game: Any, state: Any, s: Any) -> Any:
    """OpenSpiel's Oware ends the game as soon as the player to move cannot feed an empty
    opponent (taking the seeds left); ours plays that move and ends it by O10 one ply later,
    with the same seeds to the same player whichever move is played. Play it."""
    if s.is_terminal() and game.outcome(state) is None:
        state = game.play(state, game.legal_moves(state)[0])
        assert game.outcome(state) is not None, game.describe(state)
    return state


def result_matches(game: Any, state: Any, s: Any) -> bool:
    o = game.outcome(state)
    r = s.returns()
    winner = None if r[0] == r[1] else 0 if r[0] > r[1] else 1
    return o is not None and o.winner == winner


def check(profile: str, games: int, seed: int) -> None:
    """Replay random games through both engines; compare every ply."""
    game = engine.load(profile)
    og = pyspiel.load_game(OSP_NAME[profile])
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        state, s = game.start(), og.new_initial_state()
        while game.legal_moves(state):
            legal = sorted(from_osp(profile, a, s.current_player()) for a in s.legal_actions())
            assert legal == sorted(game.legal_moves(state)), (game.describe(state), legal)
            move = rng.choice(game.legal_moves(state))
            state = game.play(state, move)
            s.apply_action(to_osp(profile, move))
            plies += 1
            state = settle(game, state, s)
            assert same(profile, game, state, s), (game.describe(state), str(s))
        assert s.is_terminal() and result_matches(game, state, s), (game.describe(state), str(s))
    print(
        f"# {profile}: {games} random games, {plies} plies: the same boards, moves and "
        f"results in both engines",
        flush=True,
    )
