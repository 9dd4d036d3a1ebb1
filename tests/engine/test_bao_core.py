"""Scenario tests for the Bao core rules B1–B20 (``docs/rules/bao.md``).

Boards are drawn as the literature draws them, North on top, each row read as South sees it:
b8..b1 / a8..a1 / A1..A8 / B1..B8. Every test asserts whole positions (``describe``), worked
out by hand from the rules. Namua scenarios use ``bao-kiswahili``; mtaji scenarios without a
nyumba use ``bao-kujifunza`` (no takasia by default).
"""

from __future__ import annotations

import msgspec
import pytest
from baokit import at, legal, play, text  # noqa: F401

import engine
from engine import BadNotation, IllegalMove, Outcome, Step
from engine.bao import KUJIFUNZA, PASS, Bao, Move, read_move

K = engine.load("bao-kiswahili")
J = engine.load("bao-kujifunza")


def test_B1_two_players_32_pits_64_seeds_south_first():
    state = K.start()
    board = K.board(state)
    assert K.to_move(state) == 0
    assert len(board["pits"]) == 32
    assert sum(board["pits"].values()) + sum(board["hands"]) == 64
    assert K.describe(state) == text(
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 6 2 2 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=22,22 nyumba=SN",
    )


def test_B2_pit_names_follow_the_literature():
    state = at(
        J,
        """
        16 0 0 0 0 0 0 0   # b8 .. b1
         2 0 0 0 0 0 0 1   # a8 .. a1
         1 2 3 4 5 6 7 8   # A1 .. A8
         0 0 0 0 0 0 0 9   # B1 .. B8
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    pits = {f"A{i}": i for i in range(1, 9)}
    pits |= {f"B{i}": 0 for i in range(1, 9)} | {"B8": 9}
    pits |= {f"a{i}": 0 for i in range(1, 9)} | {"a1": 1, "a8": 2}
    pits |= {f"b{i}": 0 for i in range(1, 9)} | {"b8": 16}
    assert J.board(state) == {
        "pits": pits,
        "hands": [0, 0],
        "stage": "mtaji",
        "nyumba": [False, False],
        "takasia": None,
        "pending": [0, 0],
    }


def test_B3_A5_faces_a4_not_the_other_nyumba():
    drawing = """
        0 0 0 0 0 0 0 9
        0 0 0 6 {a4} 0 0 0
        0 0 0 0 6 2 0 0
        0 0 0 0 0 0 0 0
        """
    quiet = at(K, drawing.format(a4=0), "S namua hands=20,21 nyumba=SN")
    assert legal(K, quiet) == ["A6L", "A6R"]  # a5 is occupied, yet A5 captures nothing
    facing = at(K, drawing.format(a4=1), "S namua hands=20,20 nyumba=SN")
    assert legal(K, facing) == ["A5L", "A5R"]
    assert K.describe(play(K, facing, "A5R")) == text(
        """
        0 0 0 0 0 0 0 9
        0 0 0 6 0 0 0 0
        0 0 0 0 7 2 0 1
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=19,20 nyumba=SN",
    )


def test_B4_kichwa_kimbi_and_nyumba_set_the_capture_entries():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 0
        1 1 1 0 1 0 1 1
        1 1 1 0 1 0 1 1
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=26,26 nyumba=-",
    )
    # Front 1-2 enter at the left kichwa, 7-8 at the right one, 3-6 either (B10).
    assert legal(K, state) == ["A1L", "A2L", "A3L", "A3R", "A5L", "A5R", "A7R", "A8R"]


