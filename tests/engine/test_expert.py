"""The expert level (``engine.ai``): legal and reproducible moves, Kalah's endgame table
against a plain exhaustive search, and the expert evaluations' features on drawn positions."""

from __future__ import annotations

import random

import pytest
from test_ai import positions

import engine
from engine import ai
from engine import kalah as K
from engine import oware as O
from engine.search import bao as SB
from engine.search import kalah as SK
from engine.search import kalah_table
from engine.search import oware as SO
from engine.search.bao import BaoExpertTree, BaoTree
from engine.search.kalah import KalahExpertTree
from engine.search.oware import OwareExpertTree, _threat

PROFILES = [
    ("kalah", {}),
    ("kalah", {"seeds": 3, "empty_capture": True}),
    ("oware", {}),
] + [(p.name, {}) for p in engine.profiles() if p.name.startswith("bao")]


@pytest.fixture(autouse=True)
def small_table(monkeypatch):
    """A variant's (``empty_capture``) Kalah table of 8 seeds builds in a fraction of a second
    (10 seeds: about 2 s); the standard rules read the shipped one."""
    monkeypatch.setattr(kalah_table, "SEEDS", 8)


@pytest.mark.parametrize(
    ("profile", "options"), PROFILES, ids=[f"{p}{o or ''}" for p, o in PROFILES]
)
def test_expert_plays_legal_moves_the_same_for_a_seed(profile, options):
    game = engine.load(profile, **options)
    state = positions(game, 2, seed=len(profile))[1]
    move = ai.choose(game, state, "expert", seed=3)
    assert move in game.legal_moves(state)
    assert ai.choose(game, state, "expert", seed=3) == move
    assert ai.hint(game, state, seed=3) in game.legal_moves(state)


def _margin(game, state, memo) -> int:
    """The final store margin for the player to move with best play (public API only)."""
    key = game.describe(state)
    if key in memo:
        return memo[key]
    me = game.to_move(state)
    best = None
    for m in game.legal_moves(state):
        after = game.play(state, m)
        out = game.outcome(after)
        if out is not None:
            v = out.score[me] - out.score[1 - me]
        elif game.to_move(after) == me:
            v = _margin(game, after, memo)
        else:
            v = -_margin(game, after, memo)
        best = v if best is None else max(best, v)
    memo[key] = best
    return best


@pytest.mark.parametrize("empty_capture", [False, True])
def test_kalah_table_agrees_with_exhaustive_search(empty_capture):
    """K4-K9: the table's future margin plus the stores is the exact final margin."""
    game = engine.load("kalah", empty_capture=empty_capture)
    table = kalah_table.KalahTable(6, empty_capture)
    rng = random.Random(20)
    memo: dict[str, int] = {}
    checked = 0
    while checked < 40:
        seeds = rng.randint(2, 6)
        pits = [0] * 12
        for _ in range(seeds):
            pits[rng.randrange(12)] += 1
        if not any(pits[:6]) or not any(pits[6:]):
            continue
        south = rng.randint(0, 48 - seeds)
        state = K.KalahState(tuple(pits), (south, 48 - seeds - south), rng.randint(0, 1))
        x = K.pack(state)
        assert table.fits(x, 48)
        me = state.to_move
        stores = state.stores[me] - state.stores[1 - me]
        assert stores + table.future(x) == _margin(game, state, memo), game.describe(state)
        checked += 1


def test_kalah_expert_settles_a_table_position_exactly():
    # 4 seeds on the board: the search's value is the exact final margin (WIN + 4 x margin).
    game = engine.load("kalah")
    state = game.position("0 0 0 0 1 1 [22] 1 0 0 0 0 1 [22] South")
    tree = KalahExpertTree(game, state)
    margin = _margin(game, state, {})
    assert tree.settled(tree.root) == (ai.search.won(margin))


def _kalah_value(terms: tuple[int, ...], board: int, total: int) -> float:
    """The expert evaluation from its terms: each weight tapered by the seeds in the pits."""
    return 4 * sum(
        (f * board + e * (total - board)) / total * t for (f, e), t in zip(SK.WEIGHTS, terms)
    )


