"""Game records: write them, and load them back by replaying every move.

Two formats, both JSON, described in ``engine/RECORDS.md``; each is a module with the
same few names (``base.Format``), found by its format name in the registry ``FORMATS``:

- ``nyumba-record`` version 1 (``engine.records.nyumba``), for every profile: game,
  options, players, mode, each move in notation with the side that made it and the
  position after it, the final position, ``outcome`` and ``adjudication``;
- ``bao-nakakamado-nyakua-a-trial`` version 1 (``engine.records.nakakamado``), the Bao
  Nakakamado trial app's own file (``docs/rules/bao.md`` N9), which ``bao-nakakamado-a``
  writes by default and which that app reads.

>>> import engine
>>> from engine import records
>>> game = engine.load("kalah")
>>> data = records.dump(game, ["c", "f"], players=("Amina", "Baraka"), mode="friend")
>>> record = records.load(data)
>>> record.moves, record.adjudication
(('c', 'f'), 'ongoing')

``load`` accepts text, bytes or the decoded object; it replays the moves through the
engine and raises ``BadRecord`` (a ValueError) naming the first ply, or the field, that
does not match. ``replay`` gives each ply's position before, notation, steps and position
after; ``replay_view`` gives the same as the JSON a replaying client draws.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import msgspec

from engine.core import Game, Outcome
from engine.records import nakakamado, nyumba
from engine.records.base import (
    MODES,
    BadRecord,
    Format,
    GameSheet,
    PlayedMove,
    Record,
    j,
    play_all,
    players_of,
    settle,
)
from engine.registry import load as load_game

FORMAT = nyumba.FORMAT  # the format of every profile no other format claims
FORMATS: dict[str, Format] = {f.FORMAT: f for f in (nyumba, nakakamado)}
SIDE = ("South", "North")


def format_of(profile: str) -> str:
    """The format a profile writes unless told otherwise."""
    return next((f.FORMAT for f in FORMATS.values() if profile in f.NATIVE), FORMAT)


# -- writing -------------------------------------------------------------------------------


def dump(
    game: Game,
    moves: Iterable[Any],
    *,
    players: tuple[str | None, str | None] | list[str | None] | None = None,
    mode: str = "local",
    computer: str | dict[str, Any] | None = None,
    outcome: Outcome | None = None,
    format: str | None = None,
) -> dict[str, Any]:
    """The record of ``moves`` (moves or their notation) played from ``game.start()``.

    ``computer`` is the computer's level (written ``{"id": "nyumba-<level>", ...}``) or
    an object written as given. ``outcome`` is needed only for an adjudicated end of a
    game the rules have not finished (``engine.resigned(side)``, ``engine.agreed_draw()``);
    otherwise the rules' outcome is written. ``format`` defaults to the profile's own.
    Raises IllegalMove or BadNotation naming the ply, ValueError for bad arguments.
    """
    fmt = format or format_of(game.profile)
    if fmt not in (FORMAT, format_of(game.profile)):
        raise ValueError(f"{game.profile} has no record format {fmt!r}")
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {list(MODES)}")
    pair = players_of(players)
    if isinstance(computer, str):
        computer = {"id": f"nyumba-{computer}", "learnedModel": False}
    states, played = play_all(game, moves)
    over = game.outcome(states[-1])
    ending = settle(over, outcome)
    return FORMATS[fmt].write(game, GameSheet(states, played, pair, mode, computer, over, ending))


def dumps(game: Game, moves: Iterable[Any], **options: Any) -> str:
    """``dump`` as JSON text: two-space indent, keys in the format's order, no newline at
    the end (a trial-app record comes out byte for byte as that app saves it)."""
    return text(dump(game, moves, **options))


def text(data: dict[str, Any]) -> str:
    """A dumped record as JSON text (see ``dumps``)."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def redump(record: Record, format: str | None = None) -> dict[str, Any]:
    """A loaded record written again (in its own format unless ``format`` says)."""
    return dump(
        game_of(record),
        record.moves,
        players=record.players,
        mode=record.mode,
        computer=record.computer,
        outcome=record.outcome,
        format=format or record.format,
    )


# -- reading -------------------------------------------------------------------------------


