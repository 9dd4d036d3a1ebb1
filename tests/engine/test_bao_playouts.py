"""Random playouts on every Bao profile and option set (STYLE convention 6, rule B20).

The shared checker (``playout.py``) runs through a thin view that only translates Bao's board
and step words into the checker's: captured seeds left unsown by a win (``pending``, B13) are
shown as ``stores``, and a ``place`` step is a seed lifted from the hand and sown. Every other
Bao step kind is a marker that moves no seed. The Bao-specific checks (64 seeds in the state,
stages, nyumba ownership, takasia, endless moves) run alongside on the real states.
"""

from __future__ import annotations

import os
import random
from typing import Any

import msgspec
import pytest
from playout import check_random_playouts

import engine
from engine import Step, Transition
from engine.bao import Move, State

# Games per profile at its default options; the other option value gets a third as many.
# CI runs these; set BAO_PLAYOUTS for a longer soak (e.g. 20000).
GAMES = int(os.environ.get("BAO_PLAYOUTS", "1000"))
MARKERS = {"relay", "stop", "nyumba", "takasia", "tax", "pass", "stage"}


class CheckerView:
    """A Bao game as the shared checker sees it; every call reaches the real game."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.state_type = game.state_type
        self.seen: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def board(self, state: State) -> dict[str, Any]:
        board = self.game.board(state)
        check_bao_state(self.game, state, board)
        return {"pits": board["pits"], "hands": board["hands"], "stores": board["pending"]}

    def play(self, state: State, move: Move) -> State:
        after = self.game.play(state, move)
        check_bao_move(self.game, state, move, after, self.seen)
        return after

    def steps(self, state: State, move: Move) -> tuple[Step, ...]:
        return self.translate(self.game.steps(state, move))

    def apply(self, state: State, move: Move) -> Transition:
        transition = self.game.apply(state, move)
        return msgspec.structs.replace(transition, steps=self.translate(transition.steps))

    def translate(self, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        """Bao's step words as the checker's."""
        out: list[Step] = []
        for step in steps:
            if step.kind == "place":
                out.append(Step("lift", pit=f"hand{step.player}", seeds=1))
                out.append(Step("sow", pit=step.pit, seeds=1))
            elif step.kind == "stop" and step.note == "front-empty":
                out.append(Step("store", seeds=step.seeds, to=f"store{step.player}"))
            elif step.kind not in MARKERS:
                out.append(step)
        return tuple(out)


def check_bao_state(game: Any, state: State, board: dict[str, Any]) -> None:
    assert sum(state.pits) + sum(state.hands) + sum(state.pending) == 64
    assert board["stage"] == ("namua" if any(state.hands) else "mtaji")
    for p in (0, 1):
        if state.nyumba[p]:
            assert state.pits[16 * p + 4], "an owned nyumba is never empty (B15)"
    if state.takasia:
        assert board["stage"] == "mtaji" and game.takasia


def check_bao_move(game: Any, state: State, move: Move, after: State, seen: dict) -> None:
    for p in (0, 1):
        if after.nyumba[p]:
            assert state.nyumba[p], "ownership never comes back (B15)"
    if not any(state.hands):
        assert after.hands == (0, 0), "mtaji never goes back to namua"
    if any(state.hands) and move.pit:
        assert after.hands[state.to_move] == state.hands[state.to_move] - 1  # B16
    for key, hit in (
        ("takasia", after.takasia is not None),
        ("safari", move.safari),
        ("tax", move.tax),
        ("pass", not move.pit),
        ("pending", any(after.pending)),
        ("endless", bool(game._table(state).endless)),
        ("mtaji", any(state.hands) and not any(after.hands)),
    ):
        seen[key] = seen.get(key, 0) + hit


@pytest.mark.parametrize(
    "name, takasia, games",
    [
        ("bao-kiswahili", True, GAMES),
        ("bao-kiswahili", False, GAMES // 3),
        ("bao-kujifunza", False, GAMES),
        ("bao-kujifunza", True, GAMES // 3),
    ],
    ids=str,
)
def test_B20_random_playouts_keep_every_invariant(name, takasia, games):
    view = CheckerView(engine.load(name, takasia=takasia))
    endings = check_random_playouts(view, games=games, seed=3, total_seeds=64, max_plies=3000)
    assert {w for w, _r, _a in endings} == {0, 1}
    assert {r for _w, r, _a in endings} == {"front-empty", "no-move"}
    seen = view.seen
    assert seen["pending"] > 0  # B13 reached
    assert (seen["takasia"] > 0) == takasia
    if name == "bao-kiswahili":
        assert seen["safari"] > 0 and seen["tax"] > 0 and seen["mtaji"] > 0


def test_B20_move_generation_terminates_on_random_positions():
    """Positions no game reaches: seeds scattered anywhere, both stages."""
    game = engine.load("bao-kiswahili")
    rng = random.Random(8)
    for _ in range(2000):
        pits = [0] * 32
        hands = [0, 0] if rng.random() < 0.6 else [rng.randint(0, 10), rng.randint(1, 10)]
        scattered = rng.randint(8, 64 - sum(hands))
        for _ in range(scattered):
            pits[rng.randrange(32)] += 1
        pits[rng.choice((8, 24))] += 64 - sum(hands) - scattered  # a back pit keeps the rest
        if not any(pits[:8]) or not any(pits[16:24]):
            continue
        owned = (bool(pits[4]) and rng.random() < 0.5, bool(pits[20]) and rng.random() < 0.5)
        state = State(tuple(pits), (hands[0], hands[1]), rng.randrange(2), owned)
        assert game.position(game.describe(state)) == state
        moves = game.legal_moves(state)
        assert (game.outcome(state) is None) == bool(moves)
        for move in moves:
            after = game.play(state, move)
            assert sum(after.pits) + sum(after.hands) + sum(after.pending) == 64


@pytest.mark.parametrize("name, takasia", [("bao-kiswahili", True), ("bao-kujifunza", True)])
def test_fast_playouts_replay_through_the_public_api(name, takasia):
    game = engine.load(name, takasia=takasia)
    rng = random.Random(31)
    for _ in range(150):
        moves: list[Move] = []
        winner, plies = game.random_playout(rand=rng.random, record=moves)
        assert plies == len(moves)
        state = game.start()
        for move in moves:
            state = game.play(state, move)
        assert game.outcome(state).winner == winner


# -- A plain restatement of B1–B20, K2–K6 as a test oracle ---------------------------------
# Written straight from bao.md with pit names and dicts, without the engine's ring arithmetic,
# tables or shared code, so that a differential run catches slips a scenario might miss.

RING = {
    p: [f"{'Aa'[p]}{i}" for i in range(1, 9)] + [f"{'Bb'[p]}{i}" for i in range(8, 0, -1)]
    for p in (0, 1)
}
FRONT = {p: RING[p][:8] for p in (0, 1)}


def facing(pit: str) -> str:
    other = "a" if pit[0] == "A" else "A"
    return f"{other}{9 - int(pit[1])}"


def ref_moves(pos: dict, takasia_on: bool, nyumba_rules: bool) -> dict[str, Any]:
    """Every legal move's text mapped to the resulting position (a dict like ``pos``)."""
    p = pos["to_move"]
    pits, hands = pos["pits"], pos["hands"]
    if not any(pits[x] for x in FRONT[0]) or not any(pits[x] for x in FRONT[1]):
        return {}
    out: dict[str, Any] = {}

    def add(text: str, start: str, kind: str, letter: str, safari: bool = False) -> None:
        result = ref_play(pos, start, kind, letter, safari, takasia_on)
        if result is None:
            return  # endless (K6)
        after, choice = result
        if safari and not choice:
            return
        out[text + ("+" if safari else "")] = after
        if not safari and choice:
            add(text, start, kind, letter, True)

    house = FRONT[p][4]
    if hands[0] or hands[1]:  # namua
        if not hands[p]:
            return {"pass": ref_pass(pos)}
        captures = [x for x in FRONT[p] if pits[x] and pits[facing(x)]]
        for x in captures:
            n = int(x[1])
            for letter in ("L", "R"):
                if (n <= 2 and letter == "R") or (n >= 7 and letter == "L"):
                    continue
                add(x + letter, x, "namua-capture", letter)
        if captures:
            return out
        occupied = [x for x in FRONT[p] if pits[x]]
        if pos["owned"][p] and occupied == [house] and pits[house] >= 6:
            for letter in ("L", "R"):
                add(house + letter + "2", house, "tax", letter)
            return out
        if pos["owned"][p]:
            starts = [x for x in occupied if not (x == house and pits[x] >= 6)]
        else:
            starts = [x for x in occupied if pits[x] >= 2] or occupied
    else:  # mtaji
        blocked = pos["takasia"]
        captures = [
            (x, letter)
            for x in RING[p]
            if x != blocked
            for letter in ("L", "R")
            if ref_first_lap_captures(pos, p, x, letter)
        ]
        for x, letter in captures:
            add(x + letter, x, "mtaji", letter)
        if captures:
            return out
        starts = [x for x in FRONT[p] if pits[x] >= 2 and x != blocked]
        starts = starts or [x for x in RING[p][8:] if pits[x] >= 2]
    for x in starts:
        for letter in ("L", "R"):
            if not ref_kichwa_outward(pos, p, x, letter):
                add(x + letter, x, "takasa", letter)
    return out


