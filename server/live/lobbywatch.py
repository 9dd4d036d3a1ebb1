"""The lobby's watchers on a node: one copy of the open seeks, views built once, updates paced.

The node keeps the open seeks in memory (``seeks``), from the lobby channel's news, read whole
from the store only when it has none yet, after a gap in the news, and every ``RESYNC_S`` while
someone watches — never once per watcher. Each watcher has a view (its filters and rating,
``server/rooms/lobbyview.py``): at most ``SHOWN`` seeks and a count of the rest per game.
Watchers with the same view share it: every ``FLUSH_S`` a view that changed is built once,
encoded once, and those bytes go to each of its watchers (adds and removes since the last
update, however many changes there were), the event loop given a turn between views. A
watcher's ``lobby`` request is answered with its view's encoded list as it was last sent; past
``ASKS`` in ``ASK_WINDOW_S`` it is refused (``lobby-limit``) and its updates go on. A node
keeps at most ``VIEWS`` different views: a request for one more is refused (``lobby-busy``),
except the view without filters.

Measured before (issue 46, 2,000 open seeks, other rooms' move p99 on the node): one address
asking ``lobby`` ~110/s, 16 -> 768 ms (each answer read every seek from the store); 200 new
watchers, -> 1,384 ms (466 KB each); seek/cancel churn at 173/s with 200 watchers, 3.3 -> 407 ms
(308,000 messages in 12 s, one per change per watcher). ``tests/bench/lobby_floods.py``
measures the same three now.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from redis.exceptions import RedisError

from server.live.connection import Conn
from server.ops import health
from server.rooms import lobbyview as LV
from server.rooms import protocol as P
from server.rooms import seeks as S
from server.rooms.room import Refused

log = logging.getLogger("nyumba.lobby")

FLUSH_S = 0.5  # a watcher gets at most 2 updates a second
ASKS, ASK_WINDOW_S = 5, 10.0  # ``lobby`` requests one connection may send in a window
RESYNC_S = 30.0  # the whole list read again this often while someone watches (news can be lost)
VIEWS = 64  # filtered views a node keeps at once: each costs ~2 ms per update (2,000 seeks)
DEFAULT = LV.key_of(S.Watch())  # the view without filters, always to be had


@dataclass(slots=True, eq=False)
class View:
    """One view's list as its watchers were last sent it, and those watchers."""

    key: LV.ViewKey
    shown: dict[str, S.SeekView]
    more: dict[str, int]
    conns: set[Conn] = field(default_factory=set)
    _full: bytes | None = None

    def full(self) -> bytes:
        """The whole list as a ``full`` message, encoded once per update of the view."""
        if self._full is None:
            message = S.Lobby(seeks=list(self.shown.values()), more=self.more, full=True)
            self._full = P.encode(message)
        return self._full

    def set(self, listed: list[S.SeekView], more: dict[str, int]) -> None:
        self.shown, self.more, self._full = {s.id: s for s in listed}, more, None


