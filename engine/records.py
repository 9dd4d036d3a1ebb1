"""Game records: write them, and load them back by replaying every move.

Two formats, both JSON, described in ``engine/RECORDS.md``:

- ``nyumba-record`` version 1, for every profile: game, options, players, mode, each
  move in notation with the side that made it and the position after it, the final
  position, ``outcome`` and ``adjudication``;
- ``bao-nakakamado-nyakua-a-trial`` version 1, the Bao Nakakamado trial app's own file
  (``bao.md`` N9), which ``bao-nakakamado-a`` writes by default and which that app reads.

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

from engine import bao_nakakamado as nk
from engine.core import BadNotation, BadOptions, Game, IllegalMove, Outcome, Step
from engine.registry import load as load_game

FORMAT = "nyumba-record"
VERSION = 1
VERSIONS = {FORMAT: VERSION, nk.FORMAT: 1}
NATIVE = {"bao-nakakamado-a": nk.FORMAT}  # a profile's default format, if not FORMAT
MODES = ("local", "friend", "computer")
SIDE = ("South", "North")
# The app's words for how a game stands; nyumba adds the adjudications it makes itself.
BOARD_ENDINGS = ("normal", "ongoing", "safety-stop")


class BadRecord(ValueError):
    """A record that does not load: not JSON, an unknown format or version, a missing or
    mistyped field, or a move, result or final position the replay does not reproduce."""


class Record(msgspec.Struct, frozen=True):
    """A loaded (replayed and checked) record. ``moves`` are in the game's notation;
    ``outcome`` is the ending by the rules, or the adjudicated one (resignation,
    agreement) for a game the rules had not finished, or None; ``adjudication`` is
    ``normal``, ``ongoing``, or the outcome's adjudication (``safety-stop`` …)."""

    format: str
    game: str
    options: dict[str, Any]
    moves: tuple[str, ...]
    players: tuple[str | None, str | None] | None = None
    mode: str = "local"
    computer: dict[str, Any] | None = None
    outcome: Outcome | None = None
    adjudication: str = "ongoing"


class Ply(msgspec.Struct, frozen=True):
    """One move of a replayed game: ``number`` counts from 1; ``side`` made ``move``."""

    number: int
    side: int
    move: str
    before: Any
    steps: tuple[Step, ...]
    after: Any


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
    fmt = format or NATIVE.get(game.profile, FORMAT)
    if fmt not in (FORMAT, NATIVE.get(game.profile)):
        raise ValueError(f"{game.profile} has no record format {fmt!r}")
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {list(MODES)}")
    pair = _players(players)
    if isinstance(computer, str):
        computer = {"id": f"nyumba-{computer}", "learnedModel": False}
    states, played = _play(game, moves)
    over = game.outcome(states[-1])
    ending = _settle(over, outcome)
    if fmt == nk.FORMAT:
        return _dump_trial(game, states, played, pair, mode, computer, over, ending)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.profile,
        "options": dict(sorted(game.options.items())),
        "players": list(pair) if pair else None,
        "mode": mode,
        "computer": computer,
        "moves": [
            {"move": game.notation(m), "side": game.to_move(s), "result": game.describe(a)}
            for s, m, a in zip(states, played, states[1:])
        ],
        "final": game.describe(states[-1]),
        "outcome": msgspec.to_builtins(ending),
        "adjudication": _adjudication(ending),
    }


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


def _dump_trial(
    game: Game,
    states: list[Any],
    played: list[Any],
    players: tuple[Any, Any] | None,
    mode: str,
    computer: dict[str, Any] | None,
    over: Outcome | None,
    ending: Outcome | None,
) -> dict[str, Any]:
    bao: Any = game
    out = dict(nk.HEADER)
    out["mode"] = mode
    if computer is not None:
        out["computer"] = computer
    out["history"] = [nk.app_result(bao, s, m, a) for s, m, a in zip(states, played, states[1:])]
    before = states[-2] if len(states) > 1 else None
    out["final"] = nk.app_board(bao, before, states[-1], len(played))
    out.update(_trial_ending(over))
    extra: dict[str, Any] = {}
    if players:
        extra["players"] = list(players)
    if ending is not None and over is None:
        extra["outcome"] = msgspec.to_builtins(ending)
    if extra:
        out["nyumba"] = extra  # nyumba's own fields; the app ignores them
    return out


def _trial_ending(over: Outcome | None) -> dict[str, Any]:
    """N8, N9: the app's ``adjudication`` and ``outcome`` for the board's ending."""
    adjudication = _adjudication(over)
    winner = over.winner if over is not None else None
    return {
        "adjudication": adjudication,
        "outcome": {"winner": winner, "adjudication": adjudication},
    }


# -- reading -------------------------------------------------------------------------------


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


