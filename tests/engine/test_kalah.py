"""Scenario tests for Kalah, one or more per rule of docs/rules/kalah.md (K1–K10).

Boards are drawn as seen from South, North's pits reading F…A left to right:

         F  E  D  C  B  A
    [N]                    [S]      N = North's store (store1), S = South's store (store0)
         a  b  c  d  e  f

Position text (describe/position) lists a–f, [S], A–F, [N], then the player to move.
"""

from __future__ import annotations

import msgspec
import pytest

import engine
from engine import BadNotation, BadOptions, IllegalMove, Outcome, Step

GAME = engine.load("kalah")


def play(game, text: str, moves: str):
    """The position ``text`` after the moves given as letters."""
    state = game.position(text)
    for letter in moves:
        state = game.play(state, game.parse(state, letter))
    return state


def sows(*pits: str, player: int = 0) -> list[Step]:
    return [Step("sow", pit, 1, player=player) for pit in pits]


def test_K1_two_sides_of_six_pits_and_a_store_south_moves_first():
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
    assert [GAME.notation(m) for m in GAME.legal_moves(state)] == list("abcdef")
    # South's store is to South's right, after f; North's after F.
    assert GAME.describe(play(GAME, GAME.describe(state), "f")) == (
        "4 4 4 4 4 0 [1] 5 5 5 4 4 4 [0] North"
    )
    assert GAME.describe(play(GAME, GAME.describe(state), "fF")) == (
        "5 5 5 4 4 0 [1] 5 5 5 4 4 0 [1] South"
    )


@pytest.mark.parametrize("seeds", [3, 4, 5, 6])
def test_K2_start_has_the_chosen_seeds_in_every_pit_and_empty_stores(seeds):
    game = engine.load("kalah", seeds=seeds)
    row = " ".join([str(seeds)] * 6)
    assert game.describe(game.start()) == f"{row} [0] {row} [0] South"
    assert game.options == {"seeds": seeds, "empty_capture": False}
    assert sum(game.board(game.start())["pits"].values()) == 12 * seeds


@pytest.mark.parametrize(
    "options", [{"seeds": 2}, {"seeds": 7}, {"seeds": "4"}, {"empty_capture": 1}, {"pits": 6}]
)
def test_K2_options_out_of_range_are_refused(options):
    with pytest.raises(BadOptions):
        engine.load("kalah", **options)


def test_K3_a_move_is_one_pit_letter_and_round_trips():
    state = GAME.start()
    assert [GAME.notation(m) for m in range(12)] == list("abcdefABCDEF")
    assert [GAME.parse(state, c) for c in "abcdef"] == list(GAME.legal_moves(state))
    north = GAME.play(state, GAME.parse(state, "a"))
    assert [GAME.notation(m) for m in GAME.legal_moves(north)] == list("ABCDEF")
    for text in ["g", "", "aa", "1", " a", "store0", None]:
        with pytest.raises(BadNotation, match="is not a Kalah move"):
            GAME.parse(state, text)
    with pytest.raises(IllegalMove):
        GAME.notation(12)


def test_K3_parsing_a_well_formed_illegal_move_names_move_and_position():
    state = GAME.start()
    with pytest.raises(IllegalMove) as error:
        GAME.parse(state, "A")
    assert str(error.value) == (
        "illegal move A in 4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South: pit A is not South's"
    )


def test_K4_sowing_skips_the_opponents_store_south():
    #      F  E  D  C  B  A               F  E  D  C  B  A
    # [15] 1  1  1  1  1  1 [15]   [15]  2  2  2  2  2  2 [16]
    #      1  0  1  0  0 10        ->    2  1  2  0  0  0
    #      a  b  c  d  e  f  South plays f: S, A–F, (not N), a, b, c
    state = GAME.position("1 0 1 0 0 10 [15] 1 1 1 1 1 1 [15] South")
    steps = GAME.steps(state, 5)
    assert list(steps) == [
        Step("lift", "f", 10, player=0),
        *sows("store0", "A", "B", "C", "D", "E", "F", "a", "b", "c"),
    ]
    assert GAME.describe(GAME.play(state, 5)) == "2 1 2 0 0 0 [16] 2 2 2 2 2 2 [15] North"