def test_B5_sowing_runs_round_the_own_ring_both_ways():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 59
        0 0 0 0 0 0 0 1
        1 0 0 0 0 0 3 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, state) == ["A7L", "A7R"]
    assert J.describe(play(J, state, "A7R")) == text(  # A8, then the back row from B8
        """
        0 0 0 0 0 0 0 59
        0 0 0 0 0 0 0 1
        1 0 0 0 0 0 0 1
        0 0 0 0 0 0 1 1
        """,
        "N mtaji hands=0,0 nyumba=-",
    )
    assert J.describe(play(J, state, "A7L")) == text(
        """
        0 0 0 0 0 0 0 59
        0 0 0 0 0 0 0 1
        1 0 0 1 1 1 0 0
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )
    north = at(
        J,
        """
        0 0 0 0 0 0 0 0
        0 3 0 0 0 0 0 1
        1 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 59
        """,
        "N mtaji hands=0,0 nyumba=-",
    )
    assert J.describe(play(J, north, "a7R")) == text(  # North's clockwise, from its own side
        """
        1 1 0 0 0 0 0 0
        1 0 0 0 0 0 0 1
        1 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 59
        """,
        "S mtaji hands=0,0 nyumba=-",
    )


def test_B6_move_notation_round_trips():
    state = K.start()
    for text_, move in [
        ("A7L", Move("A7", "L")),
        ("a5R", Move("a5", "R")),
        ("a5R+", Move("a5", "R", safari=True)),
        ("A5L2", Move("A5", "L", tax=True)),
        ("B3R", Move("B3", "R")),
        ("pass", PASS),
    ]:
        assert read_move(text_) == move
        assert K.notation(move) == text_
    assert K.parse(state, "A7L") == Move("A7", "L")  # legal at the start
    for illegal in ["a5R", "A5L2", "B3R", "pass"]:  # well-formed, not legal at the start
        with pytest.raises(IllegalMove):
            K.parse(state, illegal)
    for bad in ["", "A9L", "C1L", "A5", "A5X", "A5L2+", "a5r", " A7L", "A7L ", "PASS", "A0R"]:
        with pytest.raises(BadNotation):
            K.parse(state, bad)
    moves = [Move("a5", "R", True), Move("A7", "L"), PASS, Move("A5", "L", tax=True)]
    assert sorted(moves) == [
        PASS,
        Move("A5", "L", tax=True),
        Move("A7", "L"),
        Move("a5", "R", True),
    ]
    assert len(set(moves + [Move("A7", "L")])) == 4


def test_B7_a_lap_of_16_or_more_sows_into_its_start():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 46
        0 0 0 0 0 0 0 1
        0 0 0 17 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    # 16 seeds go once round (A4 included), the 17th lands in A5, which then relays:
    # A5, A7, B8, B6, B4, B2, A1, A3 each lift 2, and the last seed falls in the emptied A5.
    assert J.describe(play(J, state, "A4R")) == text(
        """
        0 0 0 0 0 0 0 46
        0 0 0 0 0 0 0 1
        0 2 0 2 1 2 0 2
        2 0 2 0 2 0 2 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_B8_only_the_last_pit_of_each_lap_is_judged():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 55
        0 1 0 2 0 0 0 1
        3 1 0 1 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, state) == ["A1R"]
    # A1R passes A2 (facing a7) unjudged, ends in A4: capture a5 (2), enter A1; ends in A2:
    # capture a7 (1), enter A1; A1 (2) relays; A3 (2) relays; the last seed falls in empty A5.
    assert J.describe(play(J, state, "A1R")) == text(
        """
        0 0 0 0 0 0 0 55
        0 0 0 0 0 0 0 1
        0 4 0 3 1 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_B9_a_takasa_captures_nothing_anywhere():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 1 0 0 1
        2 0 1 0 1 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, state) == ["A1L", "A1R"]
    # The relay from A3 ends in A5, facing the occupied a4: a takasa relays on.
    assert J.describe(play(J, state, "A1R")) == text(
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 1 0 0 1
        0 1 0 1 0 1 1 0
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


NAMUA_CAPTURE = """
    46 0 0 0 0 0 0 0
     0 0 3 0 0 0 0 2
     0 0 1 0 0 2 0 0
     0 0 0 0 0 0 0 0
    """


def test_B10_namua_capture_enters_at_the_chosen_kichwa():
    state = at(K, NAMUA_CAPTURE, "S namua hands=5,5 nyumba=-")
    assert K.describe(play(K, state, "A3L")) == text(  # enter A1, clockwise
        """
        46 0 0 0 0 0 0 0
         0 0 0 0 0 0 0 2
         1 1 0 1 1 0 1 1
         0 0 0 0 0 0 0 1
        """,
        "N namua hands=4,5 nyumba=-",
    )
    assert K.describe(play(K, state, "A3R")) == text(  # enter A8, anticlockwise
        """
        46 0 0 0 0 0 0 0
         0 0 0 0 0 0 0 2
         1 1 0 1 1 0 1 1
         1 0 0 0 0 0 0 0
        """,
        "N namua hands=4,5 nyumba=-",
    )


def test_B10_mtaji_capture_keeps_the_direction_in_the_middle_and_turns_at_a_kimbi():
    middle = at(
        J,
        """
        0 0 0 0 0 0 0 58
        0 0 0 2 0 0 0 1
        0 0 0 1 0 2 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, middle) == ["A6L"]
    assert J.describe(play(J, middle, "A6L")) == text(  # capture at A4 going left: enter A8
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 1
        0 0 0 2 1 0 1 1
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )
    kimbi = at(
        J,
        """
        0 0 0 0 0 0 0 59
        0 0 0 0 0 0 1 1
        0 0 0 0 2 0 1 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, kimbi) == ["A5R"]
    assert J.describe(play(J, kimbi, "A5R")) == text(  # going right, A7 sends it in at A8
        """
        0 0 0 0 0 0 0 59
        0 0 0 0 0 0 0 1
        0 0 0 0 0 1 2 1
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_B11_captures_are_compulsory():
    state = at(K, NAMUA_CAPTURE, "S namua hands=5,5 nyumba=-")
    assert legal(K, state) == ["A3L", "A3R"]  # A6 could start a takasa, but must not
    with pytest.raises(IllegalMove, match=r"A6L is not legal in .* S namua hands=5,5"):
        K.play(state, K.parse(state, "A6L"))


def test_B12_back_rows_are_never_captured():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 50
        0 0 0 0 0 9 0 1
        0 0 0 2 0 1 0 0
        0 0 0 0 0 0 0 1
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, state) == ["A4R"]
    # The 9 captured seeds run A1..A8 and end in the occupied B8: a back pit relays.
    assert J.describe(play(J, state, "A4R")) == text(
        """
        0 0 0 0 0 0 0 50
        0 0 0 0 0 0 0 1
        1 1 1 1 2 3 1 1
        0 0 0 0 0 1 1 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_B13_emptying_the_front_row_ends_the_game_mid_move():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 3 0 0
        0 0 0 2 0 1 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    after = play(J, state, "A4R")
    assert J.describe(after) == text(
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 0
        0 0 0 0 1 2 0 0
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=- pending=3,0",
    )
    assert J.outcome(after) == Outcome(0, "front-empty")
    assert J.legal_moves(after) == ()
    assert J.steps(state, J.parse(state, "A4R")) == (
        Step("lift", pit="A4", seeds=2, player=0),
        Step("sow", pit="A5", seeds=1, player=0),
        Step("sow", pit="A6", seeds=1, player=0),
        Step("capture", pit="a3", seeds=3, to="A1", player=0),
        Step("stop", seeds=3, player=0, note="front-empty"),
        Step("end", player=0, note="front-empty"),
    )


def test_B14_no_legal_move_loses():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 60
        0 0 0 0 0 0 0 1
        1 0 1 0 0 0 0 0
        0 1 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert J.legal_moves(state) == ()
    assert J.outcome(state) == Outcome(1, "no-move")


def test_B14_an_empty_front_row_loses_whoever_moved():
    # Unreachable from play in these profiles (B18 forbids the one start that would do it),
    # so the position is set up: the player who just moved emptied their own front row.
    drawing = """
        0 0 0 0 0 0 0 60
        0 0 0 0 0 0 0 1
        0 0 0 0 0 0 0 0
        0 3 0 0 0 0 0 0
        """
    for mover in "SN":
        state = at(J, drawing, f"{mover} mtaji hands=0,0 nyumba=-")
        assert J.outcome(state) == Outcome(1, "front-empty")
        assert J.legal_moves(state) == ()


def test_B15_a_takasa_stops_in_the_functional_nyumba():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 6 0 1 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=23,24 nyumba=SN",
    )
    assert legal(K, state) == ["A7L", "A7R"]
    move = K.parse(state, "A7L")
    assert K.describe(K.play(state, move)) == text(
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 7 1 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=22,24 nyumba=SN",
    )
    assert K.steps(state, move)[-1] == Step("stop", pit="A5", note="nyumba")


NYUMBA_CHOICE = """
    0 0 0 0 0 0 0 0
    0 5 0 6 {a4} 0 0 0
    0 1 0 0 6 0 0 0
    0 0 0 0 0 0 0 0
    """


def test_B15_a_capture_ending_in_the_nyumba_chooses_stop_or_safari():
    state = at(K, NYUMBA_CHOICE.format(a4=0), "S namua hands=23,23 nyumba=SN")
    assert legal(K, state) == ["A2L", "A2L+"]
    assert K.describe(play(K, state, "A2L")) == text(
        """
        0 0 0 0 0 0 0 0
        0 0 0 6 0 0 0 0
        1 3 1 1 7 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=22,23 nyumba=SN",
    )
    safari = K.parse(state, "A2L+")
    assert K.describe(K.play(state, safari)) == text(
        """
        0 0 0 0 0 0 0 0
        0 0 0 6 0 0 0 0
        1 3 1 1 0 1 1 1
        0 0 0 0 1 1 1 1
        """,
        "N namua hands=22,23 nyumba=N",
    )
    assert K.steps(state, safari)[7:11] == (
        Step("relay", pit="A5", seeds=7, player=0, note="safari"),
        Step("lift", pit="A5", seeds=7, player=0),
        Step("nyumba", pit="A5", player=0, note="lost"),
        Step("sow", pit="A6", seeds=1, player=0),
    )