class _TrialPly(msgspec.Struct, forbid_unknown_fields=True):
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
    # The fixed fields (nk.HEADER) are checked by value before this is decoded.
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
    history: list[_TrialPly]
    final: dict[str, Any]
    adjudication: str
    outcome: dict[str, Any]
    computer: dict[str, Any] | None = None
    nyumba: _Extra | None = None


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
    if not isinstance(fmt, str) or fmt not in VERSIONS:
        known = " or ".join(repr(f) for f in VERSIONS)
        raise BadRecord(f"format {_j(fmt)} is not a record format nyumba reads ({known})")
    version = data.get("version")
    if type(version) is not int or version != VERSIONS[fmt]:
        raise BadRecord(
            f"{fmt} version {_j(version)} is not supported (nyumba reads version {VERSIONS[fmt]})"
        )
    if fmt == nk.FORMAT:
        return _read_trial(data)
    return _read_generic(data)


def _read_generic(data: dict[str, Any]) -> tuple[Record, list[Any]]:
    doc = _convert(data, _Generic)
    try:
        game = load_game(doc.game, **doc.options)
    except BadOptions as e:
        raise BadRecord(f"game: {e}") from None
    players = _check_players(doc.players)
    _check_mode(doc.mode)
    state = game.start()
    states = [state]
    moves = []
    for n, entry in enumerate(doc.moves, 1):
        side = _to_move(game, state, n)
        if entry.side != side:
            raise BadRecord(f"ply {n}: side {entry.side}, but {SIDE[side]} ({side}) is to move")
        try:
            move = game.parse(state, entry.move)
            after = game.play(state, move)
        except (BadNotation, IllegalMove) as e:
            raise BadRecord(f"ply {n} ({SIDE[side]}): {e}") from None
        if game.notation(move) != entry.move:
            raise BadRecord(
                f"ply {n} ({SIDE[side]}): {entry.move!r} is written {game.notation(move)!r}"
            )
        result = game.describe(after)
        if entry.result != result:
            raise BadRecord(
                f"ply {n} ({SIDE[side]}) {entry.move}: the result "
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
        if not nk.same(doc.outcome, msgspec.to_builtins(over)):
            raise BadRecord(
                f"outcome {_j(doc.outcome)} differs from the replay's "
                f"{_j(msgspec.to_builtins(over))}"
            )
        ending: Outcome | None = over
    else:
        ending = _adjudicated(doc.outcome, "outcome")
    if doc.adjudication != _adjudication(ending):
        raise BadRecord(
            f"adjudication {_j(doc.adjudication)} should be {_j(_adjudication(ending))}"
        )
    record = Record(
        FORMAT,
        game.profile,
        dict(game.options),
        tuple(moves),
        players,
        doc.mode,
        doc.computer,
        ending,
        _adjudication(ending),
    )
    return record, states


def _read_trial(data: dict[str, Any]) -> tuple[Record, list[Any]]:
    for key, value in nk.HEADER.items():
        if key not in data:
            raise BadRecord(f"missing field {key!r}")
        if not nk.same(data[key], value):
            raise BadRecord(f"{key} is {_j(data[key])}, the trial format has {_j(value)}")
    doc = _convert(data, _Trial)
    _check_mode(doc.mode)
    game: Any = load_game("bao-nakakamado-a")
    parted: list[str] = []  # where the trial app's replay would part from ours (N2)
    try:
        states, moves = _replay_trial(game, doc, parted)
    except BadRecord as e:
        if not parted:
            raise
        raise BadRecord(f"{e}; {parted[0]}") from None
    over = game.outcome(states[-1])
    for key, value in _trial_ending(over).items():
        if not nk.same(getattr(doc, key), value):
            raise BadRecord(f"{key} is {_j(getattr(doc, key))}, the replay gives {_j(value)}")
    extra = doc.nyumba or _Extra()
    players = _check_players(extra.players)
    ending = over
    if extra.outcome is not None:
        if over is not None:
            raise BadRecord(
                f"nyumba.outcome {_j(extra.outcome)}: the game ended by the rules "
                f"({_j(msgspec.to_builtins(over))})"
            )
        ending = _adjudicated(extra.outcome, "nyumba.outcome")
    record = Record(
        nk.FORMAT,
        game.profile,
        dict(game.options),
        tuple(moves),
        players,
        doc.mode,
        doc.computer,
        ending,
        _adjudication(ending),
    )
    return record, states


def _replay_trial(game: Any, doc: _Trial, parted: list[str]) -> tuple[list[Any], list[str]]:
    """Replay ``history`` checking each entry (N9), then ``final``."""
    state = game.start()
    states = [state]
    moves = []
    for n, entry in enumerate(doc.history, 1):
        side = _to_move(game, state, n)
        if entry.player != side:
            raise BadRecord(f"ply {n}: player {entry.player}, but {SIDE[side]} ({side}) is to move")
        try:
            move = nk.read_move(game, state, entry.move)
        except ValueError as e:  # IllegalMove included
            raise BadRecord(f"ply {n} ({SIDE[side]}): {e}") from None
        after = game.play(state, move)
        result = nk.app_result(game, state, move, after)
        for key in nk.SUMMARY_FIELDS:
            if not nk.same(getattr(entry, key), result[key]):
                raise BadRecord(
                    f"ply {n} ({SIDE[side]}) {game.notation(move)}: {key} is "
                    f"{_j(getattr(entry, key))}, the replay gives {_j(result[key])}"
                )
        if not parted and nk.parts_from_the_app(game, state, move, after):
            parted.append(
                f"at ply {n} {SIDE[side]}'s namua start lift ({game.notation(move)}) "
                f"emptied an owned nyumba, which then is no longer owned (bao.md N2), "
                f"while the trial app keeps it owned"
            )
        moves.append(game.notation(move))
        states.append(after)
        state = after
    before = states[-2] if len(states) > 1 else None
    final = nk.app_board(game, before, state, len(moves))
    if not nk.same(doc.final, final):
        raise BadRecord(f"final (after ply {len(moves)}): {nk.difference(doc.final, final)}")
    return states, moves


# -- replaying -----------------------------------------------------------------------------


def game_of(record: Record) -> Game:
    return load_game(record.game, **record.options)


def replay(record: Record | str | bytes | dict[str, Any]) -> tuple[Ply, ...]:
    """Every ply of a record (loaded first unless it is a Record): the position before,
    the side and move, the move's steps and the position after."""
    if not isinstance(record, Record):
        record = load(record)
    game = game_of(record)
    state = game.start()
    out = []
    for n, notation in enumerate(record.moves, 1):
        move = game.parse(state, notation)
        after = game.play(state, move)
        out.append(Ply(n, game.to_move(state), notation, state, game.steps(state, move), after))
        state = after
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


# -- inside --------------------------------------------------------------------------------


def _play(game: Game, moves: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    state = game.start()
    states, played = [state], []
    for n, item in enumerate(moves, 1):
        try:
            if game.outcome(state) is not None:
                raise IllegalMove(f"the game is over after ply {n - 1}")
            move = game.parse(state, item) if isinstance(item, str) else item
            state = game.play(state, move)
        except IllegalMove as e:
            raise IllegalMove(f"ply {n}: {e}") from None
        except BadNotation as e:
            raise BadNotation(f"ply {n}: {e}") from None
        states.append(state)
        played.append(move)
    return states, played


def _settle(over: Outcome | None, given: Outcome | None) -> Outcome | None:
    """The outcome to write: the rules' one, or an adjudication of an unfinished game."""
    if given is None or given == over:
        return over
    if over is not None:
        raise ValueError(f"outcome {given} given, but the rules ended the game: {over}")
    if given.adjudication is None or given.adjudication in BOARD_ENDINGS:
        raise ValueError(f"outcome {given} given for an unfinished game names no adjudication")
    return given


def _adjudication(outcome: Outcome | None) -> str:
    if outcome is None:
        return "ongoing"
    return outcome.adjudication or "normal"


def _adjudicated(value: dict[str, Any] | None, field: str) -> Outcome | None:
    """An adjudicated outcome of a game the rules did not finish (or None)."""
    if value is None:
        return None
    try:
        outcome = msgspec.convert(value, Outcome)
    except msgspec.ValidationError as e:
        raise BadRecord(f"{field} {_j(value)}: {e}") from None
    if (
        outcome.adjudication is None
        or outcome.adjudication in BOARD_ENDINGS
        or outcome.winner not in (None, 0, 1)
        or not nk.same(msgspec.to_builtins(outcome), value)
    ):
        raise BadRecord(
            f"{field} {_j(value)}: the rules did not end the game, so an outcome "
            f"must be an adjudication (resignation, agreement …)"
        )
    return outcome


def _to_move(game: Game, state: Any, n: int) -> int:
    over = game.outcome(state)
    if over is not None:
        raise BadRecord(
            f"ply {n}: the game was already over after ply {n - 1} "
            f"({_j(msgspec.to_builtins(over))})"
        )
    return game.to_move(state)


def _players(players: Any) -> tuple[str | None, str | None] | None:
    if players is None:
        return None
    pair = tuple(players)
    if len(pair) != 2 or not all(p is None or isinstance(p, str) for p in pair):
        raise ValueError(f"players {players!r} is not two names (or None)")
    return pair


def _check_players(players: list[str | None] | None) -> tuple[str | None, str | None] | None:
    try:
        return _players(players)
    except ValueError as e:
        raise BadRecord(str(e)) from None


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise BadRecord(f"mode {_j(mode)} is not one of {_j(list(MODES))}")


def _convert(data: dict[str, Any], kind: type[Any]) -> Any:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as e:
        raise BadRecord(f"not a valid {data.get('format')} record: {e}") from None


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
