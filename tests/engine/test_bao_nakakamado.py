"""Scenario tests and random playouts for ``bao-nakakamado-a``, rules N1–N9 (``docs/rules/bao.md``).

Boards are drawn North on top, each row read as South sees it: b8..b1 / a8..a1 / A1..A8 /
B1..B8, and every test asserts whole positions worked out by hand from the rules. The N9
record tests (hand-written record, trial-app files) are in ``test_records.py``.
"""

from __future__ import annotations

import os
from typing import Any

import msgspec
import pytest
from playout import check_random_playouts
from test_bao_playouts import CheckerView

import engine
from engine import BadNotation, BadOptions, IllegalMove, Outcome, Step, records
from engine import bao_core as core
from engine import bao_nakakamado as nk
from engine.bao import KISWAHILI, PASS, Bao, Move, State
from engine.bao_board import NAMES
from engine.records import nakakamado as app

N = engine.load("bao-nakakamado-a")
K = engine.load("bao-kiswahili")
GAMES = int(os.environ.get("BAO_PLAYOUTS", "1000")) // 4  # each game also makes two records


def text(drawing: str, tail: str) -> str:
    rows = [",".join(line.split("#")[0].split()) for line in drawing.strip().splitlines()]
    return "/".join(rows) + " " + tail


def at(game: Any, drawing: str, tail: str) -> State:
    return game.position(text(drawing, tail))


def play(game: Any, state: State, *moves: str) -> State:
    for move in moves:
        state = game.play(state, game.parse(state, move))
    return state


def legal(game: Any, state: State) -> list[str]:
    return [game.notation(m) for m in game.legal_moves(state)]


def limited(lap_limit: int, rules: core.Rules = nk.NAKAKAMADO_A) -> Bao:
    return Bao(rules.name, {}, msgspec.structs.replace(rules, lap_limit=lap_limit))


# South captures a8 at A1 (entering A1), relays A1's three seeds to A4 and captures a5 there:
# two capture events, the last lap ending in A1 (empty after the relay). A4R captures once.
TWO = """
    0 0 0 0 0 0 0 {b1}
    1 0 0 {a5} 0 0 0 {a1}
    1 0 0 1 0 0 0 0
    0 0 0 0 0 0 0 0
    """


def two(hands: tuple[int, int], a5: int = 1, a1: int = 2, game: Any = N) -> State:
    b1 = 64 - 3 - a5 - a1 - sum(hands)
    return at(
        game, TWO.format(b1=b1, a5=a5, a1=a1), f"S namua hands={hands[0]},{hands[1]} nyumba=-"
    )


# -- N1, N2, N3, N4 ---------------------------------------------------------------------------


def test_N1_starts_as_K1_without_takasia():
    assert N.describe(N.start()) == K.describe(K.start())
    profile = next(p for p in engine.profiles() if p.name == "bao-nakakamado-a")
    assert profile.options == () and N.options == {} and not N.takasia
    with pytest.raises(BadOptions):
        engine.load("bao-nakakamado-a", takasia=True)
    blocked = K.describe(K.start()).replace("S namua hands=22,22", "S mtaji hands=0,0")
    blocked = blocked.replace("0,0,0,0,0,0,0,0/0,2", "0,0,0,0,0,0,0,44/0,2")
    assert K.position(blocked + " takasia=A6")  # a takasia'd pit exists in Kiswahili only
    with pytest.raises(BadNotation, match="K5"):
        N.position(blocked + " takasia=A6")


def test_N2_namua_takasa_starts_as_K2():
    drawing = """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        1 0 0 0 6 2 1 0
        0 0 0 0 0 0 0 0
        """
    owned = at(N, drawing, "S namua hands=22,22 nyumba=SN")
    # singletons while the nyumba is owned; never the functional nyumba itself
    assert legal(N, owned) == ["A1L", "A1R", "A6L", "A6R", "A7L", "A7R"] == legal(K, owned)
    lost = at(N, drawing, "S namua hands=22,22 nyumba=N")
    assert legal(N, lost) == ["A5L", "A5R", "A6L", "A6R"] == legal(K, lost)


