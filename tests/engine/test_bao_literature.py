"""The reference positions of ``docs/rules/bao.md`` (de Voogt 1994/1995, KIBA 2009).

Boards drawn North on top, rows as South sees them: b8..b1 / a8..a1 / A1..A8 / B1..B8.
"""

from __future__ import annotations

import engine
from engine import Step

K = engine.load("bao-kiswahili")


def text(drawing: str, tail: str) -> str:
    rows = [",".join(line.split("#")[0].split()) for line in drawing.strip().splitlines()]
    return "/".join(rows) + " " + tail


def at(drawing: str, tail: str):
    return K.position(text(drawing, tail))


def legal(state) -> list[str]:
    return [K.notation(m) for m in K.legal_moves(state)]


def test_V02_de_voogt_1994_opens_A7L_a5R():
    state = K.start()
    state = K.play(state, K.parse(state, "A7L"))
    assert K.describe(state) == text(
        """
        0 0 0 0 0 0 0 0
        0 2 2 6 0 0 0 0
        0 0 0 1 7 3 0 0
        0 0 0 0 0 0 0 0
        """,
        "N namua hands=21,22 nyumba=SN",
    )
    assert legal(state) == ["a5L", "a5R"]  # the nyumba must capture A4; a kichwa to choose
    move = K.parse(state, "a5R")
    assert K.steps(state, move) == (
        Step("place", pit="a5", seeds=1, player=1),
        Step("capture", pit="A4", seeds=1, to="a8", player=1),
        Step("sow", pit="a8", seeds=1, player=1),
        Step("stop", pit="a8", note="empty"),
    )
    state = K.play(state, move)
    assert K.describe(state) == text(
        """
        0 0 0 0 0 0 0 0
        1 2 2 7 0 0 0 0
        0 0 0 0 7 3 0 0
        0 0 0 0 0 0 0 0
        """,
        "S namua hands=21,21 nyumba=SN",
    )


def test_V01_sixteen_seeds_go_once_round_and_stop_in_the_emptied_pit():
    state = at(
        """
        0 0 0 0 0 0 0 46
        1 0 0 0 0 0 0 0
        1 0 0 16 0 0 0 0
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(state) == ["A4L", "A4R"]  # no capture: 16 > 15
    for move in ("A4L", "A4R"):
        assert K.describe(K.play(state, K.parse(state, move))) == text(
            """
            0 0 0 0 0 0 0 46
            1 0 0 0 0 0 0 0
            2 1 1 1 1 1 1 1
            1 1 1 1 1 1 1 1
            """,
            "N mtaji hands=0,0 nyumba=-",
        )


def test_V04_a_capture_at_a_kimbi_enters_at_its_kichwa():
    state = at(
        """
        0 0 0 0 0 0 0 58
        0 1 0 0 0 0 0 1
        0 1 0 2 0 0 0 1
        0 0 0 0 0 0 0 0
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
    assert legal(state) == ["A4L"]
    assert K.describe(K.play(state, K.parse(state, "A4L"))) == text(
        """
        0 0 0 0 0 0 0 58
        0 0 0 0 0 0 0 1
        1 2 1 0 0 0 0 1
        0 0 0 0 0 0 0 0
        """,
        "N mtaji hands=0,0 nyumba=-",
    )


E30 = """
     0 1 2 1 4 8 2 2
    10 0 0 10 2 1 0 1
     0 2 0 0 1 1 0 0
     0 0 2 2 0 2 6 4
    """


def test_E30_kiba_takasia_example():
    from engine.bao_core import takasia_target

    # North has no capture and South's only target would be a4: a4 is takasia'd (K5).
    unblocked = at(E30, "N mtaji hands=0,0 nyumba=-")
    assert takasia_target(list(unblocked.pits), [False, False], 0) == 3  # a4's ring index
    state = at(E30, "N mtaji hands=0,0 nyumba=- takasia=a4")
    assert legal(state) == ["a5L", "a5R", "a8L", "a8R"]  # not a4, though it holds 2
    laps = {}
    for move in K.legal_moves(state):
        steps = K.steps(state, move)
        laps[K.notation(move)] = sum(s.kind == "lift" for s in steps)
    assert laps == {"a8R": 1, "a5R": 2, "a8L": 5, "a5L": 10}
    a8l = K.parse(state, "a8L")
    assert K.steps(state, a8l)[-1] == Step("stop", pit="a4", note="takasia")
    assert K.describe(K.play(state, a8l)) == text(
        """
        0 3 4 3 6 1 4 4
        2 0 3 1 5 3 2 3
        0 2 0 0 1 1 0 0
        0 0 2 2 0 2 6 4
        """,
        "S mtaji hands=0,0 nyumba=-",
    )
