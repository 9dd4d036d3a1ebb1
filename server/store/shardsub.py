"""Sharded pub/sub on a Cluster: each room's channel is subscribed
(``SSUBSCRIBE``) on the master that owns its slot, so a move's notice
(``SPUBLISH`` in the compare-and-set script) travels inside one shard instead
of being broadcast to every node of the cluster.

One subscriber connection per master. The subscription follows its slot:
when the server drops it (``sunsubscribe`` pushed after a slot migrated),
when a connection is lost (a master died) or when the slot map changes, the
channel is subscribed again on the new owner — and, since notices published
meanwhile reached no one, a *reread* message is queued for that channel
(``reread`` bytes given by the caller: a "presence changed" notice, on which a
node re-reads the room and sends its state).

The interface is ``server.store.subscriber``'s (one master): ``subscribe``,
``unsubscribe``, ``aclose``, and each message handed to ``deliver(channel,
data)`` as it is parsed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import hiredis

from server.store.cluster import ClusterLink

log = logging.getLogger("nyumba.shardsub")


class _SubProtocol(asyncio.Protocol):
    def __init__(self, owner: ShardedPubSub, address: str):
        self.owner, self.address = owner, address
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost = False
        # Our own SSUBSCRIBE/SUNSUBSCRIBE in the order sent: ("s"|"u", channel).
        self.asked: collections.deque[tuple[str, bytes]] = collections.deque()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def send(self, kind: str, channel: bytes) -> None:
        assert self.transport is not None
        self.asked.append((kind, channel))
        name = "SSUBSCRIBE" if kind == "s" else "SUNSUBSCRIBE"
        command: tuple[Any, ...] = (name, channel)
        self.transport.write(hiredis.pack_command(command))

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if isinstance(reply, hiredis.ReplyError):
                kind, channel = self.asked.popleft() if self.asked else ("s", b"")
                self.owner._refused(self, channel, str(reply))
                continue
            what, channel = reply[0], reply[1]
            if what == b"smessage":
                self.owner._deliver(channel, reply[2])
            elif what == b"ssubscribe":
                if self.asked and self.asked[0] == ("s", channel):
                    self.asked.popleft()
                self.owner._confirmed(self, channel)
            elif what == b"sunsubscribe":
                if self.asked and self.asked[0] == ("u", channel):
                    self.asked.popleft()  # ours
                else:
                    self.owner._dropped(self, channel)  # the slot left this master

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.owner._lost(self)


class ShardedPubSub:
    def __init__(self, link: ClusterLink, reread: bytes = b""):
        self.link = link
        self.reread = reread
        self.wanted: set[bytes] = set()
        self.placed: dict[bytes, _SubProtocol] = {}  # channel -> the connection it is on
        self.confirmed: set[bytes] = set()
        self.announce: set[bytes] = set()  # channels to reread once subscribed again
        self.conns: dict[str, _SubProtocol] = {}
        self._connecting: dict[str, asyncio.Future] = {}
        self.placing: set[bytes] = set()  # channels whose subscription is on its way
        self.deliver: Callable[[bytes, bytes], None] = lambda channel, data: None
        self._repair: asyncio.Task | None = None
        self.resubscribed = 0  # channels moved to another master (for the tests and logs)
        link.map_changed.append(self._schedule)

    # the interface node.py uses ------------------------------------------------
    async def subscribe(self, *channels: str | bytes) -> None:
        for ch in channels:
            channel = ch.encode() if isinstance(ch, str) else ch
            self.wanted.add(channel)
            await self._place(channel)

    async def unsubscribe(self, *channels: str | bytes) -> None:
        for ch in channels:
            channel = ch.encode() if isinstance(ch, str) else ch
            self.wanted.discard(channel)
            self.confirmed.discard(channel)
            self.announce.discard(channel)
            proto = self.placed.pop(channel, None)
            if proto is not None and not proto.lost:
                proto.send("u", channel)

    async def aclose(self) -> None:
        self.link.map_changed.remove(self._schedule)
        if self._repair is not None:
            self._repair.cancel()
            with contextlib.suppress(BaseException):
                await self._repair
        for proto in list(self.conns.values()):
            if proto.transport is not None:
                proto.transport.close()

    # placing subscriptions -------------------------------------------------------
    async def _conn(self, address: str) -> _SubProtocol:
        proto = self.conns.get(address)
        if proto is not None and not proto.lost:
            return proto
        connecting = self._connecting.get(address)
        if connecting is None:  # one connection per master, however many ask at once
            connecting = asyncio.ensure_future(self._open(address))
            self._connecting[address] = connecting
        try:
            return await asyncio.shield(connecting)
        finally:
            if self._connecting.get(address) is connecting and connecting.done():
                del self._connecting[address]

    async def _open(self, address: str) -> _SubProtocol:
        host, port = address.rsplit(":", 1)
        loop = asyncio.get_running_loop()
        _, proto = await loop.create_connection(
            lambda: _SubProtocol(self, address), host, int(port)
        )
        params = self.link.params
        if params.get("password"):
            auth = [params["username"]] if params.get("username") else []
            command: tuple[Any, ...] = ("AUTH", *auth, params["password"])
            assert proto.transport is not None
            proto.transport.write(hiredis.pack_command(command))
            proto.asked.append(("a", b""))
        self.conns[address] = proto
        return proto

    async def _place(self, channel: bytes) -> None:
        self.placing.add(channel)
        try:
            address = self.link.address_of(channel)
            if address is None:
                await self.link.refresh()
                address = self.link.address_of(channel)
            current = self.placed.get(channel)
            if current is not None and not current.lost and current.address == address:
                return
            proto = await self._conn(address or self.link.masters[0])
        finally:
            self.placing.discard(channel)
        if channel not in self.wanted:
            return  # unsubscribed meanwhile
        current = self.placed.get(channel)
        if current is not None and not current.lost and current is not proto:
            current.send("u", channel)
        self.confirmed.discard(channel)
        self.placed[channel] = proto
        proto.send("s", channel)

    def _schedule(self) -> None:
        if self._repair is None or self._repair.done():
            self._repair = asyncio.get_running_loop().create_task(self._repair_all())

    async def _repair_all(self) -> None:
        """Subscribe every wanted channel on its slot's owner, until all are."""
        delay = 0.05
        while True:
            misplaced = [ch for ch in self.wanted if self._misplaced(ch)]
            if not misplaced:
                return
            try:
                for channel in misplaced:
                    self.announce.add(channel)
                    self.resubscribed += 1
                    await self._place(channel)
                await asyncio.sleep(0)
                continue
            except (OSError, Exception) as exc:
                log.warning("sharded subscriptions: %s; retrying", exc)
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)
            with contextlib.suppress(Exception):
                await self.link.refresh()

    def _misplaced(self, channel: bytes) -> bool:
        if channel in self.placing:
            return False
        proto = self.placed.get(channel)
        return proto is None or proto.lost or proto.address != self.link.address_of(channel)

    # events from the connections -----------------------------------------------
    def _deliver(self, channel: bytes, data: bytes) -> None:
        try:
            self.deliver(channel, data)
        except Exception:  # one bad message must not take the connection down
            log.exception("a message on %r could not be delivered", channel)

    def _confirmed(self, proto: _SubProtocol, channel: bytes) -> None:
        if self.placed.get(channel) is not proto:
            return
        self.confirmed.add(channel)
        if channel in self.announce:
            self.announce.discard(channel)
            if self.reread:
                self._deliver(channel, self.reread)

    def _dropped(self, proto: _SubProtocol, channel: bytes) -> None:
        if self.placed.get(channel) is proto:
            del self.placed[channel]
            self.confirmed.discard(channel)
            if channel in self.wanted:
                self.link.refresh_soon()  # the new owner is not known here yet
                self._schedule()

    def _refused(self, proto: _SubProtocol, channel: bytes, text: str) -> None:
        if text.startswith("MOVED "):
            _, slot, address = text.split()
            self.link._set_owner(int(slot), address)
        elif channel:
            log.warning("subscription to %r refused: %s", channel, text)
        if self.placed.get(channel) is proto:
            del self.placed[channel]
        if channel in self.wanted:
            self.announce.add(channel)
            self._schedule()

    def _lost(self, proto: _SubProtocol) -> None:
        if self.conns.get(proto.address) is proto:
            del self.conns[proto.address]
        gone = [ch for ch, p in self.placed.items() if p is proto]
        for ch in gone:
            del self.placed[ch]
            self.confirmed.discard(ch)
            self.announce.add(ch)
        if gone:
            self.link.refresh_soon()
            self._schedule()