def test_N2_a_namua_start_lift_that_empties_the_owned_nyumba_ends_ownership():
    # The trial app keeps such a nyumba owned; bao.md N2 follows the rulebook (B15).
    state = at(
        N,
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 5 0 1 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=26,22 nyumba=SN",
    )
    assert legal(N, state) == ["A5L", "A5R", "A7L", "A7R"]
    after = play(N, state, "A5R")
    assert N.describe(after) == text(  # 5 + 1 lifted: A6, A7, A8, B8, B7, B6
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 0 1 2 1
        0 0 0 0 0 1 1 1
        """,
        "N namua hands=25,22 nyumba=N",
    )
    assert app.parts_from_the_app(N, state, N.parse(state, "A5R"), after)
    assert not app.parts_from_the_app(N, state, N.parse(state, "A7L"), play(N, state, "A7L"))


HOUSE_ALONE = """
    0 0 0 0 0 0 0 0
    0 2 2 6 0 0 0 0
    0 0 0 0 {A5} 0 0 0
    0 0 0 0 0 0 {B7} 1
    """


def test_N3_the_tax_applies_whatever_the_owned_nyumba_holds():
    state = at(N, HOUSE_ALONE.format(A5=3, B7=6), "S namua hands=22,22 nyumba=SN")
    assert legal(N, state) == ["A5L2", "A5R2"]
    assert legal(K, state) == ["A5L", "A5R"]  # K3 needs 6 or more: a plain takasa there
    move = N.parse(state, "A5R2")
    assert N.describe(N.play(state, move)) == text(  # 3 + 1 placed, 2 lifted: A6, A7
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 0 2 1 1 0
        0 0 0 0 0 0 6 1
        """,
        "N namua hands=21,22 nyumba=SN",
    )
    assert app.app_move(N, state, move) == {
        "type": "takata",
        "phase": "namua",
        "row": 0,
        "index": 4,
        "direction": "right",
        "houseTwo": True,
    }
    single = at(N, HOUSE_ALONE.format(A5=1, B7=8), "S namua hands=22,22 nyumba=SN")
    assert N.describe(play(N, single, "A5L2")) == text(  # the tax empties it: no longer owned
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 1 1 0 0 0 0
        0 0 0 0 0 0 8 1
        """,
        "N namua hands=21,22 nyumba=N",
    )


def test_N4_a_mtaji_capture_ends_only_the_movers_ownership():
    drawing = """
        0 0 0 0 0 0 0 53
        0 0 0 3 1 0 0 0
        0 0 0 0 3 0 2 0
        0 0 0 0 0 0 0 2
        """
    state = at(N, drawing, "S mtaji hands=0,0 nyumba=SN")
    assert legal(N, state) == ["A7L"]  # sows A6, A5: A5 faces a4
    after = play(N, state, "A7L")
    assert N.describe(after) == text(  # a4 enters at A8, going on anticlockwise
        """
        0 0 0 0 0 0 0 53
        0 0 0 3 0 0 0 0
        0 0 0 0 4 1 0 1
        0 0 0 0 0 0 0 2
        """,
        "N mtaji hands=0,0 nyumba=N",
    )
    assert play(K, at(K, drawing, "S mtaji hands=0,0 nyumba=SN"), "A7L").nyumba == (False, False)


# -- N5 NYAKUA --------------------------------------------------------------------------------

TWO_AFTER = """
    0 0 0 0 0 0 0 {b1}
    0 0 0 0 0 0 0 2
    {A1} 1 1 2 0 0 0 0
    0 0 0 0 0 0 0 0
    """


def test_N5_two_captures_add_one_seed_from_each_hand_to_the_end_pit():
    state = two((5, 5))
    move = N.parse(state, "A1L")
    assert (N.summary(state, move).captures, N.summary(state, move).endpoint) == (2, 0)
    assert N.describe(N.play(state, move)) == text(
        TWO_AFTER.format(b1=48, A1=3), "N namua hands=3,4 nyumba=-"
    )
    assert N.steps(state, move)[-2:] == (
        Step("place", pit="A1", seeds=1, player=0, note="nyakua"),
        Step("place", pit="A1", seeds=1, player=1, note="nyakua"),
    )
    assert app.app_result(N, state, move, N.play(state, move)) == {
        "player": 0,
        "move": {
            "type": "capture",
            "phase": "namua",
            "row": 0,
            "index": 0,
            "direction": "right",
            "side": "left",
        },
        "placed": 1,
        "captures": 2,
        "stolen": 1,
        "added": 2,
        "ownAdded": 1,
        "opponentAdded": 1,
        "endpoint": {"player": 0, "row": 0, "index": 0},
    }


def test_N5_one_capture_adds_nothing():
    state = two((5, 5))
    after = play(N, state, "A4R")
    assert N.describe(after) == text(
        """
        0 0 0 0 0 0 0 48
        1 0 0 0 0 0 0 2
        1 0 0 2 0 0 0 1
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=4,5 nyumba=-",
    )
    result = app.app_result(N, state, N.parse(state, "A4R"), after)
    assert (result["captures"], result["stolen"], result["added"], result["endpoint"]) == (
        1,
        0,
        0,
        None,
    )


