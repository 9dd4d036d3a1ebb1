"""The messages with a way of their own through the node: ``ping``, ``join``,
``hint`` and ``undo`` (``HANDLERS``). Every other client message is an intent that
``Node.intent`` judges (``rooms.COMMANDS``) and stores. A handler takes the node's parts
it uses (``NodeParts``), not the node: this module and the node's do not import each
other."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec
from starlette.status import WS_1008_POLICY_VIOLATION, WS_1013_TRY_AGAIN_LATER

from server.computer.link import RemoteComputer
from server.computer.pool import Busy as ComputerBusy
from server.computer.pool import Computer
from server.computer.replays import Busy as OffloadBusy
from server.computer.replays import Offload, undo_job
from server.live.arrivals import Arrivals
from server.live.connection import Conn
from server.live.identity import Identities
from server.live.lobby import Lobby
from server.live.presence import Presence
from server.live.seats import ComputerSeats
from server.ops import metrics
from server.ops.config import Settings
from server.rooms import judge as rooms
from server.rooms import protocol as P
from server.rooms.room import Change, Refused, Room, computer_to_move, free_seat
from server.rooms.stored import decode_room
from server.store import waiting
from server.store.store import Store


class NodeParts(Protocol):
    """What a handler uses of the node that received the message (``server/live/node.py``
    has them all; a test may hand a handler anything that has them)."""

    settings: Settings
    store: Store
    computer: Computer | RemoteComputer
    offload: Offload | None
    presence: Presence
    computer_seats: ComputerSeats
    arrivals: Arrivals
    identities: Identities | None
    lobby: Lobby

    def now(self) -> int: ...

    def joined(self, conn: Conn, msg: Any) -> str: ...

    async def change(
        self,
        room_id: str,
        intent: Any,
        conn: Conn | None = None,
        room: Room | None = None,
        prepared: Room | None = None,
        player: str | None = None,
        address: str | None = None,
    ) -> Change: ...

    async def answer(self, conn: Conn, done: Change) -> None: ...

    async def current_state(self, room_id: str) -> tuple[Room, P.State, dict[int, Any]] | None: ...


async def ping(node: NodeParts, conn: Conn, msg: P.Ping) -> None:
    conn.send_msg(P.Pong(n=msg.n))


async def hint(node: NodeParts, conn: Conn, msg: P.Hint) -> None:
    """Judged like any intent; then the computer thinks and the answer is kept."""
    room_id = node.joined(conn, msg)
    data, _ = await node.store.load(room_id)
    if data is None:
        raise Refused("no-room")
    room = decode_room(data)
    done = await node.change(room_id, msg, conn, room)
    if done.reply is not None:  # refused, or a resend
        await node.answer(conn, done)
        return
    seed = int.from_bytes(
        hashlib.sha256(f"hint:{room.id}:{room.game_no}:{room.version}".encode()).digest()[:8],
        "big",
    )
    try:
        text = await node.computer.hint(
            room.id, room.version, room.game, room.options, room.state, seed, conn.address
        )
    except ComputerBusy:  # not kept: nothing was judged, a resend is asked again
        raise Refused("busy", "The computer is busy; ask again in a moment.") from None
    answer = P.HintMove(move=text, version=room.version, id=msg.id)
    if msg.id is not None and conn.who is not None:
        done = await node.change(room_id, rooms.Keep(msg, answer, room.game_no), conn)
        answer = done.reply
    conn.send_msg(answer)


async def undo(node: NodeParts, conn: Conn, msg: P.Undo) -> None:
    """Undo replays the game from its start (14.5 ms at 288 plies, measured on
    main): the replay runs in the pool (server/computer/replays.py), off the event loop,
    and the undo is judged with it at hand (``Context.prepared``). If the room
    changed meanwhile, the undo is judged and replayed on the loop."""
    room_id = node.joined(conn, msg)
    prepared = None
    if node.offload is not None:
        data, _ = await node.store.load(room_id)
        if data is None:
            raise Refused("no-room")
        room = decode_room(data)
        who = conn.who if conn.sides else None
        try:
            fresh = rooms.recall(room, msg, who) is None
        except Refused:  # id-reused: judge() answers it
            fresh = False
        if fresh:
            try:
                ok, answer, _ = await node.offload.run(
                    conn.address, undo_job, data, conn.sides, msg.version
                )
            except OffloadBusy:
                raise Refused("busy", "The server is busy; try again in a moment.") from None
            if ok:
                prepared = decode_room(answer)
    done = await node.change(room_id, msg, conn, prepared=prepared)
    await node.answer(conn, done)


async def join(node: NodeParts, conn: Conn, msg: P.Join) -> None:
    joins, visitors = node.arrivals.joins, node.arrivals.visitors  # per minute (arrivals.py)
    if not await joins.spend(conn.address):
        conn.close_soon(WS_1008_POLICY_VIOLATION, "join rate")
        raise Refused(
            "rate-limited", f"At most {joins.limit} joins a minute from one address; closing."
        )
    data, _ = await node.store.load(msg.room)
    if data is None:
        raise Refused("no-room")
    room = decode_room(data)
    if room.waiting:  # finished games the archive lacks: the room must be in line (NX: if not)
        await waiting.queue(node.store, room.id, node.now())
    admitted = None
    if not msg.token and conn.room != room.id:
        # A friend room's free seat is not a visitor's place: the invited friend gets in.
        if free_seat(room) is None and not await visitors.spend(room.id):
            conn.close_soon(WS_1013_TRY_AGAIN_LATER, "room visitor rate")
            raise Refused(
                "rate-limited",
                f"This room has had {visitors.limit} visitors this minute; try again shortly.",
            )
        # Seat holders always get in; visitors only while the room has space
        # (checked and taken in one script: simultaneous visitors cannot all pass).
        now = node.now()
        admitted = f"w:{conn.id}"
        if not await node.store.admit_visitor(
            room.id,
            admitted,
            now + 1,
            now + node.settings.presence_ttl_ms,
            node.settings.sockets_per_room,
        ):
            raise Refused("room-full")
    player = None  # a signed-in player's seats are linked to them (server/live/identity.py)
    if node.identities is not None and conn.session:
        player, name = await node.identities.name_of(conn.session)
        if not msg.name and name:  # no name sent (or an empty one): the player's own, as a seek
            msg = msgspec.structs.replace(msg, name=name)
    done = await node.change(room.id, msg, None, room, player=player, address=conn.address)
    welcome = done.reply
    if isinstance(welcome, P.Error):
        raise Refused(welcome.code, welcome.message)
    if admitted is not None and welcome.sides:  # a seat, not a visitor: end the visitor's entry
        await node.store.end_presence(room.id, {admitted: node.now()})
    if welcome.sides and node.lobby.may_be_in_flight(room, node.now()):
        await node.lobby.joined(room.id, welcome.sides)  # the pairing is no longer in flight
    if msg.token and msg.version is not None and conn.room is None and welcome.sides:
        # A seat's page that saw the room before, on a new socket: it lost its link and is back
        # (a first visit, or a reload, joins with no version).
        metrics.RECONNECTIONS.labels(room.game, room.mode).inc()
    if conn.room is not None:
        await node.presence.leave(conn)
    room = done.room
    conn.room = room.id
    conn.rev = -1  # a new room's states start afresh
    conn.sides = welcome.sides
    token = welcome.token or msg.token
    conn.token_hash = rooms.hash_token(token) if token else None
    conn.acks_in_state = msg.acks == "state"
    conn.moves = msg.states == "moves"
    conn.send_msg(welcome)
    await node.presence.enter(conn, room)
    if room.mode != "friend":  # computer rooms play it; computer and local rooms give hints
        node.computer.warm(seats=room.mode == "computer", hints=True)
    current = await node.current_state(room.id)
    if current is not None:
        conn.send_state(current[0].rev, P.encode(current[1]))
        node.computer_seats.maybe_play(room.id, computer_to_move(current[0]))


Handler = Callable[[NodeParts, Conn, Any], Awaitable[None]]

HANDLERS: dict[type, Handler] = {
    P.Ping: ping,
    P.Join: join,
    P.Hint: hint,
    P.Undo: undo,
}