def test_B15_a_capture_ending_in_the_nyumba_facing_seeds_captures():
    state = at(K, NYUMBA_CHOICE.format(a4=2), "S namua hands=22,22 nyumba=SN")
    # A2L's lap captures in the nyumba, so no choice arises there; A5L's later lap ends in
    # the nyumba once a4 is empty, so it comes in both forms. A5R never gets there.
    assert legal(K, state) == ["A2L", "A5L", "A5L+", "A5R"]
    assert K.describe(play(K, state, "A2L")) == text(
        """
        0 0 0 0 0 0 0 0
        0 0 0 6 0 0 0 0
        2 0 2 2 8 1 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=21,22 nyumba=SN",
    )


OWNED_OR_NOT = """
    0 0 0 0 0 0 0 6
    0 2 2 6 0 0 0 0
    0 0 0 0 6 0 0 2
    0 0 0 0 0 0 0 0
    """


def test_B15_an_unowned_nyumba_is_an_ordinary_pit():
    owned = at(K, OWNED_OR_NOT, "S namua hands=20,20 nyumba=SN")
    assert K.describe(play(K, owned, "A8L")) == text(
        """
        0 0 0 0 0 0 0 6
        0 2 2 6 0 0 0 0
        0 0 0 0 7 1 1 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=19,20 nyumba=SN",
    )
    lost = at(K, OWNED_OR_NOT, "S namua hands=20,20 nyumba=N")
    assert K.describe(play(K, lost, "A8L")) == text(
        """
        0 0 0 0 0 0 0 6
        0 2 2 6 0 0 0 0
        1 1 1 1 0 1 1 0
        1 1 1 0 0 0 0 0
        """,
        "N namua hands=19,20 nyumba=N",
    )


