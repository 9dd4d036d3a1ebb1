"""Who a connection's player is: its session cookie's token, looked up in the archive once
and remembered for a while (``TTL_S``), so a join costs no database round trip after the
first. A database that does not answer makes a player unknown for that join — the seat is
still taken, only not linked to the player (play never waits for the archive).

A session that ends (its player deleted, its browser signed out) is revoked in the store
(``server/store/revoked.py``), and every use of a remembered session asks the store whether
it was (one ``EXISTS``): every node refuses it at once, not after its memory lapses. A store
that does not answer makes the player unknown for that use too. The first use of a player's
session (a seat, a seek, a room) marks the player used, beside the join, which keeps it past
the retention of players nobody ever used (``server/archive/players.py``).

The player's name comes with the same lookup and is remembered with it (``name_of``): a seek or
a join that carries no name takes it, with no database read of its own. A rename through this
node is remembered at once (``renamed``); one through another node is seen here when this node
asks the archive again, within ``TTL_S``."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from typing import NamedTuple

from redis.exceptions import RedisError

from server.archive import players
from server.archive.db import DOWN, Database
from server.live.local import now_ms
from server.store import revoked
from server.store.store import Store

log = logging.getLogger("nyumba.identity")

TTL_S = 60.0  # how long a node remembers a session (a revoked one is refused meanwhile)
REVOKED_MS = int(2 * TTL_S * 1000)  # a revocation outlives every node's memory of the session
KEPT = 10_000  # sessions remembered per node
DEADLINE_S = 0.5  # a join waits at most this long for the archive to say who it is
DOWN_RETRY_S = 5.0  # while the archive is down, it is asked at most this often


class Known(NamedTuple):
    """What a node remembers of a session."""

    player: str | None  # None: no such session
    until: float  # remembered until (``time.monotonic``)
    used: bool  # its player is marked used (``players.mark_used``), or needs not be
    name: str | None = None  # the player's name when it was looked up (or renamed here)


class Identities:
    def __init__(self, db: Database, store: Store | None = None) -> None:
        self.db = db
        self.store = store  # the app's is set once it is open (server/web/app.py)
        self._known: collections.OrderedDict[str, Known] = collections.OrderedDict()  # by hash
        self._down_until = 0.0
        self._marking: set[asyncio.Task[None]] = set()

    async def player(self, token: str | None) -> str | None:
        """The player whose session ``token`` is (None: none, revoked, or the archive or the
        store is down)."""
        known = await self._known_of(token)
        return None if known is None else known.player

    async def name_of(self, token: str | None) -> tuple[str | None, str | None]:
        """The player whose session ``token`` is, as ``player`` says, and that player's name
        (None: they chose none, or the player is unknown)."""
        known = await self._known_of(token)
        return (None, None) if known is None else (known.player, known.name)

    async def _known_of(self, token: str | None) -> Known | None:
        if not token or len(token) > 128:
            return None
        session = players.hash_session(token)
        known = await self._recalled(token, session)
        if known is None or known.player is None:
            return None
        try:
            if await self._revoked(session):
                self._known.pop(session, None)
                return None
        except RedisError as exc:
            log.debug("a session's revocation unchecked (%s): its player unknown this time", exc)
            return None
        if not known.used:  # its first seat, seek or room: written aside, the join goes on
            self._known[session] = known._replace(used=True)
            task = asyncio.create_task(self._mark_used(known.player))
            self._marking.add(task)
            task.add_done_callback(self._marking.discard)
        return known

    async def _recalled(self, token: str, session: str) -> Known | None:
        hit = self._known.get(session)
        if hit is not None and hit.until > time.monotonic():
            return hit
        if time.monotonic() < self._down_until:
            return hit
        try:
            found = await self.db.within(DEADLINE_S, players.by_session, self.db, token, now_ms())
        except (*DOWN, TimeoutError) as exc:
            self.db.failed(exc)
            self._down_until = time.monotonic() + DOWN_RETRY_S
            return hit
        if found is None:
            return self._remember(session, None, used=True)
        return self._remember(session, found.id, used=found.used, name=found.name)

    async def _mark_used(self, player: str) -> None:
        try:
            await players.mark_used(self.db, player, now_ms())
        except DOWN as exc:  # a lookup after this node forgets the session tries again
            self.db.failed(exc)

    async def _revoked(self, session: str) -> bool:
        return self.store is not None and await revoked.revoked(self.store, session)

    def remember(self, token: str, player: str, used: bool = True, name: str | None = None) -> None:
        """A session made here: known without asking the archive (``used``: its player needs
        no marking when it takes a seat)."""
        self._remember(players.hash_session(token), player, used, name)

    def renamed(self, token: str, player: str, name: str | None) -> None:
        """``player`` renamed themselves through this node with session ``token``: its next
        seek or join without a name takes the new one."""
        known = self._known.get(players.hash_session(token))
        if known is not None and known.player == player:
            self._known[players.hash_session(token)] = known._replace(name=name)

    def _remember(
        self, session: str, player: str | None, used: bool, name: str | None = None
    ) -> Known:
        known = self._known[session] = Known(player, time.monotonic() + TTL_S, used, name)
        self._known.move_to_end(session)
        while len(self._known) > KEPT:
            self._known.popitem(last=False)
        return known

    async def revoke(self, sessions: list[str]) -> None:
        """These sessions (their hashes) ended: forgotten here, refused by every node. A store
        that does not answer leaves other nodes honouring them until they forget them."""
        for session in sessions:
            self._known.pop(session, None)
        if self.store is None or not sessions:
            return
        try:
            await revoked.revoke(self.store, sessions, REVOKED_MS)
        except RedisError as exc:
            log.warning(
                "%d sessions ended but are not revoked in the store (%s): other nodes may "
                "honour them for up to %.0f s",
                len(sessions),
                exc,
                TTL_S,
            )
