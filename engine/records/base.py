"""What every record format shares: ``Record``, ``PlayedMove``, ``BadRecord``, the ``Format``
interface a format implements, and the checks of players, mode, outcome and adjudication."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

import msgspec

from engine.core import BadNotation, Game, IllegalMove, Outcome, Step

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


class PlayedMove(msgspec.Struct, frozen=True):
    """One move of a replayed game: ``number`` counts from 1; ``side`` made ``move``."""

    number: int
    side: int
    move: str
    before: Any
    steps: tuple[Step, ...]
    after: Any


class Format(Protocol):
    """A record format: its name and version, the profiles it is the default for, and how
    it writes a played game and reads one back."""

    FORMAT: str
    VERSION: int
    NATIVE: tuple[str, ...]  # profiles that write this format unless told otherwise

    def write(self, game: Game, sheet: GameSheet) -> dict[str, Any]: ...
    def read(self, data: dict[str, Any]) -> tuple[Record, list[Any]]: ...
    def schema(self) -> dict[str, Any]: ...


class GameSheet(msgspec.Struct, frozen=True):
    """A game as ``dump`` hands it to a format to write (a score sheet): every state from the start, the moves,
    the players, mode and computer, the rules' outcome (``over``) and the one written
    (``ending``: the rules' own, or an adjudication of an unfinished game)."""

    states: list[Any]
    moves: list[Any]
    players: tuple[str | None, str | None] | None
    mode: str
    computer: dict[str, Any] | None
    over: Outcome | None
    ending: Outcome | None


def record_of(
    fmt: str,
    game: Game,
    moves: Iterable[str],
    players: tuple[str | None, str | None] | None,
    mode: str,
    computer: dict[str, Any] | None,
    ending: Outcome | None,
) -> Record:
    """The loaded ``Record`` of a replayed game."""
    return Record(
        fmt,
        game.profile,
        dict(game.options),
        tuple(moves),
        players,
        mode,
        computer,
        ending,
        adjudication(ending),
    )


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values (``false`` is not ``0``), whatever the key order."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def play_all(game: Game, moves: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    """Every state from ``game.start()`` through ``moves`` (moves or their notation), and
    the moves; IllegalMove or BadNotation naming the ply."""
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


def settle(over: Outcome | None, given: Outcome | None) -> Outcome | None:
    """The outcome to write: the rules' one, or an adjudication of an unfinished game."""
    if given is None or given == over:
        return over
    if over is not None:
        raise ValueError(f"outcome {given} given, but the rules ended the game: {over}")
    if given.adjudication is None or given.adjudication in BOARD_ENDINGS:
        raise ValueError(f"outcome {given} given for an unfinished game names no adjudication")
    return given


def adjudication(outcome: Outcome | None) -> str:
    if outcome is None:
        return "ongoing"
    return outcome.adjudication or "normal"


def adjudicated(value: dict[str, Any] | None, field: str) -> Outcome | None:
    """An adjudicated outcome of a game the rules did not finish (or None)."""
    if value is None:
        return None
    try:
        outcome = msgspec.convert(value, Outcome)
    except msgspec.ValidationError as e:
        raise BadRecord(f"{field} {j(value)}: {e}") from None
    if (
        outcome.adjudication is None
        or outcome.adjudication in BOARD_ENDINGS
        or outcome.winner not in (None, 0, 1)
        or not same(msgspec.to_builtins(outcome), value)
    ):
        raise BadRecord(
            f"{field} {j(value)}: the rules did not end the game, so an outcome "
            f"must be an adjudication (resignation, agreement …)"
        )
    return outcome


def to_move(game: Game, state: Any, n: int) -> int:
    over = game.outcome(state)
    if over is not None:
        raise BadRecord(
            f"ply {n}: the game was already over after ply {n - 1} ({j(msgspec.to_builtins(over))})"
        )
    return game.to_move(state)


def players_of(players: Any) -> tuple[str | None, str | None] | None:
    if players is None:
        return None
    pair = tuple(players)
    if len(pair) != 2 or not all(p is None or isinstance(p, str) for p in pair):
        raise ValueError(f"players {players!r} is not two names (or None)")
    return pair


def check_players(players: list[str | None] | None) -> tuple[str | None, str | None] | None:
    try:
        return players_of(players)
    except ValueError as e:
        raise BadRecord(str(e)) from None


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise BadRecord(f"mode {j(mode)} is not one of {j(list(MODES))}")


def convert(data: dict[str, Any], kind: type[Any]) -> Any:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as e:
        raise BadRecord(f"not a valid {data.get('format')} record: {e}") from None


def shape(kind: type[Any], fixed: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The JSON Schema of what ``convert(data, kind)`` accepts, with no ``$ref`` (each
    nested Struct written in place), and the fields a reader checks by value narrowed by
    ``fixed`` (``{"version": {"const": 1}}``; a dotted name reaches into an array's items:
    ``"moves.side"``). A record that matches may still not replay: BadRecord names the ply."""
    generated = msgspec.json.schema(kind)
    defs = generated.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].rsplit("/", 1)[1]])
            return {k: inline(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    out: dict[str, Any] = inline(generated)
    for name, narrowed in fixed.items():
        where = out
        *outer, last = name.split(".")
        for part in outer:
            where = where["properties"][part]["items"]
        where["properties"][last] = {**where["properties"].get(last, {}), **narrowed}
    return out


def j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