def load(data: str | bytes | dict[str, Any]) -> Record:
    """The record in ``data`` (JSON text, bytes, or the decoded object), replayed and
    checked. Raises BadRecord naming the first bad ply or field."""
    return _read(data)[0]


def _read(data: str | bytes | dict[str, Any]) -> tuple[Record, list[Any]]:
    if isinstance(data, (str, bytes, bytearray)):
        try:
            data = msgspec.json.decode(data)
        except msgspec.DecodeError as e:
            raise BadRecord(f"not JSON: {e}") from None
    if not isinstance(data, dict):
        raise BadRecord("a record is a JSON object")
    fmt = data.get("format")
    if not isinstance(fmt, str) or fmt not in FORMATS:
        known = " or ".join(repr(f) for f in FORMATS)
        raise BadRecord(f"format {j(fmt)} is not a record format nyumba reads ({known})")
    version = data.get("version")
    reader = FORMATS[fmt]
    if type(version) is not int or version != reader.VERSION:
        raise BadRecord(
            f"{fmt} version {j(version)} is not supported (nyumba reads version {reader.VERSION})"
        )
    return reader.read(data)


def schema() -> dict[str, Any]:
    """What ``load`` checks before it replays, as one JSON Schema: either format's fields,
    their types and the values read as fixed (``format``, ``version`` …). A record that
    matches may still not load: its moves, results and final position are checked by
    replaying them, which no schema says."""
    return {"oneOf": [f.schema() for f in FORMATS.values()]}


# -- replaying -----------------------------------------------------------------------------


def game_of(record: Record) -> Game:
    return load_game(record.game, **record.options)


def replay(record: Record | str | bytes | dict[str, Any]) -> tuple[PlayedMove, ...]:
    """Every ply of a record (loaded first unless it is a Record): the position before,
    the side and move, the move's steps and the position after."""
    if not isinstance(record, Record):
        record = load(record)
    game = game_of(record)
    state = game.start()
    out = []
    for n, notation in enumerate(record.moves, 1):
        t = game.apply(state, game.parse(state, notation))
        out.append(PlayedMove(n, game.to_move(state), notation, state, t.steps, t.after))
        state = t.after
    return tuple(out)


def replay_view(data: Record | str | bytes | dict[str, Any]) -> dict[str, Any]:
    """A record as a replaying client draws it: ``{game, options, states, outcome,
    adjudication}``, ``states[0]`` the start and ``states[i]`` the position after ply
    ``i``, each ``{position, board, to_move (None once over), last: None | {move, side,
    steps}}``. Raises BadRecord."""
    record = data if isinstance(data, Record) else load(data)
    game = game_of(record)

    def entry(state: Any, last: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "position": game.describe(state),
            "board": game.board(state),
            "to_move": None if game.outcome(state) else game.to_move(state),
            "last": last,
        }

    plies = replay(record)
    states = [entry(game.start(), None)]
    for ply in plies:
        last = {"move": ply.move, "side": ply.side, "steps": msgspec.to_builtins(ply.steps)}
        states.append(entry(ply.after, last))
    outcome = msgspec.to_builtins(record.outcome)
    return {
        "game": record.game,
        "options": dict(record.options),
        "states": states,
        "outcome": outcome,
        "adjudication": record.outcome.adjudication if record.outcome else None,
    }


def summary_line(record: Record) -> str:
    """``bao-nakakamado-a, 57 plies, South wins (front-empty)``."""
    n = len(record.moves)
    o = record.outcome
    if o is None:
        how = "not finished"
    elif o.winner is None:
        how = (
            f"no winner ({o.adjudication}, {o.reason})"
            if o.adjudication == "safety-stop"
            else f"drawn ({o.reason})"
        )
    else:
        how = f"{SIDE[o.winner]} wins ({o.reason})"
    return f"{record.game}, {n} {'ply' if n == 1 else 'plies'}, {how}"


__all__ = [
    "FORMAT",
    "FORMATS",
    "MODES",
    "BadRecord",
    "PlayedMove",
    "Record",
    "dump",
    "dumps",
    "format_of",
    "game_of",
    "load",
    "redump",
    "replay",
    "replay_view",
    "summary_line",
    "text",
]
