"""The Bao Nakakamado trial app's own file, ``bao-nakakamado-nyakua-a-trial`` version 1
(``docs/rules/bao.md`` N9): what ``bao-nakakamado-a`` writes by default and the app reads.

The app's words for moves, move results and boards, and back; then the format itself. The
app's board indices (``pits[player][row][index]``) against nyumba's pit names::

        b8 b7 b6 b5 b4 b3 b2 b1      North back      app: pits[1][1][7..0]
        a8 a7 a6 a5 a4 a3 a2 a1      North front     app: pits[1][0][7..0]
        A1 A2 A3 A4 A5 A6 A7 A8      South front     app: pits[0][0][0..7]
        B1 B2 B3 B4 B5 B6 B7 B8      South back      app: pits[0][1][0..7]
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from engine import bao_core as core
from engine.bao_board import INDEX, NAMES, PASS, Move, State
from engine.core import Game, IllegalMove, Outcome
from engine.records.base import (
    MODES,
    SIDE,
    BadRecord,
    GameSheet,
    Record,
    adjudicated,
    adjudication,
    check_mode,
    check_players,
    convert,
    j,
    record_of,
    same,
    shape,
    to_move,
)
from engine.registry import load as load_game

VERSION = 1
NATIVE = ("bao-nakakamado-a",)
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


def _stage(state: State) -> str:
    return "namua" if state.hands[0] or state.hands[1] else "mtaji"


def _place(i: int) -> dict[str, int]:
    """Board index ``i`` (``NAMES``) as the app's ``{player, row, index}``."""
    r = i & 15
    return {"player": i >> 4, "row": 0 if r < 8 else 1, "index": r if r < 8 else 15 - r}


def app_move(game: Any, state: State, move: Move) -> dict[str, Any]:
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


def read_move(game: Any, state: State, obj: Any) -> Move:
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


def app_result(game: Any, before: State, move: Move, after: State) -> dict[str, Any]:
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


def app_board(game: Any, before: State | None, after: State, plies: int) -> dict[str, Any]:
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


def parts_from_the_app(game: Any, before: State, move: Move, after: State) -> bool:
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


def write(game: Game, sheet: GameSheet) -> dict[str, Any]:
    """The trial app's file of a played game (``records.dump``)."""
    states, moves = sheet.states, sheet.moves
    out = dict(HEADER)
    out["mode"] = sheet.mode
    if sheet.computer is not None:
        out["computer"] = sheet.computer
    out["history"] = [app_result(game, s, m, a) for s, m, a in zip(states, moves, states[1:])]
    before = states[-2] if len(states) > 1 else None
    out["final"] = app_board(game, before, states[-1], len(moves))
    out.update(_ending(sheet.over))
    extra: dict[str, Any] = {}
    if sheet.players:
        extra["players"] = list(sheet.players)
    if sheet.ending is not None and sheet.over is None:
        extra["outcome"] = msgspec.to_builtins(sheet.ending)
    if extra:
        out["nyumba"] = extra  # nyumba's own fields; the app ignores them
    return out


def _ending(over: Outcome | None) -> dict[str, Any]:
    """N8, N9: the app's ``adjudication`` and ``outcome`` for the board's ending."""
    how = adjudication(over)
    winner = over.winner if over is not None else None
    return {"adjudication": how, "outcome": {"winner": winner, "adjudication": how}}


class _HistoryEntry(msgspec.Struct, forbid_unknown_fields=True):
    player: int
    move: Any
    placed: Any
    captures: Any
    stolen: Any
    added: Any
    ownAdded: Any  # the app's field names
    opponentAdded: Any
    endpoint: Any


class _Extra(msgspec.Struct, forbid_unknown_fields=True):
    players: list[str | None] | None = None
    outcome: dict[str, Any] | None = None