def test_N5_the_movers_last_seed_may_be_added_but_not_when_placing_used_it():
    # The rulebook's example: 6 and 2 at the start of the turn -> 4 and 1 after the addition.
    assert N.describe(play(N, two((6, 2)), "A1L")) == text(
        TWO_AFTER.format(b1=50, A1=3), "N namua hands=4,1 nyumba=-"
    )
    assert N.describe(play(N, two((2, 2)), "A1L")) == text(  # the mover's last seed goes in
        TWO_AFTER.format(b1=54, A1=3), "N namua hands=0,1 nyumba=-"
    )
    assert N.describe(play(N, two((1, 2)), "A1L")) == text(  # placing took the last one
        TWO_AFTER.format(b1=55, A1=1), "N namua hands=0,2 nyumba=-"
    )


def test_N5_the_opponents_last_seed_is_never_taken():
    assert N.describe(play(N, two((5, 2)), "A1L")) == text(
        TWO_AFTER.format(b1=51, A1=3), "N namua hands=3,1 nyumba=-"
    )
    assert N.describe(play(N, two((5, 1)), "A1L")) == text(
        TWO_AFTER.format(b1=52, A1=1), "N namua hands=4,1 nyumba=-"
    )


def test_N5_nothing_is_added_when_the_move_ends_the_game():
    state = two((5, 5), a1=0)  # the second capture empties North's front row (B13)
    after = play(N, state, "A1L")
    assert N.describe(after) == text(
        """
        0 0 0 0 0 0 0 50
        0 0 0 0 0 0 0 0
        0 1 1 2 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=4,5 nyumba=- pending=1,0",
    )
    assert N.outcome(after) == Outcome(0, "front-empty")


def test_N5_nothing_is_added_after_a_safety_stop():
    # a5 = 2: after the second capture A2 relays on; at a limit of 2 laps the move is cut.
    game = limited(2)
    after = play(game, two((5, 5), a5=2, game=game), "A1L")
    assert game.describe(after) == text(
        """
        0 0 0 0 0 0 0 47
        0 0 0 0 0 0 0 2
        1 2 1 2 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=4,5 nyumba=- adjudication=safety-stop",
    )
    assert game.outcome(after) == Outcome(None, "relay-limit", adjudication="safety-stop")


def test_N5_at_most_once_a_move_however_many_captures():
    state = at(
        N,
        """
        0 0 0 0 0 0 0 46
        1 1 0 2 0 0 0 2
        1 0 0 1 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=5,5 nyumba=-",
    )
    move = N.parse(state, "A1L")
    assert N.summary(state, move).captures == 3
    assert N.describe(N.play(state, move)) == text(  # the last lap ends in A5: 1 + 2
        """
        0 0 0 0 0 0 0 46
        0 0 0 0 0 0 0 2
        0 3 0 3 3 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=3,4 nyumba=-",
    )