def test_kalah_expert_terms():
    # South to move; a-f 2 0 5 0 1 3, A-F (in North's sowing order) 2 0 0 0 3 0, stores 17-15.
    # No pit of either side reaches its store exactly (pit k needs 6 - k seeds). North's A
    # (2 seeds) can end in its empty C, facing South's d: empty, so no capture (K6). Empty
    # pits 2 - 4; sowings short of the store: a, e - A; seeds past it: c 1, f 2 - E 1; seeds
    # in the two far pits 2 - 2.
    game = engine.load("kalah")
    state = game.position("2 0 5 0 1 3 [17] 2 0 0 0 3 0 [15] South")
    assert SK.terms(K.pack(state), False) == (2, 0, 0, 11 - 5, 0, -2, 1, 2, 0, 0)
    # e 2 and E 2 now reach their stores (an extra turn waiting for each side); North's A
    # (3 seeds) can end in its empty D, facing South's c: 5 + 1 seeds at risk.
    state = game.position("2 0 5 0 2 2 [17] 3 0 0 0 2 0 [15] South")
    assert SK.terms(K.pack(state), False) == (2, 0, 6, 11 - 5, 0, -2, 0, 2, -1, 0)
    # The same board with North to move: every term from North's side.
    state = game.position("2 0 5 0 2 2 [17] 3 0 0 0 2 0 [15] North")
    terms = SK.terms(K.pack(state), False)
    assert terms == (-2, 6, 0, 5 - 11, 0, 2, 0, -2, 1, 0)
    tree = KalahExpertTree(game, state)
    assert tree.evaluate(tree.root) == round(_kalah_value(terms, 16, 48))


@pytest.mark.parametrize("options", [{}, {"seeds": 3, "empty_capture": True}])
def test_kalah_expert_evaluation_weighs_its_terms(options):
    """The fast evaluation (tables, cached rows) is the plain weighted sum of ``terms``."""
    game = engine.load("kalah", **options)
    checked = 0
    for state in positions(game, 60, seed=7):
        tree = KalahExpertTree(game, state)
        x = tree.root
        board = sum(state.pits)
        if tree.settled(x) is not None or board <= tree.table.seeds:
            continue
        terms = SK.terms(x, game.empty_capture)
        assert tree.evaluate(x) == round(_kalah_value(terms, board, game.total))
        checked += 1
    assert checked > 30


def test_oware_expert_threats():
    # South's f (1 seed) lands on North's A holding 1 -> 2: a capture of 2; b's 5 seeds land
    # on A too (b, c, d, e, f, A): the same capture. North's F (1) reaches South's a: 2 -> 3,
    # a capture of 3; E's 2 land on a as well.
    game = engine.load("oware")
    state = game.position("2 5 0 0 0 1 / 1 0 0 0 2 1 score 18-18 South")
    data = O.pack(state).to_bytes(15, "little")
    south, north = data[1:7], data[7:13]
    assert _threat(south, north) == 2
    assert _threat(north, south) == 3
    tree = OwareExpertTree(game, state)
    # 12 seeds on the board: each weight a quarter of the way from the empty board's to the
    # full board's. Seeds 8 - 4; pits of one or two seeds 2 - 3; empty pits 3 - 3, moves
    # that stay home (a; A) 1 - 1 and seeds sown across (b 1, f 1; E 1, F 1) 2 - 2 cancel.
    w = SO.WEIGHTS

    def at(pair: tuple[float, float]) -> float:
        return (pair[0] * 12 + pair[1] * 36) / 48

    seeds = at(w.seeds) * 4 + at(w.threat) * 2 + at(w.threatened) * 3 + at(w.weak) * -1
    assert abs(tree.evaluate(tree.root) - 4 * seeds) <= 0.5  # in quarter seeds, rounded


def test_oware_expert_evaluation_weighs_its_terms():
    """The fast evaluation (per-pit tables, threat tables) is the plain weighted sum of
    ``terms``, each weight tapered by the seeds on the board."""
    game = engine.load("oware")
    for state in positions(game, 40, seed=9):
        tree = OwareExpertTree(game, state)
        x = tree.root
        board = sum(state.pits)
        terms = SO.terms(x)
        value = sum((f * board + e * (48 - board)) / 48 * t for (f, e), t in zip(SO.WEIGHTS, terms))
        assert tree.evaluate(x) == round(4 * value)


def test_bao_expert_features():
    # South's front pit ring 0 (3 seeds) faces North's front ring 23 (5 seeds): contact,
    # 5 seeds South could take and 3 it could lose; ring 2 (1) faces an empty pit. Pits of two
    # or more seeds: South's ring 0 and a back pit (2), North's ring 23: one more for South.
    game = engine.load("bao-kiswahili")
    tree = BaoExpertTree(game, game.start())
    b = [0] * 32
    b[0], b[2], b[10], b[23], b[30] = 3, 1, 2, 5, 1
    node = (b, [0, 0], [False, False], 0, -1)
    basic = 4 * (6 - 6) + (4 - 5)
    assert BaoTree.evaluate(tree, node) == basic
    w = SB.WEIGHTS
    assert tree.evaluate(node) == basic + w[0] * 5 - w[1] * 3 + w[2] * (2 - 1)


def test_the_shipped_kalah_table_is_the_one_the_code_builds():
    assert kalah_table.SHIPPED.is_file()
    shipped = kalah_table.table(False)  # read from engine/data
    built = kalah_table.KalahTable(kalah_table.SHIPPED_SEEDS, False)
    assert shipped.values == built.values
