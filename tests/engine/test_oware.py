"""Scenario tests for Oware (Abapa), one or more per rule of docs/rules/oware.md (O1–O12).

Boards are drawn as seen from South, North's pits reading F…A left to right, with the captured
seeds (score trays) beside them:

    F  E  D  C  B  A      North
    a  b  c  d  e  f      South        score South-North

Position text (describe/position) lists a–f / A–F, the score, the player to move, then the
moves since the last capture with the seeds each lifted (``; history``), which O11 needs.
"""

from __future__ import annotations

import msgspec
import pytest

import engine
from engine import BadNotation, IllegalMove, Outcome, Step

GAME = engine.load("oware")


def play(text: str, moves: str):
    """The position ``text`` after the moves given as letters."""
    state = GAME.position(text)
    for letter in moves:
        state = GAME.play(state, GAME.parse(state, letter))
    return state


def after(text: str, moves: str) -> str:
    return GAME.describe(play(text, moves))


def sows(pits: str, player: int = 0) -> list[Step]:
    return [Step("sow", pit, 1, player=player) for pit in pits]


def test_O1_twelve_pits_of_four_and_score_trays_that_are_never_sown():
    state = GAME.start()
    assert GAME.to_move(state) == 0
    assert GAME.board(state) == {
        "pits": {
            "a": 4,
            "b": 4,
            "c": 4,
            "d": 4,
            "e": 4,
            "f": 4,
            "A": 4,
            "B": 4,
            "C": 4,
            "D": 4,
            "E": 4,
            "F": 4,
        },
        "stores": [0, 0],
    }
    # f's seeds go straight to A: no tray in the ring.
    assert after(GAME.describe(state), "f") == (
        "4 4 4 4 4 0 / 5 5 5 5 4 4 score 0-0 North; history f4"
    )


def test_O2_a_move_is_one_pit_letter_and_round_trips():
    state = GAME.start()
    assert [GAME.notation(m) for m in range(12)] == list("abcdefABCDEF")
    assert [GAME.parse(state, c) for c in "abcdef"] == list(GAME.legal_moves(state))
    for text in ["g", "", "ab", "4", "store0", None]:
        with pytest.raises(BadNotation, match="is not an Oware move"):
            GAME.parse(state, text)
    with pytest.raises(IllegalMove) as error:
        GAME.parse(state, "A")
    assert str(error.value) == (
        "illegal move A in 4 4 4 4 4 4 / 4 4 4 4 4 4 score 0-0 South: pit A is not South's"
    )


def test_O3_north_sows_counter_clockwise_from_F_round_to_a():
    #  F  E  D  C  B  A            F  E  D  C  B  A
    #  4  4  5  5  5  5      ->    0  4  5  5  5  5
    #  4  4  4  4  4  0            5  5  5  5  4  0     North plays F: a, b, c, d
    state = play("4 4 4 4 4 4 / 4 4 4 4 4 4 score 0-0 South", "f")
    assert GAME.steps(state, 11) == (Step("lift", "F", 4, player=1), *sows("abcd", player=1))
    assert GAME.describe(GAME.play(state, 11)) == (
        "5 5 5 5 4 0 / 5 5 5 5 4 0 score 0-0 South; history f4 F4"
    )


def test_O4_twelve_seeds_lap_the_board_and_skip_the_origin():
    #  F  E  D  C  B  A            F  E  D  C  B  A
    #  1  1  1  1  1  1      ->    2  2  2  2  2  2
    # 12  1  1  1  1  1            0  3  2  2  2  2     score 12-13
    #  a  b  c  d  e  f   a: b … F (11 seeds), a is skipped, the 12th lands in b
    state = GAME.position("12 1 1 1 1 1 / 1 1 1 1 1 1 score 12-13 South")
    assert [s.pit for s in GAME.steps(state, 0)[1:]] == list("bcdefABCDEFb")
    assert GAME.describe(GAME.play(state, 0)) == (
        "0 3 2 2 2 2 / 2 2 2 2 2 2 score 12-13 North; history a12"
    )


def test_O4_two_laps_skip_the_origin_both_times():
    # A (23 seeds): B…F, a…f (11), then again (22), skipping A, and the 23rd in B.
    state = GAME.position("1 1 1 1 1 1 / 23 0 0 0 0 0 score 10-9 North")
    assert GAME.describe(GAME.play(state, 6)) == (
        "3 3 3 3 3 3 / 0 3 2 2 2 2 score 10-9 South; history A23"
    )


def test_O5_no_extra_turns_every_move_passes_the_turn():
    state = GAME.position("1 1 1 1 1 1 / 1 1 1 1 1 1 score 18-18 South")
    for move in GAME.legal_moves(state):
        assert GAME.to_move(GAME.play(state, move)) == 1