def test_K4_sowing_skips_the_opponents_store_north():
    # Mirror image: North plays F (10 seeds): N, a–f, (not S), A, B, C.
    state = GAME.position("1 1 1 1 1 1 [15] 1 0 1 0 0 10 [15] North")
    after = play(GAME, GAME.describe(state), "F")
    assert GAME.describe(after) == "2 2 2 2 2 2 [15] 2 1 2 0 0 0 [16] South"
    assert [s.pit for s in GAME.steps(state, 11)][1:] == ["store1", *"abcdefABC"]


def test_K4_with_13_seeds_the_lap_sows_the_origin_pit_too():
    #      F  E  D  C  B  A                  F  E  D  C  B  A
    # [14] 1  1  1  1  1  1 [14]      [14]   2  2  0  2  2  2 [18]
    #      1  0 13  0  0  0       ->         2  1  0  1  1  1
    #      a  b  c  d  e  f   c: d e f S A B C D E F a b c — the 13th seed lands in c,
    # which the lift emptied, so K6 captures D (2) and it: 3 to South's store.
    state = GAME.position("1 0 13 0 0 0 [14] 1 1 1 1 1 1 [14] South")
    steps = GAME.steps(state, 2)
    assert [s.pit for s in steps[1:14]] == [*"def", "store0", *"ABCDEFabc"]
    assert steps[14:] == (
        Step("capture", "D", 2, player=0),
        Step("capture", "c", 1, player=0),
        Step("store", seeds=3, to="store0", player=0),
    )
    assert GAME.describe(GAME.play(state, 2)) == "2 1 0 1 1 1 [18] 2 2 2 0 2 2 [14] North"


def test_K4_a_lap_that_ends_in_a_pit_sown_on_the_first_lap_captures_nothing():
    # b (14 seeds): c…F, a, b, c. c was empty but got the first seed; the last makes it 2.
    state = GAME.position("0 14 0 0 0 0 [14] 1 1 1 1 1 1 [14] South")
    assert GAME.describe(GAME.play(state, 1)) == "1 1 2 1 1 1 [15] 2 2 2 2 2 2 [14] North"


def test_K5_last_seed_in_own_store_gives_another_move_without_limit():
    #      F  E  D  C  B  A
    # [7]  4  4  4  4  4  4 [10]
    #      1  0  0  3  2  1
    #      a  b  c  d  e  f    f, e, f, d: each ends in South's store.
    text = "1 0 0 3 2 1 [10] 4 4 4 4 4 4 [7] South"
    expected = [
        "1 0 0 3 2 0 [11] 4 4 4 4 4 4 [7] South",
        "1 0 0 3 0 1 [12] 4 4 4 4 4 4 [7] South",
        "1 0 0 3 0 0 [13] 4 4 4 4 4 4 [7] South",
        "1 0 0 0 1 1 [14] 4 4 4 4 4 4 [7] South",
    ]
    for moves, want in zip(["f", "fe", "fef", "fefd"], expected, strict=True):
        assert GAME.describe(play(GAME, text, moves)) == want
    state = GAME.position(text)
    assert GAME.steps(state, 5) == (
        Step("lift", "f", 1, player=0),
        *sows("store0"),
        Step("extra-turn", player=0),
    )


def test_K5_north_gets_an_extra_turn_too():
    state = play(GAME, "4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] North", "C")
    assert GAME.describe(state) == "4 4 4 4 4 4 [0] 4 4 0 5 5 5 [1] North"


def test_K6_capture_takes_opposite_and_last_seed():
    #      F  E  D  C  B  A                 F  E  D  C  B  A
    # [13] 1  1  1  5  1  1 [20]      [13]  1  1  1  0  1  1 [26]
    #      0  2  0  0  0  3       ->        0  0  1  0  0  3
    #      a  b  c  d  e  f   b: c, d. d was empty; C (5) + the seed go to South's store.
    state = GAME.position("0 2 0 0 0 3 [20] 1 1 5 1 1 1 [13] South")
    assert GAME.steps(state, 1) == (
        Step("lift", "b", 2, player=0),
        *sows("c", "d"),
        Step("capture", "C", 5, player=0),
        Step("capture", "d", 1, player=0),
        Step("store", seeds=6, to="store0", player=0),
    )
    assert GAME.describe(GAME.play(state, 1)) == "0 0 1 0 0 3 [26] 1 1 0 1 1 1 [13] North"