def ref_kichwa_outward(pos: dict, p: int, start: str, letter: str) -> bool:
    """B18."""
    occupied = [x for x in FRONT[p] if pos["pits"][x]]
    if occupied != [start]:
        return False
    return (start[1] == "1" and letter == "L") or (start[1] == "8" and letter == "R")


def ref_first_lap_captures(pos: dict, p: int, start: str, letter: str) -> bool:
    """B17: 2–15 seeds whose lap ends in an occupied own front pit facing seeds."""
    n = pos["pits"][start]
    if not 2 <= n <= 15 or ref_kichwa_outward(pos, p, start, letter):
        return False
    step = 1 if letter == "R" else -1
    end = RING[p][(RING[p].index(start) + step * n) % 16]
    return end in FRONT[p] and pos["pits"][end] > 0 and pos["pits"][facing(end)] > 0


def ref_pass(pos: dict) -> dict:
    return {**pos, "to_move": 1 - pos["to_move"], "takasia": None}


def ref_play(pos, start, kind, letter, safari, takasia_on):
    """(position after, whether the stop/safari choice arose), or None if endless."""
    p = pos["to_move"]
    pits, hands, owned = dict(pos["pits"]), list(pos["hands"]), list(pos["owned"])
    namua = bool(hands[0] or hands[1])
    ring, house = RING[p], FRONT[p][4]
    choice = False
    pending = [0, 0]

    def sow(frm: int, step: int, n: int) -> int:
        here = frm
        for _ in range(n):
            here = (here + step) % 16
            pits[ring[here]] += 1
        return here

    def lift(pit: str, n: int | None = None) -> int:
        n = pits[pit] if n is None else n
        pits[pit] -= n
        if pit == house and not pits[pit]:
            owned[p] = False
        return n

    if namua:
        hands[p] -= 1
        pits[start] += 1
    laps = 0
    capturing = kind in ("namua-capture", "mtaji") and (
        kind == "namua-capture" or ref_first_lap_captures(pos, p, start, letter)
    )
    if kind == "namua-capture":
        step = 1 if letter == "L" else -1
        here = ring.index(start)
        laps = -1
        capture_now = True
    else:
        step = 1 if letter == "R" else -1
        n = lift(start, 2 if kind == "tax" else None)
        here = sow(ring.index(start), step, n)
        capture_now = False
    while True:
        pit = ring[here]
        if not capture_now:
            if pits[pit] == 1:
                break
            if capturing and pit in FRONT[p] and pits[facing(pit)]:
                capture_now = True
            elif (
                namua
                and pit == house
                and owned[p]
                and pits[pit] >= 6
                and not (capturing and safari)
            ):
                choice = choice or capturing
                break
            elif not namua and pit == pos["takasia"]:
                break
            else:
                choice = choice or (namua and pit == house and owned[p] and pits[pit] >= 6)
                if laps >= 512:
                    return None
                laps += 1
                here = sow(here, step, lift(pit))
                continue
        capture_now = False
        target = facing(pit)
        if laps >= 512 and sum(pits[x] for x in FRONT[1 - p]) != pits[target]:
            return None
        seeds = pits[target]
        pits[target] = 0
        if target == FRONT[1 - p][4]:
            owned[1 - p] = False
        if not namua:
            owned = [False, False]  # K4
        if not any(pits[x] for x in FRONT[1 - p]):
            pending[p] = seeds
            break
        n = int(pit[1])
        if n <= 2:
            step = 1
        elif n >= 7:
            step = -1
        kichwa = ring.index(FRONT[p][0] if step == 1 else FRONT[p][7])
        laps += 1
        here = sow(kichwa - step, step, seeds)
    after = {
        "pits": pits,
        "hands": hands,
        "owned": owned,
        "to_move": 1 - p,
        "takasia": None,
        "pending": pending,
    }
    if takasia_on and not namua and not capturing and not any(pending):
        after["takasia"] = ref_takasia(after, p)
    return after, choice