def test_O6_capture_two_then_three_and_stop_at_four():
    # The source's example.
    #  F  E  D  C  B  A            F  E  D  C  B  A
    #  1  1  1  1  2  3      ->    1  1  1  0  0  4
    #  1  1  1  1  1  3            1  1  1  1  1  0      15-16 -> 20-16
    # f: A 4, B 3, C 2. C (2) and B (3) are captured; A (4) stops the chain.
    state = GAME.position("1 1 1 1 1 3 / 3 2 1 1 1 1 score 15-16 South")
    assert GAME.steps(state, 5) == (
        Step("lift", "f", 3, player=0),
        *sows("ABC"),
        Step("capture", "C", 2, player=0),
        Step("capture", "B", 3, player=0),
        Step("store", seeds=5, to="store0", player=0),
    )
    assert GAME.describe(GAME.play(state, 5)) == "1 1 1 1 1 0 / 4 0 0 1 1 1 score 20-16 North"


def test_O6_the_chain_stops_at_the_movers_own_row():
    #  F  E  D  C  B  A            F  E  D  C  B  A
    #  1  1  1  1  2  1      ->    1  1  1  1  0  0
    #  1  1  1  4  1  1            1  1  1  0  2  2      16-16 -> 21-16
    # d: e, f, A 2, B 3. B and A are captured; f (2) is South's own and stays.
    assert after("1 1 1 4 1 1 / 1 2 1 1 1 1 score 16-16 South", "d") == (
        "1 1 1 0 2 2 / 0 0 1 1 1 1 score 21-16 North"
    )


def test_O6_north_captures_on_souths_row():
    # Mirror of the source's example: F: a 4, b 3, c 2.
    assert after("3 2 1 1 1 1 / 1 1 1 1 1 3 score 16-15 North", "F") == (
        "4 0 0 1 1 1 / 1 1 1 1 1 0 score 16-20 South"
    )


@pytest.mark.parametrize(
    "text, move, result",
    [
        # last pit ends with 1: nothing, even though B ends with 3
        (
            "1 1 1 1 1 3 / 3 2 0 1 1 1 score 15-17 South",
            "f",
            "1 1 1 1 1 0 / 4 3 1 1 1 1 score 15-17 North; history f3",
        ),
        # last pit ends with 4
        (
            "1 1 1 1 1 3 / 3 2 3 1 1 1 score 15-14 South",
            "f",
            "1 1 1 1 1 0 / 4 3 4 1 1 1 score 15-14 North; history f3",
        ),
        # last seed on the mover's own row making 2
        (
            "1 1 1 1 1 0 / 2 2 2 2 2 2 score 19-12 South",
            "d",
            "1 1 1 0 2 0 / 2 2 2 2 2 2 score 19-12 North; history d1",
        ),
    ],
)
def test_O6_no_capture_unless_the_last_seed_makes_an_opponent_pit_2_or_3(text, move, result):
    assert after(text, move) == result


def test_O7_grand_slam_cancels_capture():
    #  F  E  D  C  B  A            F  E  D  C  B  A
    #  0  0  0  0  2  1      ->    0  0  0  0  3  2
    #  1  1  1  1  1  2            1  1  1  1  1  0      19-19, unchanged
    # f: A 2, B 3 would take every North seed, so nothing is taken; the sowing stands.
    state = GAME.position("1 1 1 1 1 2 / 1 2 0 0 0 0 score 19-19 South")
    assert GAME.steps(state, 5) == (
        Step("lift", "f", 2, player=0),
        *sows("AB"),
        Step("grand-slam", "B", player=0, note="capture cancelled"),
    )
    assert GAME.describe(GAME.play(state, 5)) == (
        "1 1 1 1 1 0 / 2 3 0 0 0 0 score 19-19 North; history f2"
    )


def test_O7_a_capture_that_leaves_one_seed_stands():
    # As above with one seed in F: the capture is not a grand slam. 24 does not win (O9).
    state = play("1 1 1 1 1 2 / 1 2 0 0 0 1 score 19-18 South", "f")
    assert GAME.describe(state) == "1 1 1 1 1 0 / 0 0 0 0 0 1 score 24-18 North"
    assert GAME.outcome(state) is None


def test_O8_the_mover_must_feed_an_empty_row():
    #  F  E  D  C  B  A            F  E  D  C  B  A
    #  0  0  0  0  0  0      ->    0  0  0  0  0  1
    #  1  0  0  3  2  0            1  0  0  0  3  1      22-20
    # Only d and e reach North's row; a does not.
    state = GAME.position("1 0 0 3 2 0 / 0 0 0 0 0 0 score 22-20 South")
    assert [GAME.notation(m) for m in GAME.legal_moves(state)] == ["d", "e"]
    with pytest.raises(IllegalMove) as error:
        GAME.parse(state, "a")
    assert str(error.value) == (
        "illegal move a in 1 0 0 3 2 0 / 0 0 0 0 0 0 score 22-20 South: "
        "the opponent's row is empty and d, e would feed it (O8)"
    )
    assert after(GAME.describe(state), "d") == (
        "1 0 0 0 3 1 / 1 0 0 0 0 0 score 22-20 North; history d3"
    )


