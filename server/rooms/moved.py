"""The ``moved`` message: what one move changed, for connections that joined with
``states: "moves"`` (server/PROTOCOL.md, "Moves, lighter").

A ``state`` carries the whole room (about 1 KB for Kalah); a move changes a few pits,
whose turn it is and the legal moves. ``moved`` carries only those, in compact forms a
client expands without knowing any rule:

- a step is an array ``[kind, pit, seeds, to, player, note]`` with its trailing empty
  values (null, 0) left off: ``["sow", "c"]`` is ``Step(kind="sow", pit="c")``;
- a legal move is its notation when the pit clicked is the notation and no words tell
  it apart (``"c"``), else ``[move, pit, choice]``;
- ``board`` holds the board's changed entries only: a key whose value is an object
  (``pits``) lists the changed sub-entries, any other key (``stores``, ``hands``) its
  whole new value.

Declared here, beside the protocol (which lists it among the server's messages), so
that the pure conversions below import nothing but the engine's values.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import Choice, Outcome, Step
from server.rooms.clock import Clock

CompactStep = list[Any]  # [kind, pit, seeds, to, player, note], trailing empties dropped
CompactLegal = str | list[Any]  # "c", or [move, pit, choice]


class Moved(msgspec.Struct, frozen=True, tag_field="t", tag="moved", omit_defaults=True, gc=False):
    """One move, as it changed the room: the room's new ``version`` (the previous one + 1),
    the ``move``'s notation, its animation ``steps``, the ``board``'s changed entries,
    whose turn it is now (``to_move``, absent once the game is over) and their ``legal``
    moves. The side that moved is the previous state's ``to_move``, the plies are its
    plies + 1; nothing else of the state changes (a move withdraws an open offer: the
    server sends a full ``state`` instead when one was open). ``id``: the intent id, sent
    only to the connection whose move it was. ``outcome``, ``adjudication`` and
    ``archive`` once the move ended the game; ``clock`` when the room has clocks."""

    version: int
    move: str
    steps: list[CompactStep]
    board: dict[str, Any]
    to_move: int | None = None
    legal: list[CompactLegal] = []
    id: str | None = None
    outcome: Outcome | None = None
    adjudication: str | None = None
    archive: str | None = None
    clock: Clock | None = None  # the clocks as the new state shows them (clocked rooms)


decode_moved = msgspec.json.Decoder(Moved).decode


NO_PLAYER = -1  # a step's player in compact form when the step has none


def compact_step(step: Step, mover: int) -> CompactStep:
    out: CompactStep = list(msgspec.structs.astuple(step))
    player = out[4]
    out[4] = None if player == mover else NO_PLAYER if player is None else player
    while out[-1] is None or len(out) == 3 and out[2] == 0:
        out.pop()
    return out


def expand_step(row: CompactStep, mover: int) -> Step:
    full = list(row) + [None, 0, None, None, None][len(row) - 1 :]
    player = full[4]
    player = mover if player is None else None if player == NO_PLAYER else player
    return Step(full[0], full[1], full[2] or 0, full[3], player, full[5])


def compact_legal(choice: Choice) -> CompactLegal:
    if choice.pit == choice.move and not choice.choice:
        return choice.move
    return [choice.move, choice.pit, choice.choice]


def expand_legal(item: CompactLegal) -> Choice:
    if isinstance(item, str):
        return Choice(item, item, "")
    return Choice(item[0], item[1], item[2])


_GONE = object()


def board_changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """The entries of ``after`` that differ from ``before`` (see the module's docstring);
    None when a merge cannot say it (an entry came or went: the move is sent as a ``state``)."""
    if len(before) != len(after):
        return None
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key, _GONE)
        if old is _GONE:
            return None
        if value.__class__ is dict and old.__class__ is dict:
            if len(old) != len(value):
                return None
            inner = {k: v for k, v in value.items() if old.get(k, _GONE) != v}
            if inner:
                if any(k not in old for k in inner):
                    return None
                out[key] = inner
        elif old != value:
            out[key] = value
    return out


def board_after(before: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``before`` with ``changes`` applied (the inverse of ``board_changes``)."""
    out = dict(before)
    for key, value in changes.items():
        old = out.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            out[key] = {**old, **value}
        else:
            out[key] = value
    return out
