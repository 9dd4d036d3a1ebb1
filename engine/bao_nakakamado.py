"""Bao Nakakamado, NYAKUA proposal A (``bao-nakakamado-a``): a profile of the Bao core.

Rules: ``shared/rules/bao.md`` N1–N9 on the core B1–B20. Source: seed
``000_d913db6ff940adcf`` (the trial rulebook ``nyakua-a-trial-001`` by nkkmd and
Bao Nakakamado contributors) and, where it is silent, the behaviour of its published
trial app. Pits and moves are Bao's (``engine.bao``)::

        b8 b7 b6 b5 b4 b3 b2 b1      North back      app: pits[1][1][7..0]
        a8 a7 a6 a5 a4 a3 a2 a1      North front     app: pits[1][0][7..0]
        A1 A2 A3 A4 A5 A6 A7 A8      South front     app: pits[0][0][0..7]
        B1 B2 B3 B4 B5 B6 B7 B8      South back      app: pits[0][1][0..7]

The profile is data on the core (``NAKAKAMADO_A``): K1's start without takasia (N1,
N2), the two-seed tax whatever the nyumba holds (N3), ownership ended by the mover's own
mtaji capture (N4), the safety stop (N8) and one hook, ``nyakua`` (N5). The ban on moves
that empty one's own front row (rulebook chapters 4 and 8) is the core's B18: the trial
app forbids exactly the lone kichwa sown outward, and no other move can empty the row
(a relay always passes another front pit before it could leave it).

Deliberate differences from the trial app, both from ``bao.md``: a nyumba emptied by a
namua start lift (a takasa from it, or a tax of its last two seeds) is no longer owned (N2,
B15; the app keeps it owned), and the safety stop cuts a move exactly after 512 laps past
its first (N8; the app also cuts a move whose 511th lap stops in a functional nyumba).

The rest of this module turns moves, move results and positions into the trial app's
record words (N9) and back; ``engine.records`` builds whole records from them.
"""

from __future__ import annotations

import json
from typing import Any

from engine import bao_core as core
from engine.bao import Bao
from engine.bao_board import INDEX, NAMES, PASS, Move, State
from engine.core import IllegalMove


def nyakua(
    rules: core.Rules,
    b: list[int],
    hands: list[int],
    owned: list[bool],
    p: int,
    summary: core.Summary,
    log: list[tuple[Any, ...]] | None,
) -> None:
    """N5, the end-pit addition: after a completed namua move with two or more capture
    events, while the mover holds a seed and the opponent two, one seed from each hand goes
    into the pit where the last lap ended. Nothing is judged again. The core calls this
    only after a completed move (never after a pass, a win mid-move or a safety stop)."""
    q = 1 - p
    if not summary.namua or summary.captures < 2 or hands[p] < 1 or hands[q] < 2:
        return
    if b[0:8] == core.EMPTY_ROW or b[16:24] == core.EMPTY_ROW:
        return  # the game ended (B14): no addition
    pit = (p << 4) + summary.endpoint
    for who in (p, q):
        hands[who] -= 1
        b[pit] += 1
        if log is not None:
            log.append(("place", pit, who, "nyakua"))


NAKAKAMADO_A = core.Rules(
    name="bao-nakakamado-a",
    front=(0, 0, 0, 0, 6, 2, 2, 0),  # N1 (K1)
    back=(0,) * 8,
    hand=22,
    nyumba=True,
    takasia=False,  # N1
    tax_min=1,  # N3
    mtaji_capture_ends="mover",  # N4
    endless="safety-stop",  # N8
    after_move=nyakua,  # N5
)


def make(profile: str, options: dict[str, Any]) -> Bao:
    return Bao(profile, options, NAKAKAMADO_A)


# -- the trial app's record words (N9) ---------------------------------------------------

