"""The ``nyumba-record`` format, version 1, for every profile (``RECORDS.md``): game, options,
players, mode, each move in notation with the side that made it and the position after it,
the final position, the outcome and the adjudication."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import BadNotation, BadOptions, Game, IllegalMove, Outcome
from engine.records import base
from engine.records.base import BadRecord, GameSheet, Record
from engine.registry import load as load_game
from engine.registry import profiles

FORMAT = "nyumba-record"
VERSION = 1
NATIVE: tuple[str, ...] = ()  # the default of every profile no other format claims


def write(game: Game, sheet: GameSheet) -> dict[str, Any]:
    """The record of a played game (``records.dump``)."""
    states = sheet.states
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.profile,
        "options": dict(sorted(game.options.items())),
        "players": list(sheet.players) if sheet.players else None,
        "mode": sheet.mode,
        "computer": sheet.computer,
        "moves": [
            {"move": game.notation(m), "side": game.to_move(s), "result": game.describe(a)}
            for s, m, a in zip(states, sheet.moves, states[1:])
        ],
        "final": game.describe(states[-1]),
        "outcome": msgspec.to_builtins(sheet.ending),
        "adjudication": base.adjudication(sheet.ending),
    }


class _Move(msgspec.Struct, forbid_unknown_fields=True):
    move: str
    side: int
    result: str


class _Generic(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    game: str
    options: dict[str, Any]
    moves: list[_Move]
    final: str
    outcome: dict[str, Any] | None
    adjudication: str
    players: list[str | None] | None = None
    mode: str = "local"
    computer: dict[str, Any] | None = None


def schema() -> dict[str, Any]:
    """What ``read`` checks before it replays, as JSON Schema (``base.shape``)."""
    return base.shape(
        _Generic,
        {
            "format": {"const": FORMAT},
            "version": {"const": VERSION},
            "game": {"enum": [p.name for p in profiles()]},
            "mode": {"enum": list(base.MODES)},
            "players": {
                "anyOf": [
                    {
                        "type": "array",
                        "items": {"type": ["string", "null"]},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    {"type": "null"},
                ]
            },
            "moves.side": {"enum": [0, 1]},
        },
    )


def read(data: dict[str, Any]) -> tuple[Record, list[Any]]:
    """A ``nyumba-record`` replayed and checked: the Record and every state."""
    doc = base.convert(data, _Generic)
    try:
        game = load_game(doc.game, **doc.options)
    except BadOptions as e:
        raise BadRecord(f"game: {e}") from None
    players = base.check_players(doc.players)
    base.check_mode(doc.mode)
    state = game.start()
    states = [state]
    moves = []
    for n, entry in enumerate(doc.moves, 1):
        side = base.to_move(game, state, n)
        if entry.side != side:
            raise BadRecord(
                f"ply {n}: side {entry.side}, but {base.SIDE[side]} ({side}) is to move"
            )
        try:
            move = game.parse(state, entry.move)
            after = game.play(state, move)
        except (BadNotation, IllegalMove) as e:
            raise BadRecord(f"ply {n} ({base.SIDE[side]}): {e}") from None
        if game.notation(move) != entry.move:
            raise BadRecord(
                f"ply {n} ({base.SIDE[side]}): {entry.move!r} is written {game.notation(move)!r}"
            )
        result = game.describe(after)
        if entry.result != result:
            raise BadRecord(
                f"ply {n} ({base.SIDE[side]}) {entry.move}: the result "
                f"{entry.result!r} differs from the replay's {result!r}"
            )
        moves.append(entry.move)
        states.append(after)
        state = after
    final = game.describe(state)
    if doc.final != final:
        raise BadRecord(
            f"final position (after ply {len(moves)}): {doc.final!r} differs "
            f"from the replay's {final!r}"
        )
    over = game.outcome(state)
    if over is not None:
        if not base.same(doc.outcome, msgspec.to_builtins(over)):
            theirs = base.j(msgspec.to_builtins(over))
            raise BadRecord(f"outcome {base.j(doc.outcome)} differs from the replay's {theirs}")
        ending: Outcome | None = over
    else:
        ending = base.adjudicated(doc.outcome, "outcome")
    if doc.adjudication != base.adjudication(ending):
        raise BadRecord(
            f"adjudication {base.j(doc.adjudication)} should be {base.j(base.adjudication(ending))}"
        )
    record = base.record_of(FORMAT, game, moves, players, doc.mode, doc.computer, ending)
    return record, states