def test_O8_when_no_move_can_feed_any_move_is_allowed_and_O10_follows():
    #  F  E  D  C  B  A            all empty
    #  0  0  0  0  0  0      ->
    #  1  1  0  0  0  0            23-23 -> 25-23: North cannot move, South keeps a and c
    state = GAME.position("1 1 0 0 0 0 / 0 0 0 0 0 0 score 23-23 South")
    assert [GAME.notation(m) for m in GAME.legal_moves(state)] == ["a", "b"]
    end = GAME.play(state, 1)
    assert GAME.describe(end) == "0 0 0 0 0 0 / 0 0 0 0 0 0 score 25-23 North"
    assert GAME.outcome(end) == Outcome(winner=0, reason="no-moves", score=(25, 23))


def test_O9_more_than_24_wins_at_once():
    # The source's example again, South at 20: 25 ends the game; the board stays as it is.
    state = GAME.position("1 1 1 1 1 3 / 3 2 1 1 1 1 score 20-11 South")
    end = GAME.play(state, 5)
    assert GAME.describe(end) == "1 1 1 1 1 0 / 4 0 0 1 1 1 score 25-11 North"
    assert GAME.legal_moves(end) == ()
    assert GAME.outcome(end) == Outcome(winner=0, reason="majority", score=(25, 11))
    assert GAME.steps(state, 5)[-1] == Step("end", player=0, note="majority")


def test_O9_24_24_is_a_draw():
    # a: b; North has no seed (O10), South keeps b: 24-24.
    end = play("1 0 0 0 0 0 / 0 0 0 0 0 0 score 23-24 South", "a")
    assert GAME.describe(end) == "0 0 0 0 0 0 / 0 0 0 0 0 0 score 24-24 North"
    assert GAME.outcome(end) == Outcome(winner=None, reason="no-moves", score=(24, 24))


def test_O10_decision_a_player_who_cannot_move_ends_the_game():
    #  F  E  D  C  B  A            F  E  D  C  B  A              all empty
    #  0  0  0  0  0  3   f  ->    0  0  0  0  0  4   A  ->
    #  0  0  0  0  0  1            0  0  0  0  0  0              22-22 -> 22-26
    # North cannot feed South (A reaches E at most), so A is legal; then South cannot move
    # and North's four seeds go to North.
    middle = play("0 0 0 0 0 1 / 3 0 0 0 0 0 score 22-22 South", "f")
    assert GAME.describe(middle) == "0 0 0 0 0 0 / 4 0 0 0 0 0 score 22-22 North; history f1"
    assert GAME.legal_moves(middle) == (6,)
    assert GAME.steps(middle, 6) == (
        Step("lift", "A", 4, player=1),
        *sows("BCDE", player=1),
        *[Step("end", pit, 1, to="store1", player=1) for pit in "BCDE"],
        Step("end", note="no-moves"),
    )
    end = GAME.play(middle, 6)
    assert GAME.describe(end) == "0 0 0 0 0 0 / 0 0 0 0 0 0 score 22-26 South"
    assert GAME.outcome(end) == Outcome(winner=1, reason="no-moves", score=(22, 26))


CYCLE_START = "0 0 0 0 0 1 / 0 0 0 0 0 1 score 23-23 South"


def test_O11_decision_a_repeated_position_ends_the_game():
    #  F  E  D  C  B  A
    #  1  0  0  0  0  0     f: A (North must then feed: F: a), then each seed walks its own
    #  0  0  0  0  0  1     row: a b c d e / A B C D E, until f and F hold one seed each
    #  a  b  c  d  e  f     again with South to move, 12 plies later: the start repeats.
    before = play(CYCLE_START, "fFaAbBcCdDe")
    assert GAME.describe(before) == (
        "0 0 0 0 0 1 / 0 0 0 0 1 0 score 23-23 North; history f1 F1 a1 A1 b1 B1 c1 C1 d1 D1 e1"
    )
    assert GAME.legal_moves(before) == (10,)
    assert GAME.steps(before, 10)[2:] == (
        Step("end", "f", 1, to="store0", player=0),
        Step("end", "F", 1, to="store1", player=1),
        Step("end", note="repetition"),
    )
    end = GAME.play(before, 10)
    assert GAME.describe(end) == "0 0 0 0 0 0 / 0 0 0 0 0 0 score 24-24 South; repetition"
    assert GAME.outcome(end) == Outcome(None, "repetition", (24, 24), adjudication="repetition")
    assert GAME.legal_moves(end) == ()