def test_K6_north_captures_into_its_own_store():
    # Mirror: North B: C, D; D was empty, c (5) and the seed go to North's store.
    state = play(GAME, "1 1 5 1 1 1 [13] 0 2 0 0 0 3 [20] North", "B")
    assert GAME.describe(state) == "1 1 0 1 1 1 [13] 0 0 1 0 0 3 [26] South"


def test_K6_opposite_pit_empty_captures_nothing_and_the_seed_stays():
    #      F  E  D  C  B  A                 F  E  D  C  B  A
    # [18] 1  1  1  0  1  1 [20]      [18]  1  1  1  0  1  1 [20]
    #      0  2  0  0  0  3       ->        0  0  1  1  0  3
    state = GAME.position("0 2 0 0 0 3 [20] 1 1 0 1 1 1 [18] South")
    assert GAME.describe(GAME.play(state, 1)) == "0 0 1 1 0 3 [20] 1 1 0 1 1 1 [18] North"
    assert [s.kind for s in GAME.steps(state, 1)] == ["lift", "sow", "sow"]


def test_K6_last_seed_in_an_own_pit_that_held_seeds_captures_nothing():
    #      F  E  D  C  B  A                 F  E  D  C  B  A
    # [12] 1  1  1  5  1  1 [20]      [12]  1  1  1  5  1  1 [20]
    #      0  2  0  1  0  3       ->        0  0  1  2  0  3
    state = GAME.position("0 2 0 1 0 3 [20] 1 1 5 1 1 1 [12] South")
    assert GAME.describe(GAME.play(state, 1)) == "0 0 1 2 0 3 [20] 1 1 5 1 1 1 [12] North"


def test_K6_last_seed_in_an_empty_opponent_pit_captures_nothing():
    #      F  E  D  C  B  A                 F  E  D  C  B  A
    # [19] 1  1  1  0  0  1 [20]      [19]  1  1  1  1  1  2 [21]
    #      1  0  0  0  0  4       ->        1  0  0  0  0  0
    state = GAME.position("1 0 0 0 0 4 [20] 1 0 0 1 1 1 [19] South")
    assert GAME.describe(GAME.play(state, 5)) == "1 0 0 0 0 0 [21] 2 1 1 1 1 1 [19] North"


def test_K6_option_empty_capture_takes_the_last_seed_alone():
    # Same board as the test above it; with empty_capture the seed in d goes to the store.
    game = engine.load("kalah", empty_capture=True)
    state = game.position("0 2 0 0 0 3 [20] 1 1 0 1 1 1 [18] South")
    assert game.steps(state, 1)[3:] == (
        Step("capture", "d", 1, player=0),
        Step("store", seeds=1, to="store0", player=0),
    )
    assert game.describe(game.play(state, 1)) == "0 0 1 0 0 3 [21] 1 1 0 1 1 1 [18] North"


def test_K7_after_a_capture_the_turn_passes():
    state = GAME.play(GAME.position("0 2 0 0 0 3 [20] 1 1 5 1 1 1 [13] South"), 1)
    assert GAME.to_move(state) == 1
    assert [GAME.notation(m) for m in GAME.legal_moves(state)] == list("ABDEF")


def test_K8_a_side_emptied_by_an_extra_turn_move_ends_the_game():
    #      F  E  D  C  B  A                 F  E  D  C  B  A
    # [15] 2  2  2  2  2  2 [20]      [27]  0  0  0  0  0  0 [21]
    #      0  0  0  0  0  1       ->        0  0  0  0  0  0
    # f reaches the store (an extra turn) but South's row is empty: North's 12 go to North.
    state = GAME.position("0 0 0 0 0 1 [20] 2 2 2 2 2 2 [15] South")
    after = GAME.play(state, 5)
    assert GAME.describe(after) == "0 0 0 0 0 0 [21] 0 0 0 0 0 0 [27] South"
    assert GAME.legal_moves(after) == ()
    assert GAME.outcome(after) == Outcome(winner=1, reason="side-empty", score=(21, 27))
    assert GAME.steps(state, 5) == (
        Step("lift", "f", 1, player=0),
        *sows("store0"),
        Step("extra-turn", player=0),
        *[Step("end", pit, 2, to="store1", player=1) for pit in "ABCDEF"],
        Step("end", note="side-empty"),
    )