def test_B15_ownership_ends_when_the_nyumba_is_emptied_and_never_returns():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 8
        0 2 2 6 0 0 0 0
        0 0 0 0 4 0 0 2
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=20,20 nyumba=SN",
    )
    assert legal(K, state) == ["A5L", "A5R", "A8L", "A8R"]  # an owned nyumba under 6 may start
    relayed = play(K, state, "A8L")  # ends in A5 with 5 < 6: relays, so it is emptied
    assert K.describe(relayed) == text(
        """
        0 0 0 0 0 0 0 8
        0 2 2 6 0 0 0 0
        1 1 1 1 0 1 1 0
        1 0 0 0 0 0 0 0
        """,
        "N namua hands=19,20 nyumba=N",
    )
    lifted = play(K, state, "A5R")
    assert K.describe(lifted) == text(
        """
        0 0 0 0 0 0 0 8
        0 2 2 6 0 0 0 0
        0 0 0 0 0 1 1 3
        0 0 0 0 0 0 1 1
        """,
        "N namua hands=19,20 nyumba=N",
    )
    refilled = play(K, lifted, "a7L", "A8L")  # seeds come back into A5: still not owned
    assert refilled.pits[4] > 0 and refilled.nyumba == (False, True)


def test_B16_namua_never_starts_in_the_back_row():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 6 2 0 0
        0 0 5 0 0 0 0 0
        """,
        "S namua hands=20,21 nyumba=SN",
    )
    assert legal(K, state) == ["A6L", "A6R"]  # B3 holds 5, A5 is a functional nyumba
    assert K.describe(play(K, state, "A6R")) == text(  # the hand seed is lifted with the rest
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 6 0 1 1
        0 0 5 0 0 0 0 1
        """,
        "N namua hands=19,21 nyumba=SN",
    )


