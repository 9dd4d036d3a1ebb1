"""The arenas' rounds on every node: the store's sweep, the check of games the store lists as
playing, the end of an arena, and the operator's schedule.

Every ``ROUND_S`` each node:

1. sweeps the arenas in the store (``ArenaStore.sweep``): stale waiters dropped, waiting players
   left over paired (their anti-rematch wait passed, or the arena just started), absent ones
   paused; the pairings of this node's players delivered (the others' nodes take theirs from
   the channel or their refresh);
2. reads the room of every game the store lists as playing and scores those that ended — or
   whose room is gone, or was never made, past ``LOST_MS`` (aborted: nobody scores) — so a node
   killed after its compare-and-set ended a game, before it scored it, loses no game or point
   (``finish`` counts each game once, whoever asks);
3. finalizes each arena whose end has passed with nothing left playing: one node claims it,
   writes the final standings to the archive (``server/archive/arenas.py`` ``finalize``, once)
   and marks it finished in the store, which tells its watchers (the podium);

and every ``SCHEDULE_S`` creates the operator's arenas (``NYUMBA_ARENAS``) starting within
``AHEAD_MS``: each occurrence's id is derived from its entry and start, so it is created once
whichever nodes see it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable

from redis.exceptions import RedisError

from server.archive import arenas as archived
from server.archive.db import DOWN, Database
from server.live.arena import LEASE_MS, Arenas
from server.ops import health, metrics
from server.ops.config import Settings
from server.rooms import arena as A
from server.rooms.stored import decode_room
from server.store.store import Store

log = logging.getLogger("nyumba.arena")

ROUND_S = 1.0
SCHEDULE_S = 60.0
AHEAD_MS = 3_600_000  # a scheduled arena is created this long before it starts, at most
HOOK_MS = 2000  # a game ended this long ago and not scored: its node did not (``ended``)
CLAIM_MS = 30_000  # one node finalizes an arena at a time, for at most this long
ALL = 1_000_000  # "every row", "every game"


class Rounds:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        arenas: Arenas,
        archive: Database | None,
        now: Callable[[], int],
    ):
        self.settings = settings
        self.store = store
        self.arenas = arenas
        self.archive = archive
        self.now = now
        self.schedule = A.parse_schedule(settings.arenas)  # checked when settings are read
        self._scheduled_at = 0.0

    async def run(self) -> None:
        while True:
            await asyncio.sleep(ROUND_S)
            try:
                await self.round()
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("an arenas' round failed; the next one tries again")

    async def round(self) -> None:
        if self.schedule and time.monotonic() - self._scheduled_at >= SCHEDULE_S:
            await self.create_scheduled()
            self._scheduled_at = time.monotonic()
        store, s = self.arenas.store, self.settings
        now = self.now()
        listed = await store.listing(now)
        live = [spec for spec in listed if now >= spec.starts_ms]
        counted = Counter(A.status(spec, now, False) for spec in listed)
        for status in ("upcoming", "running", "ending"):
            metrics.ARENAS.labels(status).set(counted[status])
        if not live:
            return
        new_room = lambda: secrets.token_urlsafe(12)  # noqa: E731
        ids = [spec.id for spec in live]
        for pairing in await store.sweep(now, new_room, s.arena_rematch_ms, s.arena_absent_ms, ids):
            await self.arenas.deliver(pairing)
        for spec in live:
            self.arenas.specs.setdefault(spec.id, spec)
            left = await self.check_playing(spec, now)
            if now >= spec.ends_ms and not left:
                await self.finalize(spec)

    async def check_playing(self, spec: A.ArenaSpec, now: int) -> int:
        """Score the games of the arena whose room ended or is lost; how many still play."""
        left = 0
        lost_ms = self.settings.join_deadline_ms + 2 * self.settings.abort_ms + LEASE_MS
        for game in await self.arenas.store.playing(spec.id, ALL):
            data, _ = await self.store.load(game.room)
            if data is not None:
                room = decode_room(data)
                if room.outcome is None:
                    left += 1
                    continue
                if now - room.finished_ms < HOOK_MS:  # its node's hook is scoring it now
                    left += 1
                elif await self.arenas.finish(room):  # its node died, or its score failed
                    log.info("arena %s: game %s scored by the rounds", spec.id, room.id)
            elif now - game.started_ms > lost_ms:
                # Never made (both players' nodes died first) or gone: nobody scores.
                await self.arenas.score(
                    spec.id, game.room, 1, spec.game, game.players, None, [False, False], now
                )
            else:
                left += 1
        return left

    async def finalize(self, spec: A.ArenaSpec) -> None:
        """The arena is over: its final standings in the archive (once), then finished."""
        store = self.arenas.store
        if await store.is_finished(spec.id):
            return
        if not await store.claim(spec.id, self.arenas.node_id, CLAIM_MS):
            return  # another node finalizes it
        rows = await store.standings(spec.id, 0, ALL)
        if self.archive is not None:
            try:
                await archived.finalize(self.archive, spec, rows)
            except DOWN as exc:  # the next round tries again, once the claim lapses
                self.archive.failed(exc)
                return
        await store.mark_finished(spec.id)
        self.arenas.watchers.changed(spec.id)

    async def create_scheduled(self) -> None:
        """The schedule's next arenas starting within ``AHEAD_MS``, created once."""
        now = self.now()
        for entry in self.schedule:
            starts = A.next_start(entry, now)
            if starts - now > AHEAD_MS:
                continue
            if await self.arenas.store.create(A.scheduled_spec(entry, starts, now)):
                metrics.ARENAS_CREATED.labels("schedule").inc()