FORMAT = "bao-nakakamado-nyakua-a-trial"
# The fixed fields of a record, with their values, in the order the app writes them.
HEADER: dict[str, Any] = {
    "format": FORMAT,
    "version": 1,
    "baseRules": "R-002",
    "baseRulesVersion": "0.8.0",
    "variantRule": "nyakua-end-pit-a-trial-001",
    "rulesVersion": "nyakua-a-trial-001",
    "publicAdopted": False,
    "boardRowsPerPlayer": 2,
    "sowingPath": "ring",
    "initialHand": 22,
    "totalKete": 64,
    "nyakuaProtectLast": True,
    "nyakuaFixedPitBulk": False,
    "nyakuaNextTurnThree": False,
    "nyakuaReservedProtected": False,
    "nyakuaEndPitAdd": True,
}
SUMMARY_FIELDS = ("placed", "captures", "stolen", "added", "ownAdded", "opponentAdded", "endpoint")
WORD = {"L": "left", "R": "right"}
LETTER = {"left": "L", "right": "R"}


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values (``false`` is not ``0``), whatever the key order."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _stage(state: State) -> str:
    return "namua" if state.hands[0] or state.hands[1] else "mtaji"


def _place(i: int) -> dict[str, int]:
    """Board index ``i`` (``NAMES``) as the app's ``{player, row, index}``."""
    r = i & 15
    return {"player": i >> 4, "row": 0 if r < 8 else 1, "index": r if r < 8 else 15 - r}


def app_move(game: Bao, state: State, move: Move) -> dict[str, Any]:
    """``move`` (legal in ``state``) as the app's move object, keys in the app's order: a
    namua capture names its entry kichwa as ``side`` and carries ``houseChoice`` exactly
    when it is listed once per choice (B15, issue 4); a tax carries ``houseTwo``."""
    if not move.pit:
        return {"type": "pass"}
    capture = game.summary(state, move).kind == core.CAPTURE  # IllegalMove if not legal
    where = _place(INDEX[move.pit])
    if _stage(state) == "mtaji":
        return {
            "row": where["row"],
            "index": where["index"],
            "direction": WORD[move.side],
            "type": "capture" if capture else "takata",
            "phase": "mtaji",
        }
    out: dict[str, Any] = {
        "type": "capture" if capture else "takata",
        "phase": "namua",
        "row": 0,
        "index": where["index"],
    }
    if capture:
        side = WORD[move.side]
        out["direction"] = "right" if side == "left" else "left"
        out["side"] = side
        if move.safari or Move(move.pit, move.side, True) in game.legal_moves(state):
            out["houseChoice"] = "use" if move.safari else "stop"
    else:
        out["direction"] = WORD[move.side]
        if move.tax:
            out["houseTwo"] = True
    return out


def read_move(game: Bao, state: State, obj: Any) -> Move:
    """The app's move object as a legal move of ``state``. Raises IllegalMove naming the
    move when it is not legal, ValueError when the object is not a move or not written
    the way the app writes that move."""
    if not isinstance(obj, dict):
        raise ValueError(f"move {json.dumps(obj)} is not an object")
    if obj.get("type") == "pass":
        move = PASS
    else:
        row, index = obj.get("row"), obj.get("index")
        if (
            type(row) is not int
            or type(index) is not int
            or row not in (0, 1)
            or not 0 <= index < 8
        ):
            raise ValueError(f"move {json.dumps(obj)} needs row 0-1 and index 0-7")
        pit = NAMES[(state.to_move << 4) + (index if row == 0 else 15 - index)]
        namua_capture = obj.get("type") == "capture" and obj.get("phase") == "namua"
        key = "side" if namua_capture else "direction"
        word = obj.get(key)
        letter = LETTER.get(word) if isinstance(word, str) else None
        if letter is None:
            raise ValueError(f"move {json.dumps(obj)} needs {key} left or right")
        if namua_capture:
            move = Move(pit, letter, obj.get("houseChoice") == "use")
        else:
            move = Move(pit, letter, tax=obj.get("houseTwo") is True)
    if move not in game.legal_moves(state):
        raise IllegalMove(
            f"{json.dumps(obj)} ({game.notation(move)}) is not legal in {game.describe(state)}"
        )
    expected = app_move(game, state, move)
    if not same(obj, expected):
        raise ValueError(
            f"move {json.dumps(obj)} is {game.notation(move)}, which the app "
            f"writes {json.dumps(expected)}"
        )
    return move