def test_N5_a_back_pit_end_takes_the_addition_and_is_not_judged_again():
    state = two((5, 5), a5=9)  # the nine captured seeds run A1..A8 and end in the empty B8
    assert N.describe(play(N, state, "A1L")) == text(
        """
        0 0 0 0 0 0 0 40
        0 0 0 0 0 0 0 2
        1 2 2 3 1 1 1 1
        0 0 0 0 0 0 0 3
        """,
        "N namua hands=3,4 nyumba=-",
    )


HOUSE_STOP = """
    0 0 0 0 0 0 0 38
    1 0 0 5 0 0 0 2
    1 0 0 1 6 0 0 0
    0 0 0 0 0 0 0 0
    """


def test_N5_a_nyumba_stop_takes_the_addition_and_a_lost_nyumba_stays_lost():
    state = at(N, HOUSE_STOP, "S namua hands=5,5 nyumba=SN")
    # The second capture's five seeds end in the functional nyumba (a4 empty): stop or use,
    # listed once per choice because the two positions differ.
    assert legal(N, state) == ["A1L", "A1L+", "A4L", "A4L+", "A4R"]
    assert N.describe(play(N, state, "A1L")) == text(
        """
        0 0 0 0 0 0 0 38
        0 0 0 0 0 0 0 2
        1 2 2 3 9 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=3,4 nyumba=S",
    )
    assert N.describe(play(N, state, "A1L+")) == text(  # use: A5's 7 seeds sown on, to B5
        """
        0 0 0 0 0 0 0 38
        0 0 0 0 0 0 0 2
        1 2 2 3 0 1 1 1
        0 0 0 0 3 1 1 1
        """,
        "N namua hands=3,4 nyumba=-",
    )
    stop, use = (N.parse(state, m) for m in ("A1L", "A1L+"))
    assert app.app_move(N, state, stop)["houseChoice"] == "stop"
    assert app.app_move(N, state, use)["houseChoice"] == "use"
    assert "houseChoice" not in app.app_move(N, state, N.parse(state, "A4R"))
    lost = at(
        N, HOUSE_STOP.replace("38", "44").replace("1 6 0", "1 0 0"), "S namua hands=5,5 nyumba=N"
    )
    assert N.describe(play(N, lost, "A1L")) == text(  # ends in the empty A5: 1 + 2, not owned
        """
        0 0 0 0 0 0 0 44
        0 0 0 0 0 0 0 2
        1 2 2 3 3 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=3,4 nyumba=-",
    )