def test_B17_mtaji_captures_may_start_in_the_back_row():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 57
        0 1 0 0 0 0 0 1
        0 1 0 0 0 0 0 0
        0 0 4 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, state) == ["B3R"]
    assert J.describe(play(J, state, "B3R")) == text(
        """
        0 0 0 0 0 0 0 57
        0 0 0 0 0 0 0 1
        0 3 1 0 0 0 0 0
        1 1 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_B17_sixteen_or_more_never_capture_and_takasa_prefers_the_front():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 42
        0 0 0 1 0 0 0 1
        0 0 17 1 0 0 0 0
        0 0 0 0 2 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    # A3's first lap would end in A4 facing a5, but 17 seeds never capture; B5 waits.
    assert legal(J, state) == ["A3L", "A3R"]
    assert J.describe(play(J, state, "A3R")) == text(
        """
        0 0 0 0 0 0 0 42
        0 0 0 1 0 0 0 1
        0 2 0 1 0 3 1 0
        2 0 2 0 4 1 3 1
        """,
        "N mtaji hands=0,0 nyumba=-",
    )
    singles = at(
        J,
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 1
        0 1 0 0 0 1 0 0
        0 0 0 3 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, singles) == ["B4L", "B4R"]  # 0-1 never start; no front pit has 2


def test_B17_mtaji_begins_when_both_hands_are_empty():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 2
        1 0 0 0 0 2 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=1,0 nyumba=-",
    )
    move = K.parse(state, "A6R")
    assert K.describe(K.play(state, move)) == text(
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 2
        1 0 0 0 0 0 1 1
        0 0 0 0 0 0 0 1
        """,
        "N mtaji hands=0,0 nyumba=-",
    )
    assert K.steps(state, move) == (
        Step("place", pit="A6", seeds=1, player=0),
        Step("lift", pit="A6", seeds=3, player=0),
        Step("sow", pit="A7", seeds=1, player=0),
        Step("sow", pit="A8", seeds=1, player=0),
        Step("sow", pit="B8", seeds=1, player=0),
        Step("stop", pit="B8", note="empty"),
        Step("stage", note="mtaji"),
    )


