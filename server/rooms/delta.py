"""A move as what it changed: the ``moved`` message drawn from the room before and after
it, and the full ``state`` drawn back from the one before and that message.

The node that judged a move sends ``moved`` (``server/rooms/moved.py``) to the
connections that joined with ``states: "moves"``; a connection that wants whole states
gets the previous ``state`` with the move applied (``derive``): the engine is asked
once per move, by the judging, whichever messages the room's connections take.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from server.rooms import moved as M
from server.rooms import protocol as P
from server.rooms.notice import Notice, NoticeKind, encode_notice
from server.rooms.room import Position, Room, computer_to_move
from server.rooms.timing import state_clock

_state_dec = msgspec.json.Decoder(P.State)


def is_move(before: Room, after: Room) -> bool:
    """Whether ``after`` is ``before`` with one move played and nothing else a ``state``
    shows changed (the seats, an offer): then a ``moved`` says all of it."""
    return (
        after.last is not None
        and after.version == before.version + 1
        and after.game_no == before.game_no
        and len(after.history) == len(before.history) + 1
        and before.outcome is None
        and before.offer is None
        and after.offer is None
        and after.seats == before.seats
        and after.ratedness == before.ratedness  # a game's first move: its ratedness, fixed
    )


def moved(
    after: Room, pos: Position, board_before: dict[str, Any], now_ms: int = 0
) -> tuple[M.Moved, dict[str, Any]] | None:
    """The ``moved`` message of a move (without its id) and the new board, or None when the
    board's changes cannot be said as a merge (the move then goes out as a ``state``); a
    clocked room's clocks as a ``state`` made at ``now_ms`` would show them."""
    last = after.last
    assert last is not None
    board = pos.game.board(pos.state)
    changes = M.board_changes(board_before, board)
    if changes is None:
        return None
    over = after.outcome
    message = M.Moved(
        version=after.version,
        move=last.move,
        steps=[M.compact_step(s, last.side) for s in last.steps],
        board=changes,
        to_move=None if over else pos.to_move,
        legal=[] if over else [M.compact_legal(c) for c in pos.choices],
        outcome=over,
        adjudication=over.adjudication if over else None,
        archive=after.archive_id if over and after.archive_id else None,
        clock=state_clock(after, now_ms),
    )
    return message, board


def notice(
    before: Room,
    after: Room,
    pos: Position,
    board_before: Callable[[], dict[str, Any]],
    state: Callable[[], P.State],
    kept: tuple[int, bytes] | None = None,
    now_ms: int = 0,
) -> tuple[bytes, dict[str, Any], bool]:
    """The encoded notice of a stored change, the new board, and whether the notice is also
    the record the store appends to the room: a move's ``moved`` (``board_before``: the board
    it was played on; ``kept``: the kept answers' change when the store may append the move,
    ``stored.appended``), any other change's whole ``state``."""
    lean = moved(after, pos, board_before(), now_ms) if is_move(before, after) else None
    if lean is not None:
        message, board = lean
        ply = after.history[-1]
        cut, added = kept or (0, b"")
        return (
            encode_notice(
                Notice(
                    after.rev,
                    NoticeKind.STATE,
                    computer=computer_to_move(after, pos),
                    stamp=after.stamp,
                    base=before.stamp,
                    moved=P.encode(message),
                    side=ply.side,
                    id=ply.id,
                    position=pos.game.describe(pos.state),
                    state=after.state if kept else b"",
                    cut=cut,
                    kept=added,
                    clock=after.clock if kept else None,
                )
            ),
            board,
            kept is not None,
        )
    whole = state()
    notice = Notice(
        after.rev,
        NoticeKind.STATE,
        P.encode(whole),
        [s.token_hash for s in after.seats],
        computer_to_move(after, pos),
        after.stamp,
        before.stamp,
    )
    return encode_notice(notice), whole.board, False


def decode(data: bytes) -> M.Moved:
    return M.decode_moved(data)


def decode_state(data: bytes) -> P.State:
    return _state_dec.decode(data)


def with_id(payload: bytes, intent_id: str | None) -> bytes:
    """The encoded ``moved`` with the intent's ``id`` added (for the mover's connections)."""
    if intent_id is None:
        return payload
    return payload[:-1] + b',"id":' + msgspec.json.encode(intent_id) + b"}"


def _aged(seat: P.Seat, elapsed_ms: int) -> P.Seat:
    if seat.present or seat.handover_ms is None or elapsed_ms <= 0:
        return seat
    return msgspec.structs.replace(
        seat,
        absent_ms=seat.absent_ms + elapsed_ms,
        handover_ms=max(0, seat.handover_ms - elapsed_ms),
    )


def derive(
    before: P.State,
    m: M.Moved,
    position: str,
    intent_id: str | None,
    elapsed_ms: int = 0,
) -> P.State:
    """The ``state`` after the move ``m`` from the ``state`` before it, sent
    ``elapsed_ms`` ago (a seat's absence counts on meanwhile)."""
    side = before.to_move
    assert side is not None
    return msgspec.structs.replace(
        before,
        version=m.version,
        position=position,
        board=M.board_after(before.board, m.board),
        to_move=m.to_move,
        legal=[M.expand_legal(c) for c in m.legal],
        last=P.LastMove(m.move, side, [M.expand_step(s, side) for s in m.steps], intent_id),
        outcome=m.outcome,
        adjudication=m.adjudication,
        seats=[_aged(s, elapsed_ms) for s in before.seats],
        offer=None,
        plies=before.plies + 1,
        resync=False,
        archive=m.archive,
        clock=m.clock if m.clock is not None else before.clock,
    )