class _Trial(msgspec.Struct, forbid_unknown_fields=True):
    # The fixed fields (HEADER) are checked by value before this is decoded.
    format: Any
    version: Any
    baseRules: Any
    baseRulesVersion: Any
    variantRule: Any
    rulesVersion: Any
    publicAdopted: Any
    boardRowsPerPlayer: Any
    sowingPath: Any
    initialHand: Any
    totalKete: Any
    nyakuaProtectLast: Any
    nyakuaFixedPitBulk: Any
    nyakuaNextTurnThree: Any
    nyakuaReservedProtected: Any
    nyakuaEndPitAdd: Any
    mode: str
    history: list[_HistoryEntry]
    final: dict[str, Any]
    adjudication: str
    outcome: dict[str, Any]
    computer: dict[str, Any] | None = None
    nyumba: _Extra | None = None


def schema() -> dict[str, Any]:
    """What ``read`` checks before it replays, as JSON Schema (``base.shape``): the
    header's fixed values, then the fields' types."""
    fixed = {key: {"const": value} for key, value in HEADER.items()}
    return shape(_Trial, {**fixed, "mode": {"enum": list(MODES)}})


def read(data: dict[str, Any]) -> tuple[Record, list[Any]]:
    """A trial-app file replayed and checked (N9): the Record and every state."""
    for key, value in HEADER.items():
        if key not in data:
            raise BadRecord(f"missing field {key!r}")
        if not same(data[key], value):
            raise BadRecord(f"{key} is {j(data[key])}, the trial format has {j(value)}")
    doc = convert(data, _Trial)
    check_mode(doc.mode)
    game: Any = load_game("bao-nakakamado-a")
    parted: list[str] = []  # where the trial app's replay would part from ours (N2)
    try:
        states, moves = _replay(game, doc, parted)
    except BadRecord as e:
        if not parted:
            raise
        raise BadRecord(f"{e}; {parted[0]}") from None
    over = game.outcome(states[-1])
    for key, value in _ending(over).items():
        if not same(getattr(doc, key), value):
            raise BadRecord(f"{key} is {j(getattr(doc, key))}, the replay gives {j(value)}")
    extra = doc.nyumba or _Extra()
    players = check_players(extra.players)
    ending = over
    if extra.outcome is not None:
        if over is not None:
            raise BadRecord(
                f"nyumba.outcome {j(extra.outcome)}: the game ended by the rules "
                f"({j(msgspec.to_builtins(over))})"
            )
        ending = adjudicated(extra.outcome, "nyumba.outcome")
    record = record_of(FORMAT, game, moves, players, doc.mode, doc.computer, ending)
    return record, states


def _replay(game: Any, doc: _Trial, parted: list[str]) -> tuple[list[Any], list[str]]:
    """Replay ``history`` checking each entry (N9), then ``final``."""
    state = game.start()
    states = [state]
    moves = []
    for n, entry in enumerate(doc.history, 1):
        side = to_move(game, state, n)
        if entry.player != side:
            raise BadRecord(f"ply {n}: player {entry.player}, but {SIDE[side]} ({side}) is to move")
        try:
            move = read_move(game, state, entry.move)
        except ValueError as e:  # IllegalMove included
            raise BadRecord(f"ply {n} ({SIDE[side]}): {e}") from None
        after = game.play(state, move)
        result = app_result(game, state, move, after)
        for key in SUMMARY_FIELDS:
            if not same(getattr(entry, key), result[key]):
                raise BadRecord(
                    f"ply {n} ({SIDE[side]}) {game.notation(move)}: {key} is "
                    f"{j(getattr(entry, key))}, the replay gives {j(result[key])}"
                )
        if not parted and parts_from_the_app(game, state, move, after):
            parted.append(
                f"at ply {n} {SIDE[side]}'s namua start lift ({game.notation(move)}) "
                f"emptied an owned nyumba, which then is no longer owned (bao.md N2), "
                f"while the trial app keeps it owned"
            )
        moves.append(game.notation(move))
        states.append(after)
        state = after
    before = states[-2] if len(states) > 1 else None
    final = app_board(game, before, state, len(moves))
    if not same(doc.final, final):
        raise BadRecord(f"final (after ply {len(moves)}): {difference(doc.final, final)}")
    return states, moves