def test_K8_a_capture_that_empties_the_opponents_row_ends_the_game():
    #      F  E  D  C  B  A                 F  E  D  C  B  A
    # [21] 0  3  0  0  0  0 [21]      [21]  0  0  0  0  0  0 [27]
    #      1  0  0  0  0  2       ->        0  0  0  0  0  0
    # a: b, capturing E (3) and the seed; South's own f (2) then goes to South's store.
    state = GAME.position("1 0 0 0 0 2 [21] 0 0 0 0 3 0 [21] South")
    after = GAME.play(state, 0)
    assert GAME.describe(after) == "0 0 0 0 0 0 [27] 0 0 0 0 0 0 [21] North"
    assert GAME.outcome(after) == Outcome(winner=0, reason="side-empty", score=(27, 21))
    assert GAME.steps(state, 0)[-2:] == (
        Step("end", "f", 2, to="store0", player=0),
        Step("end", note="side-empty"),
    )


def test_K9_equal_stores_draw():
    # f reaches the store; South's row is empty, North's F goes to North: 24–24.
    after = play(GAME, "0 0 0 0 0 1 [23] 0 0 0 0 0 1 [23] South", "f")
    assert GAME.describe(after) == "0 0 0 0 0 0 [24] 0 0 0 0 0 0 [24] South"
    assert GAME.outcome(after) == Outcome(winner=None, reason="side-empty", score=(24, 24))


def test_K9_decision_25_seeds_does_not_end_the_game():
    state = GAME.position("1 1 1 1 1 1 [25] 1 1 1 1 1 1 [11] South")
    assert GAME.outcome(state) is None
    after = GAME.play(state, 0)
    assert GAME.describe(after) == "0 2 1 1 1 1 [25] 1 1 1 1 1 1 [11] North"
    assert GAME.outcome(after) is None and GAME.legal_moves(after)


def test_K10_resignation_and_agreement_are_adjudications():
    assert engine.resigned(0) == Outcome(1, "resignation", adjudication="resignation")
    assert engine.agreed_draw() == Outcome(None, "agreement", adjudication="agreement")


@pytest.mark.parametrize(
    "text, move, message",
    [
        (
            "4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South",
            6,
            "illegal move A in 4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South: pit A is not South's",
        ),
        (
            "0 2 0 0 0 3 [20] 1 1 0 1 1 1 [18] South",
            0,
            "illegal move a in 0 2 0 0 0 3 [20] 1 1 0 1 1 1 [18] South: pit a is empty",
        ),
        (
            "0 0 0 0 0 0 [24] 0 0 0 0 0 0 [24] North",
            7,
            "illegal move B in 0 0 0 0 0 0 [24] 0 0 0 0 0 0 [24] North: the game is over",
        ),
        (
            "4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South",
            12,
            "12 is not a Kalah move (position 4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South)",
        ),
        ("4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South", True, "True is not a Kalah move"),
        ("4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South", "a", "'a' is not a Kalah move"),
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
        ("4 4 4 4 4 4 [0] 4 4 4 4 4 [0] South", "is not a Kalah position"),
        ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 South", "is not a Kalah position"),
        ("4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] East", "must name the player to move"),
        ("4 4 4 4 4 x [0] 4 4 4 4 4 4 [0] South", "bad pit counts"),
        ("4 4 4 4 4 -4 [8] 4 4 4 4 4 4 [0] South", "bad pit counts"),
        ("4 4 4 4 4 4 [1] 4 4 4 4 4 4 [0] South", "holds 49 seeds, not 48"),
        ("0 0 0 0 0 0 [24] 4 4 4 4 4 4 [0] South", "one side empty"),
        ("", "is not a Kalah position"),
    ],
)
def test_bad_position_text_is_refused(text, message):
    with pytest.raises(BadNotation, match=message):
        GAME.position(text)


@pytest.mark.parametrize("seeds", [3, 6])
def test_positions_round_trip_through_text_and_msgpack(seeds):
    game = engine.load("kalah", seeds=seeds, empty_capture=True)
    state = game.start()
    for letter in "cAf":
        state = game.play(state, game.parse(state, letter))
        assert game.position(game.describe(state)) == state
        data = msgspec.msgpack.encode(state)
        assert msgspec.msgpack.decode(data, type=game.state_type) == state


def test_play_leaves_its_input_unchanged():
    state = GAME.start()
    before = msgspec.msgpack.encode(state)
    GAME.play(state, 2)
    GAME.steps(state, 2)
    assert msgspec.msgpack.encode(state) == before
    assert GAME.describe(state) == "4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South"