def test_O11_the_history_survives_text_and_msgpack():
    before = play(CYCLE_START, "fFaAbBcCdDe")
    assert GAME.position(GAME.describe(before)) == before
    data = msgspec.msgpack.encode(before)
    restored = msgspec.msgpack.decode(data, type=GAME.state_type)
    assert restored == before
    assert GAME.outcome(GAME.play(restored, 10)).adjudication == "repetition"
    # Without its history the same board is just a position: no repetition yet.
    bare = GAME.position("0 0 0 0 0 1 / 0 0 0 0 1 0 score 23-23 North")
    assert GAME.describe(GAME.play(bare, 10)) == (
        "0 0 0 0 0 1 / 0 0 0 0 0 1 score 23-23 South; history E1"
    )


def test_O11_a_capture_forgets_earlier_positions():
    # North's A sows B C D (own row): the history grows. South's f then makes C 3 and
    # captures it (B holds 4): the history restarts from the capture.
    state = play("1 1 1 1 1 3 / 3 2 1 1 1 1 score 15-16 North", "A")
    assert GAME.describe(state) == "1 1 1 1 1 3 / 0 3 2 2 1 1 score 15-16 South; history A3"
    assert after(GAME.describe(state), "a") == (
        "0 2 1 1 1 3 / 0 3 2 2 1 1 score 15-16 North; history A3 a1"
    )
    assert after(GAME.describe(state), "f") == "1 1 1 1 1 0 / 1 4 0 2 1 1 score 18-16 North"


def test_O12_resignation_and_agreement_are_adjudications():
    assert engine.resigned(1) == Outcome(0, "resignation", adjudication="resignation")
    assert engine.agreed_draw() == Outcome(None, "agreement", adjudication="agreement")


@pytest.mark.parametrize(
    "text, move, message",
    [
        (
            "0 3 2 2 2 2 / 2 2 2 2 2 2 score 12-13 South",
            0,
            "illegal move a in 0 3 2 2 2 2 / 2 2 2 2 2 2 score 12-13 South: pit a is empty",
        ),
        (
            "0 0 0 0 0 0 / 0 0 0 0 0 0 score 24-24 North",
            6,
            "illegal move A in 0 0 0 0 0 0 / 0 0 0 0 0 0 score 24-24 North: the game is over",
        ),
        ("4 4 4 4 4 4 / 4 4 4 4 4 4 score 0-0 South", -1, "-1 is not an Oware move (position "),
        ("4 4 4 4 4 4 / 4 4 4 4 4 4 score 0-0 South", "a", "'a' is not an Oware move"),
    ],
)
def test_illegal_moves_name_the_move_and_the_position(text, move, message):
    state = GAME.position(text)
    for method in (GAME.play, GAME.steps):
        with pytest.raises(IllegalMove) as error:
            method(state, move)
        assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    "text, message",
    [
        ("4 4 4 4 4 4 4 4 4 4 4 4 score 0-0 South", "is not an Oware position"),
        ("4 4 4 4 4 4 / 4 4 4 4 4 4 score 0-0 West", "must name the player to move"),
        ("4 4 4 4 4 4 / 4 4 4 4 4 4 score 1-0 South", "holds 49 seeds, not 48"),
        ("0 0 0 0 0 0 / 4 4 4 4 4 4 score 24-0 South", "the player to move has no seed"),
        ("1 0 0 0 0 0 / 0 0 0 0 0 0 score 23-24 South; repetition", "clears the board"),
        ("0 0 0 0 0 0 / 0 0 0 0 0 0 score 24-24 South; history a1", "keeps no history"),
        ("0 0 0 0 0 1 / 0 0 0 0 1 0 score 23-23 North; history e2", "its history is not"),
        ("0 0 0 0 0 1 / 0 0 0 0 1 0 score 23-23 North; history g1", "bad history move"),
        ("0 0 0 0 0 1 / 0 0 0 0 1 0 score 23-23 North; draw", "unexpected"),
        ("4 4 4 4 4 4 / 4 4 4 4 4 4 score 0-0 South; history a4", "its history is not"),
    ],
)
def test_bad_position_text_is_refused(text, message):
    with pytest.raises(BadNotation, match=message):
        GAME.position(text)


def test_play_leaves_its_input_unchanged():
    state = play(CYCLE_START, "fFa")
    before = msgspec.msgpack.encode(state)
    GAME.play(state, GAME.legal_moves(state)[0])
    GAME.steps(state, GAME.legal_moves(state)[0])
    assert msgspec.msgpack.encode(state) == before
