"""An arena's watchers on a node: its view read once per update, updates paced and bounded.

A connection that sent ``arena`` gets the view at once (``full``: the top ``TOP`` rows of the
standings, the games in progress, its own row), then an update at most every ``FLUSH_S`` while
the arena changes: the top rows that changed since the last update, the games in progress (at
most ``PLAYING``), its own row. What changes an arena is its news (the channel: a join, a
pairing, a score, the end) and its clock (the start, the end): a view is read from the store
once per update and arena, however many watch it and however much happened meanwhile, and so
are the watchers' own rows: all of them at once up to ``ALL_ROWS`` players, else theirs alone,
``OWN_ROWS`` to a round trip. Once the arena is final the view carries its podium, and the
watchers are sent it once more.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import msgspec
from redis.exceptions import RedisError

from server.live.connection import Conn
from server.ops import health
from server.rooms import arena as A
from server.rooms import protocol as P
from server.store.arena import ArenaStore

log = logging.getLogger("nyumba.arena")

FLUSH_S = 0.5  # a watcher gets at most 2 updates a second
TOP = 20  # standings rows in a view
PLAYING = 20  # games in progress in a view
ALL_ROWS = 500  # up to this many players, every row is read at once (the watchers' own rows)
OWN_ROWS = 1000  # above it, the watchers' own rows are read this many to a round trip


@dataclass(slots=True, eq=False)
class Watched:
    """One arena's watchers on this node (connection -> its player, if identified), and the
    top rows and status they were last sent."""

    spec: A.ArenaSpec
    conns: dict[Conn, str | None] = field(default_factory=dict)
    top: dict[str, A.Row] = field(default_factory=dict)
    status: str = ""
    dirty: bool = True


class ArenaWatchers:
    def __init__(
        self,
        store: ArenaStore,
        spec: Callable[[str], Awaitable[A.ArenaSpec]],
        now: Callable[[], int],
    ):
        self.store = store
        self.spec = spec
        self.now = now
        self.arenas: dict[str, Watched] = {}
        self.of: dict[Conn, set[str]] = {}

    def changed(self, arena: str) -> None:
        """The arena's news: its watchers' views are due at the next update."""
        watched = self.arenas.get(arena)
        if watched is not None:
            watched.dirty = True

    async def watch(self, conn: Conn, spec: A.ArenaSpec, on: bool, player: str | None) -> None:
        if not on:
            self._drop_one(conn, spec.id)
            return
        watched = self.arenas.setdefault(spec.id, Watched(spec))
        watched.conns[conn] = player
        self.of.setdefault(conn, set()).add(spec.id)
        view, rows = await self.view(spec, full=True)
        # A flush during that read may have sent the others newer rows (and recorded them in
        # ``top``), or older ones: the next flush sends every top row again, to every watcher,
        # so this one ends on the current table whichever read came last.
        watched.top = {}
        watched.dirty = True
        watched.status = view.status
        conn.send(P.encode(msgspec.structs.replace(view, me=await self._me(spec, rows, player))))

    async def again(self, conn: Conn, arena: str, on: bool) -> None:
        """A resent ``arena`` (its id answered already): the full view once more if the
        connection still watches the arena; nothing else changes."""
        watched = self.arenas.get(arena)
        if on and watched is not None and conn in watched.conns:
            await self.watch(conn, watched.spec, True, watched.conns[conn])

    def drop(self, conn: Conn) -> None:
        for arena in self.of.pop(conn, set()):
            self._drop_one(conn, arena, keep=True)

    def _drop_one(self, conn: Conn, arena: str, keep: bool = False) -> None:
        watched = self.arenas.get(arena)
        if watched is not None:
            watched.conns.pop(conn, None)
            if not watched.conns:
                del self.arenas[arena]
        if not keep:
            self.of.get(conn, set()).discard(arena)

    async def view(
        self, spec: A.ArenaSpec, full: bool, top: dict[str, A.Row] | None = None
    ) -> tuple[A.ArenaView, dict[str, A.Row] | None]:
        """The arena's view now (without ``me``), and every row by player when the arena is
        small enough to read them all at once (None: read each watcher's own)."""
        finished = await self.store.is_finished(spec.id)
        now = self.now()
        players = await self.store.players(spec.id)
        rows: dict[str, A.Row] | None = None
        if players <= ALL_ROWS:
            every = await self.store.standings(spec.id, 0, max(players, TOP))
            rows = {row.player: row for row in every}
            shown = every[:TOP]
        else:
            shown = await self.store.standings(spec.id, 0, TOP)
        if not full and top is not None:  # an update: the rows that changed
            shown = [row for row in shown if top.get(row.player) != row]
        view = A.ArenaView(
            arena=spec,
            status=A.status(spec, now, finished),
            now_ms=now,
            full=full,
            standings=shown,
            me=None,
            players=players,
            playing=[] if finished else await self.store.playing(spec.id, PLAYING),
            podium=shown[:3] if finished and full else [],
        )
        if finished and not full:
            view = msgspec.structs.replace(view, podium=await self.store.standings(spec.id, 0, 3))
        return view, rows

    async def _me(
        self, spec: A.ArenaSpec, rows: dict[str, A.Row] | None, player: str | None
    ) -> A.Row | None:
        if player is None:
            return None
        if rows is not None:
            return rows.get(player)
        return await self.store.row(spec.id, player)

    async def _own_rows(self, arena: str, players: Iterable[str | None]) -> dict[str, A.Row]:
        """The rows of the watchers' players, ``OWN_ROWS`` to a round trip (not one each)."""
        wanted = list(dict.fromkeys(p for p in players if p is not None))
        rows: dict[str, A.Row] = {}
        for start in range(0, len(wanted), OWN_ROWS):
            rows.update(await self.store.rows(arena, wanted[start : start + OWN_ROWS]))
        return rows

    async def flush(self) -> int:
        """Send each arena that changed (or whose status did) its update: read once, each
        watcher given its own row; how many were sent."""
        sent = 0
        now = self.now()
        for watched in list(self.arenas.values()):
            await asyncio.sleep(0)
            if (
                A.status(watched.spec, now, False) != watched.status
                and watched.status != "finished"
            ):
                watched.dirty = True
            if not watched.dirty or not watched.conns:
                continue
            watched.dirty = False  # news during the read below makes it due again
            try:
                view, rows = await self.view(watched.spec, full=False, top=watched.top)
            except Exception:
                watched.dirty = True  # the next round tries again
                raise
            for row in view.standings:
                watched.top[row.player] = row
            watched.status = view.status
            if rows is None:
                rows = await self._own_rows(watched.spec.id, watched.conns.values())
            for conn, player in list(watched.conns.items()):
                me = None if player is None else rows.get(player)
                conn.send(P.encode(msgspec.structs.replace(view, me=me)))
                sent += 1
        return sent

    async def run(self) -> None:
        """Every ``FLUSH_S``: the updates of the arenas that changed."""
        while True:
            started = time.monotonic()
            try:
                await self.flush()
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("the arenas' watchers could not be updated; the next round tries")
            await asyncio.sleep(max(0.05, FLUSH_S - (time.monotonic() - started)))
