"""Rooms: the record kept in the store, and every change a message can make.

Pure functions over a ``Room`` value: no I/O, no clocks (``now`` is passed
in). Each request either raises ``Refused`` (a protocol error code and a
sentence; nothing changes) or returns the new room. The app adapter loads the
room, calls one of these, and writes the result with a compare-and-set.

Every game is a room (DESIGN.md): a seat is held by a person (known by the
hash of a secret token), by the computer, or is empty. Local mode is one
token holding both seats.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, Literal

import msgspec

import engine
from server import protocol as P

Mode = Literal["friend", "computer", "local"]
LEVELS = ("beginner", "intermediate", "advanced")
RECENT_INTENTS = 64


class Refused(Exception):
    def __init__(self, code: str, message: str | None = None):
        super().__init__(code)
        self.code = code
        self.message = message or P.ERRORS[code]


class SeatRec(msgspec.Struct):
    holder: Literal["person", "computer", "empty"]
    token_hash: str | None = None  # the person who owns the seat (kept while the computer plays it)
    level: str | None = None
    claimed_ms: int = 0
    name: str | None = None


class Ply(msgspec.Struct, array_like=True):
    move: str
    side: int
    id: str | None = None


class Room(msgspec.Struct):
    id: str
    game: str
    options: dict[str, Any]
    mode: Mode
    level: str
    created_ms: int
    seats: list[SeatRec]  # index = side (0 South, 1 North)
    state: bytes  # the engine state, msgpack
    rev: int = 0  # every stored change
    version: int = 0  # every change of the game itself (what move intents name)
    game_no: int = 1
    history: list[Ply] = []
    outcome: P.OutcomeOut | None = None
    last: P.LastMove | None = None
    offer: P.PendingOffer | None = None
    intents: list[tuple[str, int]] = []  # recent applied intent keys -> version
    games: list[dict[str, Any]] = []  # finished games of this room, as records


_room_encoder = msgspec.msgpack.Encoder()
_room_decoder = msgspec.msgpack.Decoder(Room)


def encode_room(room: Room) -> bytes:
    return _room_encoder.encode(room)


def decode_room(data: bytes) -> Room:
    return _room_decoder.decode(data)


def new_token() -> str:
    return secrets.token_urlsafe(16)  # 128 random bits


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_sides(room: Room, token: str | None) -> list[int]:
    """The sides a token owns in this room (compared in constant time)."""
    if not token:
        return []
    h = hash_token(token)
    return [
        side
        for side, seat in enumerate(room.seats)
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, h)
    ]


# ---------------------------------------------------------------- engine glue

_games: dict[tuple, engine.Game] = {}


def game_of(room: Room) -> engine.Game:
    key = (room.game, tuple(sorted(room.options.items())))
    game = _games.get(key)
    if game is None:
        game = _games[key] = engine.load(room.game, **room.options)
    return game


def state_of(room: Room, game: engine.Game | None = None) -> Any:
    game = game or game_of(room)
    return msgspec.msgpack.decode(room.state, type=game.state_type)


def _encode_state(state: Any) -> bytes:
    return msgspec.msgpack.encode(state)


def _outcome(o: engine.Outcome | None) -> P.OutcomeOut | None:
    if o is None:
        return None
    return P.OutcomeOut(
        winner=o.winner, reason=o.reason, score=o.score, adjudication=o.adjudication
    )


def _steps(game, state, move) -> list[P.StepOut]:
    return list(game.steps(state, move))


def legal_view(game, state) -> list[P.Legal]:
    """The legal moves with the pit a player clicks and the words that tell
    moves from the same pit apart. Games may say so themselves
    (``game.origin(move, state) -> (pit, choice)``); otherwise the notation's pit
    prefix is the pit."""
    origin = getattr(game, "origin", None)
    out = []
    for m in game.legal_moves(state):
        text = game.notation(m)
        if origin is not None:
            pit, choice = origin(m, state)
        elif len(text) == 1:
            pit, choice = text, ""
        else:
            pit, choice = text[:2], text[2:]
        out.append(P.Legal(move=text, pit=pit, choice=choice))
    return out


# ---------------------------------------------------------------- creation


def create(
    room_id: str,
    game_name: str,
    options: dict[str, Any],
    mode: Mode,
    side: Literal["south", "north", "random"],
    level: str,
    now_ms: int,
) -> tuple[Room, str, list[int]]:
    """A new room and the creator's token and sides. engine.BadOptions for a bad game."""
    game = engine.load(game_name, **options)
    if level not in LEVELS:
        raise Refused(
            "bad-message", f"Unknown computer level {level!r}; use one of {', '.join(LEVELS)}."
        )
    if side == "random":
        mine = secrets.randbelow(2)
    else:
        mine = 0 if side == "south" else 1
    token = new_token()
    h = hash_token(token)
    seats = [SeatRec("empty"), SeatRec("empty")]
    if mode == "local":
        seats = [SeatRec("person", h, None, now_ms), SeatRec("person", h, None, now_ms)]
        sides = [0, 1]
    else:
        seats[mine] = SeatRec("person", h, None, now_ms)
        if mode == "computer":
            seats[1 - mine] = SeatRec("computer", None, level, now_ms)
        sides = [mine]
    room = Room(
        id=room_id,
        game=game_name,
        options=dict(game.options),
        mode=mode,
        level=level,
        created_ms=now_ms,
        seats=seats,
        state=_encode_state(game.start()),
    )
    return room, token, sides


