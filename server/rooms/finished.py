"""A finished game as the archive keeps it: what its row holds, decided from the room alone.

When a change of a room sets its outcome (a last move, a resignation, an agreed draw, any
ending), the judging (``server/rooms/judge.py``) appends a ``Finished`` to the room's
``waiting`` list: the game waits *in the room*, in the store, until the archive has it
(``server/live/archiving.py`` writes it and then removes it with an ``Archived`` intent). So a
database outage delays the write and loses nothing, and any node may write it: the row is
keyed by (room, game number), written once.

A game the rules ended may still be undone in a computer or local room; when it ends again,
its new ``Finished`` replaces the waiting one, and the archive replaces the row of an earlier
ending (``version`` orders them). Friend and lobby games cannot be reopened once over.

The record is not made here (it replays every move): ``record_of`` makes it where it is
written, from these values, and without names — names live with the players, so deleting a
player leaves their games "anonymous" (``with_names`` puts them back when a record is read).
"""

from __future__ import annotations

import secrets
from typing import Any

import msgspec

import engine
from server.rooms.fairplay import rated
from server.rooms.room import Change, Context, Finished, Position, Room, changed

GAME_ID_BYTES = 9  # 72 random bits, 12 characters: a permanent game's id in /g/{id}


class Archived(msgspec.Struct, frozen=True):
    """The archive has game ``game_no`` of ``room`` as it ended at ``version`` (or later): it
    no longer waits in the room (not a wire message; ``server/live/archiving.py``)."""

    room: str
    game_no: int
    version: int


def new_game_id() -> str:
    return secrets.token_urlsafe(GAME_ID_BYTES)


def finished(room: Room, now_ms: int) -> Finished:
    """The finished game of ``room`` (whose outcome is set), as it stands."""
    assert room.outcome is not None
    clock = getattr(room, "clock", None)  # rooms with clocks carry one (lobby games)
    return Finished(
        id=room.archive_id or new_game_id(),
        room=room.id,
        game_no=room.game_no,
        version=room.version,
        game=room.game,
        options=dict(room.options),
        mode=room.mode,
        rated=rated(room),
        players=[s.player for s in room.seats],
        names=[s.name for s in room.seats],
        holders=[s.holder for s in room.seats],
        levels=[s.level if s.holder == "computer" else None for s in room.seats],
        moves=[p.move for p in room.history],
        outcome=room.outcome,
        started_ms=room.started_ms or room.created_ms,
        ended_ms=now_ms,
        clock=msgspec.to_builtins(clock) if clock is not None else None,
        arena=room.arena,
        berserk=list(room.berserk),
    )


def with_finished(room: Room, entry: Finished) -> list[Finished]:
    """The room's waiting games with ``entry`` (replacing an earlier end of the same game)."""
    return [w for w in room.waiting if w.game_no != entry.game_no] + [entry]


def ended(room: Room, now_ms: int) -> Room:
    """``room``, whose change just set its outcome, with the game waiting for the archive
    (an aborted game has no result: nothing is kept)."""
    if room.outcome is not None and room.outcome.adjudication == "aborted":
        return room
    entry = finished(room, now_ms)
    return msgspec.structs.replace(room, archive_id=entry.id, waiting=with_finished(room, entry))


def archived(room: Room, pos: Position, intent: Archived, ctx: Context) -> Change:
    """The archive has the game: it no longer waits in the room (nobody else needs to hear)."""
    waiting = [
        w for w in room.waiting if not (w.game_no == intent.game_no and w.version <= intent.version)
    ]
    if len(waiting) == len(room.waiting):
        return Change(room)
    return Change(changed(room, waiting=waiting), seen=False)


def south_score(outcome: engine.Outcome) -> float:
    """South's score in a finished game: 1 a win, 0.5 a draw, 0 a loss."""
    if outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner == 0 else 0.0


def record_of(entry: Finished) -> dict[str, Any]:
    """The game's record (engine/RECORDS.md) without names; replays every move."""
    from engine import records

    game = engine.load(entry.game, **entry.options)
    outcome = entry.outcome if entry.outcome.adjudication is not None else None
    computer = next((lv for lv in entry.levels if lv is not None), None)
    return records.dump(
        game,
        entry.moves,
        players=None,
        mode=entry.mode if entry.mode in ("friend", "computer", "local") else "friend",
        computer=computer if entry.mode == "computer" else None,
        outcome=outcome,
    )


def with_names(record: dict[str, Any], names: list[str | None]) -> dict[str, Any]:
    """``record`` with the players' names, where its format keeps them: ``players`` in
    nyumba's format, ``nyumba.players`` in the Bao Nakakamado trial app's."""
    out = dict(record)
    named = list(names) if any(names) else None
    if out.get("format") == "nyumba-record":
        out["players"] = named
    elif named is not None:
        out["nyumba"] = {**out.get("nyumba", {}), "players": named}
    return out


def record_text(data: bytes) -> str:
    """The record of a msgpack-encoded ``Finished``, as text (a job for the replay pool)."""
    from engine import records

    return records.text(record_of(msgspec.msgpack.decode(data, type=Finished)))