class Watchers:
    def __init__(self, read_open: Callable[[], Awaitable[list[bytes]]]):
        self.read_open = read_open  # every open seek from the store (JSON ``SeekRec``s)
        self.seeks: dict[str, S.SeekView] = {}  # the open seeks, oldest first
        self.synced = False  # ``seeks`` was read whole and followed since
        self.synced_at = 0.0
        self.dirty = False  # ``seeks`` changed since the last update
        self.rev = 0  # counts the changes to ``seeks`` (what was built for one is reused)
        self._listing: tuple[int, list[S.SeekView], dict[str, int]] | None = None
        self.views: dict[LV.ViewKey, View] = {}
        self.of: dict[Conn, View] = {}
        self.asks: dict[Conn, list[float]] = {}  # connection -> [window start, requests]
        self._syncing: list[S.SeekView | list[str]] | None = None  # news during a read
        self._sync_lock = asyncio.Lock()

    # the lobby channel's news ----------------------------------------------------------
    def opened(self, seek: S.SeekView) -> None:
        self.seeks[seek.id] = seek
        self.dirty = True
        self.rev += 1
        if self._syncing is not None:
            self._syncing.append(seek)

    def gone(self, ids: list[str]) -> None:
        for i in ids:
            if self.seeks.pop(i, None) is not None:
                self.dirty = True
                self.rev += 1
        if self._syncing is not None:
            self._syncing.append(ids)

    def lost(self) -> None:
        """News may have been missed (a resubscription): read the whole list again."""
        self.synced = False

    # a connection's requests -----------------------------------------------------------
    async def watch(self, conn: Conn, msg: S.Watch) -> None:
        if not msg.on:
            self.drop(conn, asks=False)  # its budget stays: stopping does not reset it
            return
        now = time.monotonic()
        spent = self.asks.get(conn)
        if spent is None or now - spent[0] >= ASK_WINDOW_S:
            spent = self.asks[conn] = [now, 0]
        spent[1] += 1
        if spent[1] > ASKS:
            raise Refused("lobby-limit")
        await self.fresh()
        key = LV.key_of(msg)
        view = self.views.get(key)
        if view is None:  # a view nobody has: built now, then updated with the others
            mine = self.of.get(conn)
            alone = mine is not None and len(mine.conns) == 1 and mine.key != DEFAULT
            kept = len(self.views) - (DEFAULT in self.views) - alone  # filtered views that stay
            if kept >= VIEWS and key != DEFAULT:
                raise Refused("lobby-busy")
            listed = LV.shown(key, self.seeks.values())
            view = self.views[key] = View(key, {}, {})
            view.set(listed, LV.more(listed, LV.by_game(self.seeks.values())))
        old = self.of.get(conn)
        if old is not view:
            self.drop(conn, asks=False)
            view.conns.add(conn)
            self.of[conn] = view
        conn.send(view.full())

    def drop(self, conn: Conn, asks: bool = True) -> None:
        view = self.of.pop(conn, None)
        if asks:
            self.asks.pop(conn, None)
        if view is not None:
            view.conns.discard(conn)
            if not view.conns:
                del self.views[view.key]

    async def listing(self) -> tuple[int, list[S.SeekView], dict[str, int]]:
        """The list a watcher without filters is shown, and its ``more`` (``GET /api/lobby``),
        built once per change of the open seeks: ``(rev, seeks, more)``."""
        await self.fresh()
        if self._listing is None or self._listing[0] != self.rev:
            listed = LV.shown(LV.key_of(S.Watch()), self.seeks.values())
            self._listing = (self.rev, listed, LV.more(listed, LV.by_game(self.seeks.values())))
        return self._listing

    # reading and sending ---------------------------------------------------------------
    async def fresh(self) -> None:
        """``seeks`` read whole if this node has none, news were lost or ``RESYNC_S`` passed."""
        if not self.synced or time.monotonic() - self.synced_at >= RESYNC_S:
            await self.sync()

    async def sync(self) -> None:
        """Read every open seek from the store; news that comes meanwhile is applied after."""
        async with self._sync_lock:
            if self.synced and time.monotonic() - self.synced_at < RESYNC_S:
                return  # another request read it while this one waited
            self._syncing = []
            try:
                raws = await self.read_open()
            finally:
                news, self._syncing = self._syncing, None
            fresh = {v.id: v for v in (S.view(S.decode_rec(raw)) for raw in raws)}
            # Seeks already known keep their place (the list's order is the oldest first).
            self.seeks = {i: v for i, v in self.seeks.items() if i in fresh}
            for i, v in fresh.items():
                self.seeks.setdefault(i, v)
            for what in news:
                if isinstance(what, S.SeekView):
                    self.seeks[what.id] = what
                else:
                    for i in what:
                        self.seeks.pop(i, None)
            self.synced, self.synced_at, self.dirty = True, time.monotonic(), True
            self.rev += 1

    async def flush(self) -> int:
        """Send each view that changed its update, built and encoded once; how many were sent.
        The loop gets a turn after each view (a view takes ~2 ms to build at 2,000 seeks)."""
        self.dirty = False
        if not self.views:
            return 0
        seeks = list(self.seeks.values())  # one copy for every view (news may come meanwhile)
        counts = LV.by_game(seeks)
        sent = 0
        for view in list(self.views.values()):
            await asyncio.sleep(0)
            if not view.conns:
                continue  # dropped meanwhile
            listed = LV.shown(view.key, seeks)
            adds, gone = LV.change(view.shown, listed)
            more = LV.more(listed, counts)
            if not adds and not gone and more == view.more:
                continue
            view.set(listed, more)
            data = P.encode(S.Lobby(seeks=adds, gone=gone, more=more))
            for conn in view.conns:
                conn.send(data)
            sent += len(view.conns)
        return sent

    async def run(self) -> None:
        """Every ``FLUSH_S``: the whole list read again when due, then the views' updates."""
        while True:
            await asyncio.sleep(FLUSH_S)
            try:
                if self.of:
                    await self.fresh()
                if self.dirty:
                    await self.flush()
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("the lobby's watchers could not be updated; the next round tries")