# ---------------------------------------------------------------- views


def state_message(
    room: Room,
    presence: dict[int, tuple[bool, int]],
    now_ms: int,
    absent_ms: int,
    watchers: int = 0,
) -> P.State:
    """The ``state`` message for everyone in the room.

    ``presence`` maps side -> (present, last_seen_ms) as the store knows it;
    ``watchers`` counts the connections without a seat.
    """
    game = game_of(room)
    state = state_of(room, game)
    over = room.outcome is not None
    seats = []
    for side, seat in enumerate(room.seats):
        present, last_seen = presence.get(side, (False, 0))
        if seat.holder == "computer":
            seats.append(
                P.Seat(
                    side,
                    "computer",
                    True,
                    seat.level,
                    0,
                    None,
                    seat.token_hash is not None,
                    seat.name,
                )
            )
            continue
        if present:
            seats.append(
                P.Seat(
                    side, seat.holder, True, None, 0, None, seat.token_hash is not None, seat.name
                )
            )
            continue
        since = max(last_seen, seat.claimed_ms, room.created_ms)
        gone = max(0, now_ms - since)
        seats.append(
            P.Seat(
                side,
                seat.holder,
                False,
                None,
                gone,
                max(0, absent_ms - gone),
                seat.token_hash is not None,
                seat.name,
            )
        )
    return P.State(
        room=room.id,
        version=room.version,
        game=room.game,
        options=room.options,
        mode=room.mode,
        game_no=room.game_no,
        position=game.describe(state),
        board=game.board(state),
        to_move=None if over else game.to_move(state),
        legal=[] if over else legal_view(game, state),
        last=room.last,
        outcome=room.outcome,
        adjudication=room.outcome.adjudication if room.outcome else None,
        seats=seats,
        offer=room.offer,
        plies=len(room.history),
        watchers=watchers,
    )


def computer_to_move(room: Room) -> int | None:
    """The side the computer must play now, if any."""
    if room.outcome is not None:
        return None
    side = game_of(room).to_move(state_of(room))
    return side if room.seats[side].holder == "computer" else None


# ---------------------------------------------------------------- changes


def _changed(room: Room, **fields) -> Room:
    return msgspec.structs.replace(room, rev=room.rev + 1, **fields)


def _remember(
    intents: list[tuple[str, int]], key: str | None, version: int
) -> list[tuple[str, int]]:
    if key is None:
        return intents
    return (intents + [(key, version)])[-RECENT_INTENTS:]


def applied_version(room: Room, who: str, intent_id: str | None) -> int | None:
    """The version an already-applied intent of ``who`` produced, or None."""
    if intent_id is None:
        return None
    key = f"{who}:{intent_id}"
    for k, v in room.intents:
        if k == key:
            return v
    return None


def _require_seated(room: Room, sides: list[int]) -> None:
    if not sides:
        raise Refused("not-seated")


def acting_side(room: Room, sides: list[int]) -> int:
    """Which of the connection's sides acts: its only one, or in a local room
    the side to move."""
    _require_seated(room, sides)
    if len(sides) == 1:
        return sides[0]
    if room.outcome is None:
        return game_of(room).to_move(state_of(room))
    return sides[0]


def hint_side(room: Room, sides: list[int]) -> int:
    """The side a hint is for: the side to move, if the asker holds it, in a
    computer or local room."""
    _require_seated(room, sides)
    if room.mode == "friend":
        raise Refused("not-allowed", "Hints are for computer and local rooms.")
    if room.outcome is not None:
        raise Refused("game-over")
    side = game_of(room).to_move(state_of(room))
    if side not in sides:
        raise Refused("not-your-turn")
    return side


