"""Who a connection's player is: its session cookie's token, looked up in the archive once
and remembered for a while (``TTL_S``), so a join costs no database round trip after the
first. A database that does not answer makes a player unknown for that join — the seat is
still taken, only not linked to the player (play never waits for the archive)."""

from __future__ import annotations

import collections
import logging
import time

from server.archive import players
from server.archive.db import DOWN, Database
from server.live.local import now_ms

log = logging.getLogger("nyumba.identity")

TTL_S = 60.0  # a signed-out or deleted identity is forgotten by every node within this
KEPT = 10_000  # sessions remembered per node
DEADLINE_S = 0.5  # a join waits at most this long for the archive to say who it is
DOWN_RETRY_S = 5.0  # while the archive is down, it is asked at most this often


class Identities:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._known: collections.OrderedDict[str, tuple[str | None, float]] = (
            collections.OrderedDict()
        )
        self._down_until = 0.0

    async def player(self, token: str | None) -> str | None:
        """The player whose session ``token`` is (None: none, or the archive is down)."""
        if not token or len(token) > 128:
            return None
        hit = self._known.get(token)
        if hit is not None and hit[1] > time.monotonic():
            return hit[0]
        if time.monotonic() < self._down_until:
            return hit[0] if hit else None
        try:
            found = await self.db.within(DEADLINE_S, players.by_session, self.db, token, now_ms())
        except (*DOWN, TimeoutError) as exc:
            self.db.failed(exc)
            self._down_until = time.monotonic() + DOWN_RETRY_S
            return hit[0] if hit else None
        self.remember(token, found.id if found else None)
        return found.id if found else None

    def remember(self, token: str, player: str | None) -> None:
        self._known[token] = (player, time.monotonic() + TTL_S)
        self._known.move_to_end(token)
        while len(self._known) > KEPT:
            self._known.popitem(last=False)

    def forget(self, token: str) -> None:
        self._known.pop(token, None)