def app_result(game: Bao, before: State, move: Move, after: State) -> dict[str, Any]:
    """One ``history`` entry: the mover, the move and what it did (N6)."""
    p = before.to_move
    summary = game.summary(before, move)
    stolen = before.hands[1 - p] - after.hands[1 - p]  # only NYAKUA takes the opponent's seed
    return {
        "player": p,
        "move": app_move(game, before, move),
        "placed": summary.placed,
        "captures": summary.captures,
        "stolen": stolen,
        "added": 2 * stolen,
        "ownAdded": stolen,
        "opponentAdded": stolen,
        "endpoint": _place((p << 4) + summary.endpoint) if stolen else None,
    }


def app_board(game: Bao, before: State | None, after: State, plies: int) -> dict[str, Any]:
    """The app's board (``final``) after ``plies`` moves ending in ``after``; ``before`` is
    the position before the last one. The app stops its turn counter, player and stage
    where a move ended the game by an empty front row or a safety stop, and moves them on
    after every other move (a loss by no move included)."""
    outcome = game.outcome(after)
    frozen = outcome is not None and outcome.reason in ("front-empty", "relay-limit")
    shown = before if frozen and before is not None else after
    pits = [
        [
            [after.pits[(p << 4) + r] for r in range(8)],
            [after.pits[(p << 4) + 15 - i] for i in range(8)],
        ]
        for p in (0, 1)
    ]
    winner: int | None = None
    if outcome is not None:
        winner = after.to_move if outcome.reason == "relay-limit" else outcome.winner
    return {
        "pits": pits,
        "reserve": list(after.hands),
        "nyakuaReserve": [0, 0],
        "houseOwned": list(after.nyumba),
        "player": shown.to_move,
        "phase": _stage(shown),
        "winner": winner,
        "reason": outcome.reason if outcome is not None else "",
        "turn": plies if frozen else plies + 1,
        "pending": list(after.pending),
    }


def difference(given: dict[str, Any], board: dict[str, Any]) -> str:
    """The first field where a record's ``final`` differs from ``board``, in words; a pit
    by its name."""
    key = next(k for k in [*board, *given] if not same(given.get(k), board.get(k)))
    mine: Any = given.get(key)
    theirs: Any = board.get(key)
    whole = f"{key} is {json.dumps(mine)}, the replay gives {json.dumps(theirs)}"
    if key != "pits":
        return whole
    for p, row, i in ((p, row, i) for p in (0, 1) for row in (0, 1) for i in range(8)):
        try:
            seeds = mine[p][row][i]
        except (TypeError, IndexError, KeyError):
            return whole
        if not same(seeds, theirs[p][row][i]):
            pit = NAMES[(p << 4) + (i if row == 0 else 15 - i)]
            return (
                f"pits[{p}][{row}][{i}] ({pit}) is {json.dumps(seeds)}, the replay gives "
                f"{theirs[p][row][i]}"
            )
    return whole


def parts_from_the_app(game: Bao, before: State, move: Move, after: State) -> bool:
    """Whether ``move`` is where the trial app's replay parts from this one (N2): a namua
    takasa or tax whose start lift emptied the mover's owned nyumba, which the app keeps
    owned."""
    p = before.to_move
    house = (p << 4) + core.NYUMBA
    if INDEX.get(move.pit) != house or not before.nyumba[p] or after.nyumba[p]:
        return False
    if not (before.hands[0] or before.hands[1]) or game.summary(before, move).kind == core.CAPTURE:
        return False
    return not move.tax or before.pits[house] == 1  # a tax lifts two: did they empty it?
