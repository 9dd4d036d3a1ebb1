"""Fan-out: the room channels this node listens to, and what it forwards.

Every stored change publishes one notice on the room's channel
(``notice.Notice``). Each node with connections in the room receives it and
forwards the payload, encoded once by the writer, to those connections as it
is: a ``state`` (``NoticeKind.STATE``) or an event (``EVENT``). A presence
notice (``PRESENCE``) makes the node rebuild the state from the store (the
presence is not in the notice) and forward that.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.exceptions import RedisError

from server.live.local import LocalRoom
from server.ops import health, metrics
from server.rooms import delta
from server.rooms import protocol as P
from server.rooms.notice import Notice, NoticeKind, decode_notice
from server.rooms.room import computer_to_move
from server.store.store import Store
from server.store.subscriber import Subscriber

# The room, its ``state`` message and its presence by side, read from the store (None: gone).
ReadState = Callable[[str], Awaitable[tuple[Any, P.State, dict[int, Any]] | None]]
# Whose turn came: the computer must play ``side`` in the room (None: it need not).
OnTurn = Callable[[str, int | None], None]

log = logging.getLogger("nyumba.fanout")


def presence_summary(presence: dict[int, tuple[bool, int]]) -> dict[int, bool]:
    return {side: present for side, (present, _) in presence.items()}


class Fanout:
    """Forwards the notices of ``local``'s rooms to their connections; ``read_state``
    reads a room's state from the store, ``on_turn`` hears whose turn each state gives."""

    def __init__(
        self,
        store: Store,
        node_id: str,
        local: dict[str, LocalRoom],
        read_state: ReadState,
        on_turn: OnTurn,
        listen_ms: int = 0,
    ):
        self.store = store
        # Local fan-out (``NYUMBA_LOCAL_FANOUT``): how long the store keeps this node among a
        # room's listeners after it subscribed, unless a tick renews it (0: it keeps no set).
        self.listen_ms = 0 if store.sharded else listen_ms
        self.node_id = node_id
        self.local = local
        self.read_state = read_state
        self.on_turn = on_turn
        self.pubsub = store.pubsub()
        self.pubsub.deliver = self.on_message
        if isinstance(self.pubsub, Subscriber):  # (a Cluster's rereads itself)
            self.pubsub.on_resubscribed = self.reread_all

    @property
    def _own_channel(self) -> str:
        return self.store.node_channel(self.node_id)

    async def start(self) -> None:
        await self.pubsub.subscribe(self._own_channel)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    async def subscribe(self, room_id: str) -> None:
        """Listen to the room's channel; then (local fan-out) tell the store, so that other
        nodes' writes are published for this one. What was written before that is read by
        the join that follows."""
        await self.pubsub.subscribe(self.store.channel(room_id))
        if self.listen_ms:
            await self.store.listen([room_id], self.node_id, self.listen_ms)

    async def unsubscribe(self, room_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.unsubscribe(self.store.channel(room_id))
            if self.listen_ms:
                await self.store.unlisten(room_id, self.node_id)

    def written(self, room_id: str, notice: bytes) -> None:
        """This node stored ``notice``: with local fan-out its sockets have it from here (the
        store published it only for other nodes; an echo of it is dropped as already sent)."""
        if notice and self.listen_ms and room_id in self.local:
            self.on_notice(room_id, decode_notice(notice))

    def on_message(self, channel: bytes, data: bytes) -> None:
        """One message on a channel this node subscribed (called as it is parsed)."""
        room_id = self.store.room_of_channel(channel)
        if room_id == self.node_id:  # this node's own channel
            metrics.pubsub_probe_received(data)
            return
        try:
            self.on_notice(room_id, decode_notice(data))
        except Exception:
            log.exception("bad notice on %s", room_id)

    def on_notice(self, room_id: str, n: Notice) -> None:
        local = self.local.get(room_id)
        if local is None or not local.conns:
            return
        if n.kind == NoticeKind.STATE:
            if n.rev <= local.last_rev or (
                n.rev == local.last_rev + 1 and n.base and local.last_stamp != n.base
            ):
                # Late (a rebuild forwarded it or a newer one first), or written over another
                # history than the one forwarded: the store decides which (``_rebuild``).
                if not (n.rev == local.last_rev and n.stamp == local.last_stamp):
                    self.schedule_rebuild(room_id)
                return
            if local.cached is not None and local.cached[0].rev != n.rev:
                local.cached = None  # written by another node
            if n.moved:
                self._forward_move(local, room_id, n)
            else:
                if any(not c.moves for c in local.conns):  # what the next move is applied to
                    whole = delta.decode_state(n.payload)
                    local.full = (n.rev, n.stamp, whole, time.monotonic())
                    local.board = (n.stamp, whole.board)
                self._forward(local, room_id, n.rev, n.stamp, n.payload, n.seats, n.computer)
        elif n.kind == NoticeKind.EVENT:
            for conn in list(local.conns):
                conn.send(n.payload)
        elif n.kind == NoticeKind.PRESENCE:
            self.schedule_rebuild(room_id)

    def _forward(
        self,
        local: LocalRoom,
        room_id: str,
        rev: int,
        stamp: str,
        payload: bytes,
        seats: list[str | None],
        computer: int | None,
        resync: bool = False,
    ) -> None:
        """Send a room revision's ``state`` to the local connections (telling each
        its sides first if they changed) and let the computer play if it is its turn."""
        local.last_rev, local.last_stamp = rev, stamp
        local.computer_side = computer
        for conn in list(local.conns):
            if conn.token_hash is not None:
                sides = [i for i, h in enumerate(seats) if h == conn.token_hash]
                if sides != conn.sides:
                    conn.sides = sides
                    conn.send_msg(P.Welcome(room=room_id, sides=sides))
            conn.send_state(rev, payload, resync)
        self.on_turn(room_id, computer)

    def _forward_move(self, local: LocalRoom, room_id: str, n: Notice) -> None:
        """Send a move: its ``moved`` to the connections that take moves and hold the
        revision before it, the whole ``state`` (the previous one with the move applied,
        ``delta.derive``) to the others. A node without that previous state reads the
        room from the store for them instead."""
        conns = list(local.conns)
        whole: bytes | None = None
        reread = False
        if any(not c.moves or c.rev != n.rev - 1 for c in conns):
            full = local.full
            if full is not None and full[0] == n.rev - 1 and full[1] == n.base:
                at = time.monotonic()
                elapsed = int((at - full[3]) * 1000)
                state = delta.derive(full[2], delta.decode(n.moved), n.position, n.id, elapsed)
                local.full = (n.rev, n.stamp, state, at)
                local.board = (n.stamp, state.board)
                whole = P.encode(state)
            else:
                reread = True
        else:
            local.full = None  # nobody here takes whole states: a join or a reread draws one
        local.last_rev, local.last_stamp = n.rev, n.stamp
        local.computer_side = n.computer
        mine = b""
        for conn in conns:
            if conn.moves and conn.rev == n.rev - 1:
                if n.id is not None and n.side in conn.sides:
                    mine = mine or delta.with_id(n.moved, n.id)
                    conn.send_state(n.rev, mine)
                else:
                    conn.send_state(n.rev, n.moved)
            elif whole is not None:
                conn.send_state(n.rev, whole)
        self.on_turn(room_id, n.computer)
        if reread:
            self.schedule_rebuild(room_id)

    def reread_all(self) -> None:
        """The subscriptions were re-established: whatever was published while
        they were down is lost, so every local room is sent from the store. This node
        lists itself among their listeners again (a failover may have lost the sets):
        meanwhile the store publishes for it as a subscriber (``_CAS``), so the reads
        need not wait for that."""
        for room_id in list(self.local):
            self.schedule_rebuild(room_id)
        if self.listen_ms and self.local:
            listing = self.store.listen(list(self.local), self.node_id, self.listen_ms)
            task = asyncio.get_running_loop().create_task(listing)
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def schedule_rebuild(self, room_id: str) -> None:
        local = self.local.get(room_id)
        if local is None:
            return
        if local.rebuilding:  # once more when it is done: the store may have moved meanwhile
            local.rebuild_again = True
            return
        local.rebuilding = True
        asyncio.get_running_loop().create_task(self._rebuild(room_id, local))

    async def _rebuild(self, room_id: str, local: LocalRoom) -> None:
        """Re-send the room's state to local connections from the store: presence
        changed, notices may have been lost (server/store/subscriber.py), or the store
        may have gone back in time.

        The store is the truth. A revision older than one this node forwarded
        before asking, or the same revision with another stamp, means the store
        lost writes (a failover to a replica that had not received them, a
        restore from an older snapshot): the node drops its copy and sends every
        connection the store's state as a ``resync`` (server/PROTOCOL.md), which
        clients take whatever version they showed. An older revision than one
        forwarded *while* asking is only a late read, and is dropped."""
        seen_rev, seen_stamp = local.last_rev, local.last_stamp
        try:
            current = await self.read_state(room_id)
        except RedisError as exc:  # the tick tries again; logged once per outage
            health.STORE.failed(exc)
            return
        finally:
            local.rebuilding = False
            if local.rebuild_again:
                local.rebuild_again = False
                self.schedule_rebuild(room_id)
        if current is None or not local.conns or self.local.get(room_id) is not local:
            return
        room, message, presence = current
        back = room.rev < seen_rev or (
            room.rev == seen_rev and bool(seen_stamp) and room.stamp != seen_stamp
        )
        if back:
            log.warning(
                "room %s: the store went back from revision %d to %d; resynchronising",
                room_id,
                seen_rev,
                room.rev,
            )
            metrics.RESYNCS.inc()
            local.cached = None
            message = msgspec.structs.replace(message, resync=True)
        elif room.rev < local.last_rev:
            return
        local.presence_seen = presence_summary(presence)
        seats = [s.token_hash for s in room.seats]
        payload = P.encode(message)
        computer = computer_to_move(room)
        self._forward(local, room_id, room.rev, room.stamp, payload, seats, computer, back)