def play(
    room: Room,
    sides: list[int],
    version: int,
    text: str,
    intent_id: str | None,
    by_computer: bool = False,
    intent_key: str | None = None,
) -> Room:
    """A move intent, through the guards in order: seat → not over → turn →
    version → engine legality."""
    _require_seated(room, sides)
    if room.outcome is not None:
        raise Refused("game-over")
    game = game_of(room)
    state = state_of(room, game)
    side = game.to_move(state)
    if side not in sides:
        raise Refused("not-your-turn")
    if room.seats[side].holder == "computer" and not by_computer:
        raise Refused("not-allowed", "The computer holds this seat; reclaim it first.")
    if version != room.version:
        raise Refused("stale")
    try:
        move = game.parse(state, text)
    except engine.BadNotation as exc:
        raise Refused("bad-notation", f"{text!r} is not a move in {room.game}: {exc}") from None
    except engine.IllegalMove as exc:
        raise Refused("illegal", f"{text!r} is not legal here: {exc}") from None
    steps = _steps(game, state, move)
    after = game.play(state, move)
    notation = game.notation(move)
    v = room.version + 1
    return _changed(
        room,
        version=v,
        state=_encode_state(after),
        history=room.history + [Ply(notation, side, intent_id)],
        outcome=_outcome(game.outcome(after)),
        last=P.LastMove(move=notation, side=side, steps=steps, id=intent_id),
        offer=None,
        intents=_remember(
            room.intents, f"{intent_key}:{intent_id}" if intent_id and intent_key else None, v
        ),
    )


def _finish(room: Room, outcome: engine.Outcome) -> Room:
    return _changed(room, version=room.version + 1, outcome=_outcome(outcome), offer=None)


def resign(room: Room, sides: list[int]) -> Room:
    side = acting_side(room, sides)
    if room.outcome is not None:
        raise Refused("game-over")
    return _finish(room, engine.resigned(side))


def _replayed(room: Room, keep: int) -> Room:
    """The room with only the first ``keep`` plies of this game."""
    game = game_of(room)
    state = game.start()
    history = room.history[:keep]
    last = None
    for ply in history:
        move = game.parse(state, ply.move)
        steps = _steps(game, state, move)
        state = game.play(state, move)
        last = P.LastMove(move=ply.move, side=ply.side, steps=steps, id=ply.id)
    return _changed(
        room,
        version=room.version + 1,
        state=_encode_state(state),
        history=history,
        outcome=_outcome(game.outcome(state)),
        last=last,
        offer=None,
    )


def _take_back_to(room: Room, side: int) -> Room:
    """Remove plies from the end until one of ``side``'s own moves is gone
    and it is ``side``'s turn again (a computer's reply goes with it)."""
    if not any(p.side == side for p in room.history):
        raise Refused("not-allowed", "There is no move of yours to take back.")
    keep = max(i for i, p in enumerate(room.history) if p.side == side)
    return _replayed(room, keep)


def undo(room: Room, sides: list[int], version: int) -> Room:
    """Computer and local rooms: take back the player's last move (and the
    computer's reply); in a local room, the last move."""
    _require_seated(room, sides)
    if room.mode == "friend":
        raise Refused(
            "not-allowed", "Undo is for computer and local rooms; offer a takeback instead."
        )
    if version != room.version:
        raise Refused("stale")
    if room.outcome is not None and room.outcome.adjudication in ("resignation", "agreement"):
        raise Refused("game-over")
    if not room.history:
        raise Refused("not-allowed", "There is no move to take back.")
    if room.mode == "local":
        return _replayed(room, len(room.history) - 1)
    return _take_back_to(room, sides[0])


def offer(room: Room, sides: list[int], kind: P.OfferKind) -> tuple[Room, P.OfferMade | None]:
    side = acting_side(room, sides)
    if kind == "rematch":
        if room.outcome is None:
            raise Refused("not-allowed", "A rematch starts after the game is over.")
        if room.mode != "friend":
            return rematch(room), None
    elif room.outcome is not None:
        raise Refused("game-over")
    if kind == "draw":
        if room.mode == "computer":
            raise Refused("not-allowed", "The computer does not take draw offers.")
        if room.mode == "local":
            return _finish(room, engine.agreed_draw()), None
    if kind == "takeback":
        if room.mode != "friend":
            raise Refused("not-allowed", "Takeback offers are for friend rooms; use undo.")
        if not any(p.side == side for p in room.history):
            raise Refused("not-allowed", "There is no move of yours to take back.")
    made = P.PendingOffer(kind=kind, by=side)
    return _changed(room, offer=made), P.OfferMade(kind=kind, by=side, status="open")


def reply(
    room: Room, sides: list[int], kind: P.OfferKind, accept: bool
) -> tuple[Room, P.OfferMade]:
    side = acting_side(room, sides)
    o = room.offer
    if o is None or o.kind != kind or o.by == side:
        raise Refused("no-offer")
    answer = P.OfferMade(kind=kind, by=o.by, status="accepted" if accept else "declined")
    if not accept:
        return _changed(room, offer=None), answer
    if kind == "draw":
        return _finish(room, engine.agreed_draw()), answer
    if kind == "takeback":
        return _take_back_to(room, o.by), answer
    return rematch(room), answer