def test_B18_a_lone_kichwa_never_sows_into_the_back_row():
    lone = """
        0 0 0 0 0 0 0 {b1}
        0 0 0 0 0 0 0 1
        {A}
        0 0 0 2 0 0 0 0
        """
    cases = [
        ("3 0 0 0 0 0 0 0", 58, ["A1R"]),
        ("0 0 0 0 0 0 0 3", 58, ["A8L"]),
        ("3 0 0 1 0 0 0 0", 57, ["A1L", "A1R"]),  # not alone: either way
    ]
    for front, b1, expected in cases:
        state = at(J, lone.format(A=front, b1=b1), "S mtaji hands=0,0 nyumba=-")
        assert legal(J, state) == expected
    namua = at(
        K,
        """
        0 0 0 0 0 0 0 40
        0 2 2 6 0 0 0 0
        1 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=3,10 nyumba=N",
    )
    assert legal(K, namua) == ["A1R"]


def test_B18_only_the_kichwa_start_is_forbidden():
    state = at(
        J,
        """
        0 0 0 0 0 0 0 60
        0 0 0 0 0 0 1 0
        0 0 0 0 0 0 0 1
        0 0 0 0 0 0 2 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(J, state) == ["B7L", "B7R"]  # B7 may still sow on into A8
    assert J.describe(play(J, state, "B7L")) == text(
        """
        0 0 0 0 0 0 0 60
        0 0 0 0 0 0 1 0
        0 0 0 0 0 1 1 0
        0 0 0 0 0 0 0 1
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_B19_an_empty_hand_in_namua_passes():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 57
        0 0 0 0 0 0 0 2
        0 0 0 0 0 2 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=0,3 nyumba=-",
    )
    assert K.legal_moves(state) == (PASS,)
    assert K.notation(PASS) == "pass"
    after = K.play(state, PASS)
    assert K.describe(after) == K.describe(state).replace(" S ", " N ")
    assert K.steps(state, PASS) == (Step("pass", player=0),)


SEVENTEEN = """
    0 0 0 0 0 0 0 46
    0 0 0 0 0 0 0 1
    0 0 0 17 0 0 0 0
    0 0 0 0 0 0 0 0
    """


def test_B20_the_lap_limit_counts_laps_after_the_first():
    # A4R and A4L each make 8 laps after the first (test_B7): legal at a limit of 8,
    # endless at 7, where the player whose only moves are endless has no move (K6).
    at8 = Bao("bao-kujifunza", {}, msgspec.structs.replace(KUJIFUNZA, lap_limit=8))
    at7 = Bao("bao-kujifunza", {}, msgspec.structs.replace(KUJIFUNZA, lap_limit=7))
    tail = "S mtaji hands=0,0 nyumba=-"
    assert legal(at8, at(at8, SEVENTEEN, tail)) == ["A4L", "A4R"]
    state = at(at7, SEVENTEEN, tail)
    assert legal(at7, state) == []
    assert at7.outcome(state) == Outcome(1, "no-move")
    with pytest.raises(IllegalMove, match="never ends"):
        at7.play(state, Move("A4", "R"))


def test_B20_a_safety_stop_profile_ends_the_game_instead():
    # The Nakakamado hook (N8): endless moves stay legal and end the game, adjudicated.
    rules = msgspec.structs.replace(KUJIFUNZA, lap_limit=7, endless="safety-stop")
    game = Bao("bao-kujifunza", {}, rules)
    state = at(game, SEVENTEEN, "S mtaji hands=0,0 nyumba=-")
    assert legal(game, state) == ["A4L", "A4R"]
    after = play(game, state, "A4R")  # cut off before the 8th relay, from A3
    assert game.describe(after) == text(
        """
        0 0 0 0 0 0 0 46
        0 0 0 0 0 0 0 1
        0 2 2 1 0 2 0 2
        2 0 2 0 2 0 2 0
        """,
        "N mtaji hands=0,0 nyumba=- adjudication=safety-stop",
    )
    assert game.outcome(after) == Outcome(None, "relay-limit", adjudication="safety-stop")
    assert game.legal_moves(after) == ()
    assert game.position(game.describe(after)) == after


def test_positions_round_trip_and_refuse_what_cannot_arise():
    good = text(
        """
        0 1 2 1 4 8 2 2
        10 0 0 10 2 1 0 1
        0 2 0 0 1 1 0 0
        0 0 2 2 0 2 6 4
        """,
        "N mtaji hands=0,0 nyumba=- takasia=a4",
    )
    state = K.position(good)
    assert K.describe(state) == good
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=K.state_type) == state
    start = K.describe(K.start())
    bad = [
        start.replace("22,22", "22,21"),  # 63 seeds
        start.replace("namua hands=22,22", "mtaji hands=22,22"),
        start.replace(" S ", " X "),
        start.replace("nyumba=SN", "nyumba=NS"),
        start + " takasia=A6",  # takasia in namua
        start + " pending=0,0 extra=1",
        start.replace(" hands=22,22", ""),
        start.replace("nyumba=SN", "nyumba=SN takasia=Z9"),
        start.replace("0,0,0,0,6,2,2,0/", "0,0,0,0,0,2,2,6/"),  # owned nyumba, empty
        good.replace("takasia=a4", "takasia=a3"),  # one seed
        good.replace("takasia=a4", "takasia=A2"),  # not the mover's
        good.replace("10,0,0,10", "10,0,0,-10"),  # not a count
        good + " pending=1,0",  # pending without a win
        good + " adjudication=safety-stop",  # no such end in Kiswahili
        "1,2,3",
        "",
    ]
    for text_ in bad:
        with pytest.raises(BadNotation):
            K.position(text_)
    with pytest.raises(BadNotation, match="J1"):
        J.position(start)


def test_play_refuses_what_is_not_a_move_and_never_changes_its_input():
    state = K.start()
    before = msgspec.msgpack.encode(state)
    for move in [Move("A5", "L"), Move("a6", "L"), Move("A6", "L", safari=True), "A6L", None]:
        with pytest.raises(IllegalMove):
            K.play(state, move)
    K.play(state, Move("A6", "L"))
    assert msgspec.msgpack.encode(state) == before


def test_B6_origin_gives_the_clicked_pit_and_the_choice():
    assert K.origin(Move("a5", "R", safari=True)) == ("a5", "R+")
    assert K.origin(Move("A5", "L", tax=True)) == ("A5", "L2")
    assert K.origin(Move("B3", "L")) == ("B3", "L")
    assert K.origin(PASS) == (None, "pass")


def test_the_after_move_hook_can_add_a_profile_rule():
    """How Nakakamado's NYAKUA (N5) plugs in: a hook run after every completed move,
    with the move's summary; here a toy rule moves one seed from each hand to the pit
    where a capturing namua move ended."""
    calls = []

    def end_pit(rules, b, hands, owned, p, summary, log):
        calls.append(summary)
        if summary.namua and summary.captures and hands[p] and hands[1 - p]:
            pit = (p << 4) + summary.endpoint
            for who in (p, 1 - p):
                hands[who] -= 1
                b[pit] += 1
                if log is not None:
                    log.append(("place", pit, who))

    from engine.bao import KISWAHILI

    game = Bao("bao-kiswahili", {}, msgspec.structs.replace(KISWAHILI, after_move=end_pit))
    state = at(game, NAMUA_CAPTURE, "S namua hands=5,5 nyumba=-")
    move = game.parse(state, "A3L")
    summary = game.summary(state, move)
    assert (summary.captures, summary.endpoint, summary.laps, summary.status) == (1, 8, 2, "empty")
    assert game.describe(game.play(state, move)) == text(
        """
        46 0 0 0 0 0 0 0
         0 0 0 0 0 0 0 2
         1 1 0 1 1 0 1 1
         0 0 0 0 0 0 0 3
        """,
        "N namua hands=3,4 nyumba=-",
    )
    assert game.steps(state, move)[-2:] == (
        Step("place", pit="B8", seeds=1, player=0),
        Step("place", pit="B8", seeds=1, player=1),
    )
    # play and steps each run it: a hook must depend on its arguments only
    assert calls and all(c == summary for c in calls)
