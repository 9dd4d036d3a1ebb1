"""``game.apply``: one call says everything a move did (``engine.core.Transition``), for every
family; ``game.choices``: the legal moves as a player picks them. The random-playout checker
(``playout.py``) compares ``apply`` with ``play``/``steps``/``outcome``/``notation`` at every ply
of every profile; these are scenarios with the whole result asserted."""

from __future__ import annotations

import msgspec

import engine
from engine import Choice, Outcome, Step, search

KALAH = engine.load("kalah")
OWARE = engine.load("oware")


def test_K5_apply_reports_the_extra_turn_and_the_same_player_moves_on():
    state = KALAH.start()
    t = KALAH.apply(state, KALAH.parse(state, "c"))  # c's four seeds end in South's store
    assert KALAH.describe(t.after) == "4 4 0 5 5 5 [1] 4 4 4 4 4 4 [0] South"
    assert (t.move, t.notation, t.to_move, t.outcome) == (2, "c", 0, None)
    assert t.steps == (
        Step("lift", "c", 4, player=0),
        Step("sow", "d", 1, player=0),
        Step("sow", "e", 1, player=0),
        Step("sow", "f", 1, player=0),
        Step("sow", "store0", 1, player=0),
        Step("extra-turn", player=0),
    )
    assert t.choices == tuple(Choice(p, p, "") for p in "abdef")


def test_K8_apply_reports_the_ending_and_no_choices():
    state = KALAH.position("0 0 0 0 0 1 [23] 0 0 0 0 0 1 [23] South")
    t = KALAH.apply(state, KALAH.parse(state, "f"))
    assert KALAH.describe(t.after) == "0 0 0 0 0 0 [24] 0 0 0 0 0 0 [24] South"
    assert t.outcome == Outcome(None, "side-empty", (24, 24)) == KALAH.outcome(t.after)
    assert t.choices == () == KALAH.legal_moves(t.after)
    assert t.steps[-2:] == (
        Step("end", "F", 1, to="store1", player=1),
        Step("end", note="side-empty"),
    )


def test_O8_choices_are_only_the_moves_that_feed():
    state = OWARE.position("0 0 0 0 1 5 / 0 0 0 0 0 0 score 20-22 South")
    assert OWARE.choices(state) == (Choice("f", "f", ""),)  # e's single seed cannot reach
    t = OWARE.apply(state, OWARE.parse(state, "f"))
    assert OWARE.describe(t.after) == "0 0 0 0 1 0 / 1 1 1 1 1 0 score 20-22 North; history f5"
    assert (t.to_move, t.outcome) == (1, None)
    assert t.choices == tuple(Choice(p, p, "") for p in "ABCDE")


def test_O9_apply_reports_a_win_by_majority():
    state = OWARE.position("0 0 0 0 0 1 / 1 4 4 4 4 4 score 24-2 South")
    t = OWARE.apply(state, OWARE.parse(state, "f"))  # f sows into A, which then holds 2
    assert t.outcome == Outcome(0, "majority", (26, 2))
    assert t.choices == ()
    assert t.steps[-1] == Step("end", player=0, note="majority")


def test_B6_choices_name_the_pit_clicked_and_the_direction():
    game = engine.load("bao-kiswahili")
    state = game.start()
    choices = game.choices(state)
    assert [c.move for c in choices] == [game.notation(m) for m in game.legal_moves(state)]
    assert all(c.pit == c.move[:2] and c.choice == c.move[2:] for c in choices)
    t = game.apply(state, game.parse(state, "A7L"))  # de Voogt 1994, V02's first move
    assert game.describe(t.after).split("/")[2] == "0,0,0,1,7,3,0,0"
    assert t.to_move == 1 and t.outcome is None
    assert {c.move for c in t.choices} >= {"a5R"}  # V02's reply: a namua capture
    assert dict((c.move, c.choice) for c in t.choices)["a5R"] == "kichwa-R"


def test_the_cache_a_state_keeps_is_never_encoded_nor_compared():
    for game in (KALAH, OWARE, engine.load("bao-kujifunza")):
        state = game.start()
        fresh = msgspec.msgpack.encode(state)
        game.legal_moves(state)
        game.choices(state)
        assert state.__dict__  # what it learned is kept on it
        assert msgspec.msgpack.encode(state) == fresh
        assert state == game.start() and hash(state) == hash(game.start())


def test_every_family_has_one_search_tree():
    for profile in engine.profiles():
        game = engine.load(profile.name)
        assert game.family == profile.family in search.TREES
