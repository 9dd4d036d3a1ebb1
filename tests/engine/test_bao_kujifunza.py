"""Scenario tests for profile ``bao-kujifunza``, rules J1–J3 (``docs/rules/bao.md``).

Boards drawn North on top, rows as South sees them: b8..b1 / a8..a1 / A1..A8 / B1..B8.
"""

from __future__ import annotations

import pytest
from baokit import at, legal, play, text  # noqa: F401

import engine
from engine import IllegalMove, Outcome
from engine.bao import Move

J = engine.load("bao-kujifunza")


def test_J1_all_pits_hold_two_and_mtaji_starts_at_once():
    state = J.start()
    assert J.describe(state) == text(
        """
        2 2 2 2 2 2 2 2
        2 2 2 2 2 2 2 2
        2 2 2 2 2 2 2 2
        2 2 2 2 2 2 2 2
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert J.board(state)["stage"] == "mtaji" and J.board(state)["nyumba"] == [False, False]
    # Every first lap of 2 that ends in the front row captures: 16 moves, back pits included.
    assert legal(J, state) == [
        "A1R",
        "A2R",
        "A3L",
        "A3R",
        "A4L",
        "A4R",
        "A5L",
        "A5R",
        "A6L",
        "A6R",
        "A7L",
        "A8L",
        "B1R",
        "B2R",
        "B7L",
        "B8L",
    ]
    # A1R captures a6, a7, a2 and a1 in turn, relaying through A2, A7, A3, B3 and B6.
    assert J.describe(play(J, state, "A1R")) == text(
        """
        2 2 2 2 2 2 2 2
        2 0 0 2 2 2 0 0
        3 1 0 4 4 4 1 5
        3 3 0 3 3 0 3 3
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_J1_no_nyumba_ever_stops_a_lap():
    # A5 holding 6 at a lap's end is an ordinary pit: the lap relays on.
    state = at(
        J,
        """
        0 0 0 0 0 0 0 55
        0 0 0 0 0 0 0 1
        0 0 2 0 6 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert J.describe(play(J, state, "A3R")) == text(
        """
        0 0 0 0 0 0 0 55
        0 0 0 0 0 0 0 1
        0 0 0 1 0 1 1 1
        0 0 0 0 1 1 1 1
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


TAKASIA = """
    0 0 0 0 0 0 0 54
    2 0 0 3 0 0 0 0
    3 0 0 0 0 2 0 0
    0 0 0 0 0 0 0 0
    """
AFTER = """
    0 0 0 0 0 0 0 54
    2 0 0 3 0 0 0 0
    0 1 1 1 0 2 0 0
    0 0 0 0 0 0 0 0
    """


def test_J2_takasia_is_off_unless_asked_for():
    assert J.options == {"takasia": False}
    state = at(J, TAKASIA, "S mtaji hands=0,0 nyumba=-")
    assert J.describe(play(J, state, "A1R")) == text(AFTER, "N mtaji hands=0,0 nyumba=-")
    on = engine.load("bao-kujifunza", takasia=True)
    after = play(on, on.position(J.describe(state)), "A1R")
    assert on.describe(after) == text(AFTER, "N mtaji hands=0,0 nyumba=- takasia=a5")
    assert legal(on, after) == ["a8L", "a8R"]


def test_J3_endless_moves_are_illegal_as_in_K6():
    state = at(
        J,
        """
        50 0 0 0 0 0 0 0
         0 0 0 0 0 0 1 0
         1 0 1 0 1 0 1 5
         0 1 0 1 0 1 0 1
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert J.legal_moves(state) == ()
    assert J.outcome(state) == Outcome(1, "no-move")
    with pytest.raises(IllegalMove, match="never ends"):
        J.play(state, Move("A8", "R"))