def rematch(room: Room) -> Room:
    """The next game with sides swapped: each seat's holder moves to the other side."""
    game = game_of(room)
    record = {
        "game_no": room.game_no,
        "moves": [p.move for p in room.history],
        "outcome": msgspec.to_builtins(room.outcome),
    }
    return _changed(
        room,
        version=room.version + 1,
        game_no=room.game_no + 1,
        seats=[room.seats[1], room.seats[0]],
        state=_encode_state(game.start()),
        history=[],
        outcome=None,
        last=None,
        offer=None,
        games=(room.games + [record])[-20:],
    )


def hand_over(
    room: Room, sides: list[int], presence: dict[int, tuple[bool, int]], now_ms: int, absent_ms: int
) -> Room:
    """Give the absent opponent's seat to the computer."""
    side = acting_side(room, sides)
    if room.mode != "friend" or len(sides) != 1:
        raise Refused("not-allowed", "Only a friend room's player can hand over the other seat.")
    other = 1 - side
    seat = room.seats[other]
    if seat.holder == "computer":
        raise Refused("not-allowed", "The computer already holds that seat.")
    if seat.token_hash is None:
        # Nobody ever took it: the invited friend may still come, and must find it free.
        raise Refused("not-allowed", "Nobody has taken that seat yet; the invite still holds it.")
    present, last_seen = presence.get(other, (False, 0))
    since = max(last_seen, seat.claimed_ms, room.created_ms)
    if present or now_ms - since < absent_ms:
        raise Refused("not-absent")
    seats = list(room.seats)
    seats[other] = msgspec.structs.replace(seat, holder="computer", level=room.level)
    return _changed(room, seats=seats, offer=None)


def reclaim(room: Room, sides: list[int]) -> Room:
    _require_seated(room, sides)
    seats = list(room.seats)
    changed = False
    for side in sides:
        if seats[side].holder == "computer" and seats[side].token_hash is not None:
            seats[side] = msgspec.structs.replace(seats[side], holder="person", level=None)
            changed = True
    if not changed:
        raise Refused("not-allowed", "The computer does not hold your seat.")
    return _changed(room, seats=seats)


def claim_free_seat(room: Room, now_ms: int) -> tuple[Room, str, int] | None:
    """A friend room's first joiner takes the empty seat; None if there is none."""
    if room.mode != "friend":
        return None
    for side, seat in enumerate(room.seats):
        if seat.holder == "empty" and seat.token_hash is None:
            token = new_token()
            seats = list(room.seats)
            seats[side] = SeatRec("person", hash_token(token), None, now_ms)
            return _changed(room, seats=seats), token, side
    return None


def rename(room: Room, sides: list[int], name: str) -> Room | None:
    """Give the connection's seats a display name (None when nothing changes)."""
    if not sides or all(room.seats[s].name == name for s in sides):
        return None
    seats = list(room.seats)
    for side in sides:
        seats[side] = msgspec.structs.replace(seats[side], name=name)
    return _changed(room, seats=seats)


def history(room: Room) -> dict[str, Any]:
    """The room's own account of its current game: every ply with its side and
    the intent id that made it (None for the computer's), for operators and
    tests (``GET /api/rooms/{room}/history``)."""
    return {
        "room": room.id,
        "game": room.game,
        "options": room.options,
        "mode": room.mode,
        "game_no": room.game_no,
        "version": room.version,
        "moves": [p.move for p in room.history],
        "sides": [p.side for p in room.history],
        "ids": [p.id for p in room.history],
        "outcome": msgspec.to_builtins(room.outcome),
        "previous_games": room.games,
    }


def record(room: Room) -> dict[str, Any]:
    """The current game as a game record (engine/RECORDS.md): nyumba's format,
    or for Bao Nakakamado A the trial app's own."""
    from engine import records

    game = game_of(room)
    outcome = None
    if room.outcome is not None and room.outcome.adjudication in ("resignation", "agreement"):
        outcome = engine.Outcome(
            winner=room.outcome.winner,
            reason=room.outcome.reason,
            score=room.outcome.score,
            adjudication=room.outcome.adjudication,
        )
    computer = next((s.level for s in room.seats if s.holder == "computer"), None)
    names = [s.name for s in room.seats]
    return records.dump(
        game,
        [p.move for p in room.history],
        players=names if any(names) else None,
        mode=room.mode,
        computer=computer if room.mode == "computer" else None,
        outcome=outcome,
    )
