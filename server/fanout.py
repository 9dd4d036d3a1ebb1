"""Fan-out: the room channels this node listens to, and what it forwards.

Every stored change publishes one notice on the room's channel
(``store.Notice``). Each node with connections in the room receives it and
forwards the payload, encoded once by the writer, to those connections as it
is: a ``state`` (``NoticeKind.STATE``) or an event (``EVENT``). A presence
notice (``PRESENCE``) makes the node rebuild the state from the store (the
presence is not in the notice) and forward that.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server import health, metrics
from server import protocol as P
from server.room import computer_to_move
from server.store import Notice, NoticeKind, decode_notice
from server.subscriber import Subscriber

if TYPE_CHECKING:
    from server.local import LocalRoom
    from server.node import Node

log = logging.getLogger("nyumba.fanout")


def presence_summary(presence: dict[int, tuple[bool, int]]) -> dict[int, bool]:
    return {side: present for side, (present, _) in presence.items()}


class Fanout:
    def __init__(self, node: Node):
        self.node = node
        self.store = node.store
        self.pubsub = node.store.pubsub()
        self.pubsub.deliver = self.on_message
        if isinstance(self.pubsub, Subscriber):  # (a Cluster's resyncs itself)
            self.pubsub.on_resubscribed = self.resync_all

    @property
    def _own_channel(self) -> str:
        return self.store.node_channel(self.node.node_id)

    async def start(self) -> None:
        await self.pubsub.subscribe(self._own_channel)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    async def subscribe(self, room_id: str) -> None:
        await self.pubsub.subscribe(self.store.channel(room_id))

    async def unsubscribe(self, room_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.unsubscribe(self.store.channel(room_id))

    def on_message(self, channel: bytes, data: bytes) -> None:
        """One message on a channel this node subscribed (called as it is parsed)."""
        room_id = self.store.room_of_channel(channel)
        if room_id == self.node.node_id:  # this node's own channel
            metrics.pubsub_probe_received(data)
            return
        try:
            self.on_notice(room_id, decode_notice(data))
        except Exception:
            log.exception("bad notice on %s", room_id)

    def on_notice(self, room_id: str, n: Notice) -> None:
        local = self.node.local.get(room_id)
        if local is None or not local.conns:
            return
        if n.kind == NoticeKind.STATE:
            if n.rev < local.last_rev:
                return
            if local.cached is not None and local.cached[0].rev != n.rev:
                local.cached = None  # written by another node
            self._forward(local, room_id, n.rev, n.payload, n.seats, n.computer)
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
        payload: bytes,
        seats: list[str | None],
        computer: int | None,
    ) -> None:
        """Send a room revision's ``state`` to the local connections (telling each
        its sides first if they changed) and let the computer play if it is its turn."""
        local.last_rev = rev
        local.computer_side = computer
        for conn in list(local.conns):
            if conn.token_hash is not None:
                sides = [i for i, h in enumerate(seats) if h == conn.token_hash]
                if sides != conn.sides:
                    conn.sides = sides
                    conn.send_msg(P.Welcome(room=room_id, sides=sides))
            conn.send(payload)
        self.node.computer_seats.maybe_play(room_id, computer)

    def resync_all(self) -> None:
        """The subscriptions were re-established: whatever was published while
        they were down is lost, so every local room is sent from the store."""
        for room_id in list(self.node.local):
            self.schedule_rebuild(room_id)

    def schedule_rebuild(self, room_id: str) -> None:
        local = self.node.local.get(room_id)
        if local is None or local.rebuilding:
            return
        local.rebuilding = True
        asyncio.get_running_loop().create_task(self._rebuild(room_id, local))

    async def _rebuild(self, room_id: str, local: LocalRoom) -> None:
        """Re-send the room's state to local connections: presence changed, or
        notices may have been lost (server/subscriber.py)."""
        try:
            current = await self.node.current_state(room_id)
        except RedisError as exc:  # the tick tries again; logged once per outage
            health.STORE.failed(exc)
            return
        finally:
            local.rebuilding = False
        if current is None or not local.conns or self.node.local.get(room_id) is not local:
            return
        room, message, presence = current
        if room.rev < local.last_rev:
            return
        local.presence_seen = presence_summary(presence)
        seats = [s.token_hash for s in room.seats]
        self._forward(local, room_id, room.rev, P.encode(message), seats, computer_to_move(room))
