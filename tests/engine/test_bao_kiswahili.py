"""Scenario tests for profile ``bao-kiswahili``, rules K1–K6 (``docs/rules/bao.md``).

Boards drawn North on top, rows as South sees them: b8..b1 / a8..a1 / A1..A8 / B1..B8.
"""

from __future__ import annotations

import msgspec
import pytest
from baokit import at, legal, play, text  # noqa: F401

import engine
from engine import IllegalMove, Outcome, Step
from engine.bao import KISWAHILI, Bao, Move

K = engine.load("bao-kiswahili")


def test_K1_start_position():
    state = K.start()
    assert K.describe(state) == text(
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 6 2 2 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=22,22 nyumba=SN",
    )
    assert K.board(state)["stage"] == "namua"
    assert legal(K, state) == ["A6L", "A6R", "A7L", "A7R"]  # K2: not the nyumba


K2 = """
    0 0 0 0 0 0 0 0
    2 0 2 6 0 0 0 0
    0 1 0 0 {A5} 0 {A7} 0
    0 0 0 0 0 0 0 0
    """


def test_K2_an_owner_may_start_from_singletons_but_not_the_nyumba():
    state = at(K, K2.format(A5=6, A7=3), "S namua hands=22,22 nyumba=SN")
    assert legal(K, state) == ["A2L", "A2R", "A7L", "A7R"]
    assert K.describe(play(K, state, "A2L")) == text(
        """
        0 0 0 0 0 0 0 0
        2 0 2 6 0 0 0 0
        1 0 0 0 6 0 3 0
        1 0 0 0 0 0 0 0
        """,
        "N namua hands=21,22 nyumba=SN",
    )


def test_K2_without_the_nyumba_singletons_only_when_nothing_holds_two():
    state = at(K, K2.format(A5=6, A7=3), "S namua hands=22,22 nyumba=N")
    assert legal(K, state) == ["A5L", "A5R", "A7L", "A7R"]
    singles = at(K, K2.format(A5=0, A7=1), "S namua hands=26,26 nyumba=N")
    assert legal(K, singles) == ["A2L", "A2R", "A7L", "A7R"]


TAX = """
    0 0 0 0 0 0 0 0
    0 2 2 6 {a4} 0 0 0
    0 0 0 0 6 0 0 0
    0 0 4 0 0 0 0 0
    """


def test_K3_a_lone_functional_nyumba_is_taxed_two_seeds():
    state = at(K, TAX.format(a4=0), "S namua hands=22,22 nyumba=SN")
    assert legal(K, state) == ["A5L2", "A5R2"]
    tax = K.parse(state, "A5L2")
    assert tax == Move("A5", "L", tax=True)
    assert K.describe(K.play(state, tax)) == text(
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 1 1 5 0 0 0
        0 0 4 0 0 0 0 0
        """,
        "N namua hands=21,22 nyumba=SN",
    )
    assert K.describe(play(K, state, "A5R2")) == text(
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 5 1 1 0
        0 0 4 0 0 0 0 0
        """,
        "N namua hands=21,22 nyumba=SN",
    )
    assert K.steps(state, tax) == (
        Step("place", pit="A5", seeds=1, player=0),
        Step("tax", pit="A5", seeds=2, player=0),
        Step("lift", pit="A5", seeds=2, player=0),
        Step("sow", pit="A4", seeds=1, player=0),
        Step("sow", pit="A3", seeds=1, player=0),
        Step("stop", pit="A3", note="empty"),
    )
    facing = at(K, TAX.format(a4=1), "S namua hands=22,21 nyumba=SN")
    assert legal(K, facing) == ["A5L", "A5R"]  # a capture comes first (B11)


def test_K4_in_mtaji_the_nyumba_does_not_stop_a_lap():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 55
        0 0 0 0 0 0 0 1
        0 0 2 0 6 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=S",
    )
    assert legal(K, state) == ["A3L", "A3R", "A5L", "A5R"]
    assert K.describe(play(K, state, "A3R")) == text(  # A5 (7) relays; ownership ends (B15)
        """
        0 0 0 0 0 0 0 55
        0 0 0 0 0 0 0 1
        0 0 0 1 0 1 1 1
        0 0 0 0 1 1 1 1
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_K4_the_first_mtaji_capture_ends_both_ownerships():
    state = at(
        K,
        """
        0 0 0 0 0 0 0 47
        0 1 0 6 0 0 0 1
        0 1 0 2 6 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=SN",
    )
    assert legal(K, state) == ["A4L"]
    assert K.describe(play(K, state, "A4L")) == text(
        """
        0 0 0 0 0 0 0 47
        0 0 0 6 0 0 0 1
        1 2 1 0 6 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


# South's takasa A1R leaves exactly one North pit, a5, open to a capture (A6L next turn).
TAKASIA = """
    0 0 0 0 0 0 0 {b1}
    {a8} 0 0 {a5} 0 0 0 0
    3 0 0 0 0 2 0 0
    0 0 0 0 0 0 0 0
    """
AFTER_A1R = """
    0 0 0 0 0 0 0 {b1}
    {a8} 0 0 {a5} 0 0 0 0
    0 1 1 1 0 2 0 0
    0 0 0 0 0 0 0 0
    """


def test_K5_takasia_blocks_the_one_threatened_pit_for_one_move():
    state = at(K, TAKASIA.format(a8=2, a5=3, b1=54), "S mtaji hands=0,0 nyumba=-")
    assert legal(K, state) == ["A1L", "A1R", "A6L", "A6R"]
    move = K.parse(state, "A1R")
    blocked = K.play(state, move)
    assert K.describe(blocked) == text(
        AFTER_A1R.format(a8=2, a5=3, b1=54), "N mtaji hands=0,0 nyumba=- takasia=a5"
    )
    assert K.board(blocked)["takasia"] == "a5"
    assert K.steps(state, move)[-1] == Step("takasia", pit="a5", player=1)
    assert legal(K, blocked) == ["a8L", "a8R"]  # a5 holds 3 but may not start
    assert K.describe(play(K, blocked, "a8L")) == text(  # it lasted one move
        """
        0 0 0 0 0 0 0 54
        0 1 1 3 0 0 0 0
        0 1 1 1 0 2 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )


@pytest.mark.parametrize(
    "a8, a5, b1, nyumba, why",
    [
        (2, 1, 56, "-", "the pit holds one seed"),
        (0, 3, 56, "-", "it is North's only occupied front pit"),
        (1, 3, 55, "-", "it is North's only front pit with two or more"),
        (2, 3, 54, "N", "it is North's owned nyumba"),
    ],
)
def test_K5_takasia_exemptions(a8, a5, b1, nyumba, why):
    state = at(K, TAKASIA.format(a8=a8, a5=a5, b1=b1), f"S mtaji hands=0,0 nyumba={nyumba}")
    assert K.describe(play(K, state, "A1R")) == text(
        AFTER_A1R.format(a8=a8, a5=a5, b1=b1), f"N mtaji hands=0,0 nyumba={nyumba}"
    ), why


def test_K5_the_takasia_option_turns_it_off():
    off = engine.load("bao-kiswahili", takasia=False)
    state = at(off, TAKASIA.format(a8=2, a5=3, b1=54), "S mtaji hands=0,0 nyumba=-")
    after = play(off, state, "A1R")
    assert off.describe(after) == text(
        AFTER_A1R.format(a8=2, a5=3, b1=54), "N mtaji hands=0,0 nyumba=-"
    )
    assert legal(off, after) == ["a5L", "a5R", "a8L", "a8R"]


def test_K5_a_lap_ending_in_the_takasiad_pit_stops_there():
    drawing = """
        0 0 0 0 0 0 0 53
        3 0 0 3 0 0 0 0
        0 1 1 0 0 2 0 0
        1 0 0 0 0 0 0 0
        """
    blocked = at(K, drawing, "N mtaji hands=0,0 nyumba=- takasia=a5")
    assert legal(K, blocked) == ["a8L", "a8R"]
    assert K.describe(play(K, blocked, "a8L")) == text(
        """
        0 0 0 0 0 0 0 53
        0 1 1 4 0 0 0 0
        0 1 1 0 0 2 0 0
        1 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert K.steps(blocked, K.parse(blocked, "a8L"))[-1] == Step("stop", pit="a5", note="takasia")
    free = at(K, drawing, "N mtaji hands=0,0 nyumba=-")
    assert K.describe(play(K, free, "a8L")) == text(  # the same lap relays on from a5
        """
        0 0 0 0 0 0 0 53
        0 1 1 0 1 1 1 1
        0 1 1 0 0 2 0 0
        1 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )


ENDLESS = """
    50 0 0 0 0 0 0 0
     0 0 0 0 0 0 1 0
     1 0 1 0 1 0 1 5
     0 1 0 1 0 1 0 1
    """


def test_K6_a_move_that_never_ends_is_illegal():
    state = at(K, ENDLESS, "S mtaji hands=0,0 nyumba=-")
    # A8 is the only start; both ways the relays cycle (period 368 laps) and never end.
    assert K.legal_moves(state) == ()
    assert K.outcome(state) == Outcome(1, "no-move")
    with pytest.raises(IllegalMove, match=r"A8L is not legal in .* \(it never ends, K6\)"):
        K.play(state, Move("A8", "L"))
    patient = Bao(
        "bao-kiswahili", {"takasia": True}, msgspec.structs.replace(KISWAHILI, lap_limit=20_000)
    )
    assert patient.legal_moves(patient.position(K.describe(state))) == ()


def test_K6_only_the_endless_moves_are_struck_out():
    state = at(
        K,
        """
        50 0 0 0 0 0 0 0
         0 0 1 0 0 0 0 0
         2 1 0 1 0 1 0 2
         1 0 1 0 2 1 0 1
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(K, state) == ["A1L", "A1R", "A8R"]  # A8L never ends