def test_N5_never_in_mtaji():
    state = at(
        N,
        """
        0 0 0 0 0 0 0 56
        0 1 0 2 0 0 0 1
        3 0 0 1 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    # A4 captures a5, whose seeds end in A2, which captures a7; relays end in A5.
    assert legal(N, state) == ["A1R"]
    move = N.parse(state, "A1R")
    assert N.summary(state, move).captures == 2
    assert N.describe(N.play(state, move)) == text(
        """
        0 0 0 0 0 0 0 56
        0 0 0 0 0 0 0 1
        0 3 0 3 1 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


def test_N5_the_hook_leaves_other_moves_alone():
    summary = core.Summary(core.EMPTY, 3, 2, 1, False, 0, 1, core.CAPTURE, False)
    b, hands = [1] * 32, [0, 0]
    nk.nyakua(nk.NAKAKAMADO_A, b, hands, [False, False], 0, summary, None)
    assert b == [1] * 32 and hands == [0, 0]


# -- N7, N8, the front-row ban ----------------------------------------------------------------


def test_N7_an_empty_hand_in_a_set_up_namua_position_passes():
    state = at(
        N,
        """
        0 0 0 0 0 0 0 57
        0 0 0 0 0 0 0 2
        0 0 0 0 0 2 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=0,3 nyumba=-",
    )
    assert N.legal_moves(state) == (PASS,)
    after = N.play(state, PASS)
    assert N.describe(after) == N.describe(state).replace(" S ", " N ")
    assert app.app_result(N, state, PASS, after) == {
        "player": 0,
        "move": {"type": "pass"},
        "placed": 0,
        "captures": 0,
        "stolen": 0,
        "added": 0,
        "ownAdded": 0,
        "opponentAdded": 0,
        "endpoint": None,
    }


ENDLESS = """
    50 0 0 0 0 0 0 0
     0 0 0 0 0 0 1 0
     1 0 1 0 1 0 1 5
     0 1 0 1 0 1 0 1
    """


def test_N8_an_endless_move_stays_legal_and_is_cut_off_after_512_laps():
    state = at(N, ENDLESS, "S mtaji hands=0,0 nyumba=-")
    assert legal(K, at(K, ENDLESS, "S mtaji hands=0,0 nyumba=-")) == []  # K6: illegal
    assert legal(N, state) == ["A8L", "A8R"]  # both ways the relays cycle for ever
    move = N.parse(state, "A8L")
    summary = N.summary(state, move)
    assert (summary.status, summary.laps) == ("endless", 512)
    after = N.play(state, move)
    assert after.adjudication == "safety-stop" and after.hands == (0, 0) == after.pending
    assert sum(after.pits) == 64 and N.position(N.describe(after)) == after
    assert N.outcome(after) == Outcome(None, "relay-limit", adjudication="safety-stop")
    assert N.legal_moves(after) == ()
    assert N.steps(state, move)[-2:] == (
        Step("stop", pit=N.steps(state, move)[-2].pit, note="endless"),
        Step("end", note="relay-limit"),
    )
    assert app.app_board(N, state, after, 1)["winner"] == 1  # the mover's opponent
    assert app.app_board(N, state, after, 1)["reason"] == "relay-limit"


def test_N8_the_cut_comes_when_the_limit_th_lap_ends_in_an_occupied_pit():
    # The two-capture move makes 2 laps after its first: at a limit of 2 it completes (the
    # last lap ends in the empty A1), at 1 it is cut in A4 although a capture there would
    # win. K6 at the same limit lets the winning capture count.
    assert limited(2).describe(play(limited(2), two((5, 5), game=limited(2)), "A1L")) == text(
        TWO_AFTER.format(b1=48, A1=3), "N namua hands=3,4 nyumba=-"
    )
    one = limited(1)
    after = play(one, two((5, 5), a1=0, game=one), "A1L")
    assert one.describe(after) == text(
        """
        0 0 0 0 0 0 0 50
        0 0 0 1 0 0 0 0
        0 1 1 2 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=4,5 nyumba=- adjudication=safety-stop",
    )
    k6 = limited(1, KISWAHILI)
    assert k6.outcome(play(k6, two((5, 5), a1=0, game=k6), "A1L")) == Outcome(0, "front-empty")


def test_N8_a_nyumba_reached_by_the_limit_th_lap_is_cut_off_too():
    game = limited(2)
    state = at(game, HOUSE_STOP, "S namua hands=5,5 nyumba=SN")
    assert legal(game, state) == ["A1L", "A4L", "A4L+", "A4R"]  # no choice arises any more
    assert game.describe(play(game, state, "A1L")) == text(
        """
        0 0 0 0 0 0 0 38
        0 0 0 0 0 0 0 2
        1 2 2 3 7 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=4,5 nyumba=S adjudication=safety-stop",
    )


def test_the_front_row_ban_is_B18():
    # Rulebook chapters 4 and 8: a move that empties one's own front row is forbidden. The
    # only such start is the lone kichwa sown outward (the trial app's emptiesOwnFront).
    namua = at(
        N,
        """
        0 0 0 0 0 0 0 40
        0 2 2 6 0 0 0 0
        1 0 0 0 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=3,10 nyumba=N",
    )
    assert legal(N, namua) == ["A1R"]
    mtaji = at(
        N,
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 1
        0 0 0 0 0 0 0 3
        0 0 0 2 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(N, mtaji) == ["A8L"]
    with pytest.raises(IllegalMove):
        N.play(mtaji, Move("A8", "R"))


# -- random playouts with a record for every game ---------------------------------------------


class NakakamadoView(CheckerView):
    """The Bao checker view, with N5's hand accounting, and every game's moves kept."""

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.games: list[list[Move]] = []

    def start(self) -> State:
        self.games.append([])
        return self.game.start()

    def play(self, state: State, move: Move) -> State:
        after = self.game.play(state, move)
        check_nyakua(self.game, state, move, after, self.seen)
        self.games[-1].append(move)
        return after


def check_nyakua(game: Any, state: State, move: Move, after: State, seen: dict) -> None:
    p, q = state.to_move, 1 - state.to_move
    namua = any(state.hands)
    for side in (0, 1):
        assert state.nyumba[side] or not after.nyumba[side], "ownership never comes back"
    assert move.pit, "no pass from the normal start (N7)"
    assert namua or after.hands == (0, 0)
    for key, hit in (
        ("takasia", after.takasia is not None),
        ("safari", move.safari),
        ("tax", move.tax),
        ("pass", not move.pit),
        ("pending", any(after.pending)),
        ("mtaji", namua and not any(after.hands)),
    ):
        seen[key] = seen.get(key, 0) + hit
    if not namua:
        return
    summary = game.summary(state, move)
    fired = (
        summary.captures >= 2
        and state.hands[p] >= 2
        and state.hands[q] >= 2
        and summary.status in (core.EMPTY, core.NYUMBA_STOP)
    )
    taken = (state.hands[p] - after.hands[p], state.hands[q] - after.hands[q])
    assert taken == ((2, 1) if fired else (1, 0)), (game.describe(state), move)
    if fired:
        pit = (p << 4) + summary.endpoint
        place = Step("place", pit=NAMES[pit], seeds=1, note="nyakua")
        steps = [s for s in game.steps(state, move) if s.kind == "place" and s.note]
        assert steps == [
            msgspec.structs.replace(place, player=p),
            msgspec.structs.replace(place, player=q),
        ]
        seen["nyakua"] = seen.get("nyakua", 0) + 1
        seen["nyakua-back"] = seen.get("nyakua-back", 0) + (summary.endpoint >= 8)
        seen["nyakua-nyumba"] = seen.get("nyakua-nyumba", 0) + (summary.endpoint == 4)


def test_N5_N7_random_playouts_keep_every_invariant_and_every_game_records():
    view = NakakamadoView(N)
    endings = check_random_playouts(view, games=GAMES, seed=4, total_seeds=64, max_plies=3000)
    assert {r for _w, r, _a in endings} <= {"front-empty", "no-move", "relay-limit"}
    assert {w for w, _r, _a in endings} >= {0, 1}
    seen = view.seen
    assert seen["nyakua"] > 0 and seen["nyakua-back"] > 0 and seen["nyakua-nyumba"] > 0
    assert seen["safari"] > 0 and seen["tax"] > 0 and seen["mtaji"] > 0 and seen["pending"] > 0
    assert seen["takasia"] == 0 and seen["pass"] == 0
    for moves in view.games:
        # N7: namua lasts at most 44 moves from the normal start
        state = N.start()
        for n, move in enumerate(moves):
            if not any(state.hands):
                break
            assert n < 44
            state = N.play(state, move)
        trial = records.text(records.dump(N, moves))
        loaded = records.load(trial)
        assert loaded.moves == tuple(N.notation(m) for m in moves)
        assert records.text(records.redump(loaded)) == trial
        generic = records.dump(N, moves, format=records.FORMAT)
        assert records.load(generic) == msgspec.structs.replace(loaded, format=records.FORMAT)