def ref_takasia(pos: dict, mover: int) -> str | None:
    """K5, from the mover's side of the position after their mtaji takasa."""
    opp = 1 - mover
    if any(ref_first_lap_captures(pos, opp, x, letter) for x in RING[opp] for letter in "LR"):
        return None
    if not any(pos["pits"][x] for x in FRONT[mover]):
        return None
    targets = set()
    for x in RING[mover]:
        for letter in "LR":
            if ref_first_lap_captures(pos, mover, x, letter):
                n = pos["pits"][x]
                step = 1 if letter == "R" else -1
                end = RING[mover][(RING[mover].index(x) + step * n) % 16]
                targets.add(facing(end))
    if len(targets) != 1:
        return None
    (t,) = targets
    front = [pos["pits"][x] for x in FRONT[opp]]
    if pos["pits"][t] == 1 or sum(v > 0 for v in front) == 1 or sum(v >= 2 for v in front) == 1:
        return None
    if t == FRONT[opp][4] and pos["owned"][opp]:
        return None
    return t


def as_ref(game, state: State) -> dict:
    board = game.board(state)
    return {
        "pits": board["pits"],
        "hands": board["hands"],
        "owned": board["nyumba"],
        "to_move": state.to_move,
        "takasia": state.takasia,
        "pending": board["pending"],
    }


@pytest.mark.parametrize(
    "name, takasia", [("bao-kiswahili", True), ("bao-kujifunza", False), ("bao-kujifunza", True)]
)
def test_engine_matches_the_reference_rules(name, takasia):
    game = engine.load(name, takasia=takasia)
    rng = random.Random(41)
    for _ in range(GAMES // 8):
        state = game.start()
        while True:
            expected = ref_moves(as_ref(game, state), takasia, name == "bao-kiswahili")
            moves = game.legal_moves(state)
            assert sorted(expected) == sorted(game.notation(m) for m in moves), game.describe(state)
            if not moves:
                break
            for move in moves:
                after = as_ref(game, game.play(state, move))
                assert after == expected[game.notation(move)], (
                    game.describe(state),
                    game.notation(move),
                )
            state = game.play(state, rng.choice(moves))
