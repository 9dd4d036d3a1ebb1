"""Arenas on a node: its players' waiting sockets, the pairings it delivers, and each game's end.

A connection sends ``arena`` to watch an arena (``server/live/arenawatch.py``: paced views),
``arena-join`` to join it and wait for a game on this socket, ``arena-pause`` to stop being
paired (``server/PROTOCOL.md``, "Arenas"). The store decides every pairing in one script per
arena slot (``server/store/arena.py``); this module keeps what only this node knows: each
waiting player's socket and seat token. A pairing reaches the nodes of both players (the
arena's channel, else their next ``refresh``, which takes the pairings left for them); each
makes the room if it is not there yet — from the pairing and the arena alone (``room_of``), so
either may — and sends its player ``arena-paired`` with the room and the seat token, once.

A player waits while a socket of theirs that said ``arena-join`` is open: the node refreshes
their lease every ``REFRESH_S``; a node that dies stops refreshing, and the store's sweep drops
its waiters within ``LEASE_MS``. A join that comes while the player's last game is not scored
yet (their socket heard the end before the store did) is kept here and asked again when the
arena's news comes, and at every refresh.

A game's end is scored by the node whose compare-and-set ended it (``ended``, called by
``Node.change``); the rounds (``server/live/arenarounds.py``) score any the store still lists
as playing whose room ended or is gone, so a node killed between the two loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from redis.exceptions import RedisError

from server.archive import standings
from server.archive.db import DOWN, Database
from server.live.answers import Answers, Refusal
from server.live.arenawatch import ArenaWatchers
from server.live.connection import Conn
from server.live.identity import DEADLINE_S, Identities
from server.live.local import now_ms
from server.ops import health, metrics
from server.ops.config import Settings
from server.rooms import arena as A
from server.rooms import room as R
from server.rooms.arenaroom import result_of, room_of
from server.rooms.room import Refused
from server.store.arena import ArenaStore

log = logging.getLogger("nyumba.arena")

REFRESH_S = 1.0
LEASE_MS = 4000  # a waiter whose node stops refreshing is dropped this long after
SCAN = 64  # waiting players a pairing looks at, nearest in points first
TOKENS_KEPT = 100_000  # players' seat tokens a node keeps (the latest used)


@dataclass(slots=True)
class Waiter:
    """A player waiting on this node: their socket, its seat token (shown in ``arena-paired``
    only), the intent id to answer with, and whether the store has them listed (False: their
    last game was not scored yet when they asked)."""

    conn: Conn
    token: str
    intent_id: str | None
    listed: bool = False
    since: float = field(default_factory=time.monotonic)  # the pairing wait's start (metrics)


class Arenas:
    def __init__(
        self,
        settings: Settings,
        store: Any,
        node_id: str,
        create_room: Callable[[R.Room], Awaitable[bool]],
        now: Callable[[], int],
        archive: Database | None = None,
        identities: Identities | None = None,
    ):
        self.settings = settings
        self.now = now
        self.node_id = node_id
        self.store = ArenaStore(store.link, store.prefix, store.sharded)
        self.create_room = create_room
        self.archive = archive
        self.identities = identities
        self.specs: dict[str, A.ArenaSpec] = {}
        self.waiting: dict[tuple[str, str], Waiter] = {}  # (arena, player) -> their socket
        self.of_conn: dict[Conn, set[tuple[str, str]]] = {}
        self.delivered: dict[tuple[str, int], None] = {}  # (room, side) sent, the latest
        self.tokens: dict[tuple[str, str], str] = {}  # (arena, player) -> seat token (``_token``)
        self.subscribed: set[str] = set()
        self.known: set[Conn] = set()  # connections that used the arenas (no join deadline)
        self.watchers = ArenaWatchers(self.store, self.spec, now)
        self.answers = Answers()  # each socket's answers to its intent ids (their resends)
        self.pubsub = store.pubsub()
        self.pubsub.deliver = self.on_message
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._refresh_forever(), name="arenas"),
            asyncio.create_task(self.watchers.run(), name="arena-watchers"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    async def spec(self, arena: str) -> A.ArenaSpec:
        """The arena's spec (kept: a spec never changes); ``no-arena`` if there is none."""
        spec = self.specs.get(arena)
        if spec is None:
            spec = await self.store.get(arena)
            if spec is None:
                raise Refused("no-arena")
            self.specs[arena] = spec
        return spec

    async def follow(self, arena: str) -> None:
        """Hear the arena's news on this node (pairings, scores) from now on."""
        if arena not in self.subscribed:
            self.subscribed.add(arena)
            await self.pubsub.subscribe(self.store.channel(arena))

    # the connection's messages --------------------------------------------------------
    async def handle(self, conn: Conn, msg: Any) -> None:
        """Judge the message; a resent intent id is answered as it was, and judged no more."""
        self.known.add(conn)
        kept = self.answers.of(conn, msg.id)
        if kept is None:
            try:
                return await self._judge(conn, msg)
            except Refused as refused:
                self.answers.refused(conn, msg.id, refused)
                raise
        for answer in kept:
            if isinstance(answer, Refusal):
                raise answer.again()
            if isinstance(answer, A.ArenaWatch):  # still watching: the view now, in full
                await self.watchers.again(conn, answer.arena, answer.on)
            else:
                conn.send_msg(answer)

    async def _judge(self, conn: Conn, msg: Any) -> None:
        spec = await self.spec(msg.arena)
        await self.follow(spec.id)
        who = await self._player(conn)
        if isinstance(msg, A.ArenaWatch):
            await self.watchers.watch(conn, spec, msg.on, who[0] if who else None)
            self.answers.keep(conn, msg.id, msg)
            return
        if who is None:
            raise Refused("not-identified", "Only an identified player can play in an arena.")
        player, name = who
        try:
            if isinstance(msg, A.ArenaPause):
                self._forget(spec.id, player)
                await self.store.pause(spec.id, player)
                self._answer(conn, msg.id, A.ArenaJoined(arena=spec.id, paused=True, id=msg.id))
                self.watchers.changed(spec.id)
                return
            rating = await self._rating(player, spec.game)
            await self.store.join(spec.id, player, name, rating)
        except A.ArenaRefused as r:
            raise Refused(r.code, r.message) from None
        old = self.waiting.get((spec.id, player))
        if old is not None and old.conn is not conn:
            self._forget(spec.id, player)
        waiter = Waiter(conn, self._token(spec.id, player), msg.id)
        self.waiting[(spec.id, player)] = waiter
        self.of_conn.setdefault(conn, set()).add((spec.id, player))
        self.watchers.changed(spec.id)
        self._answer(conn, msg.id, A.ArenaJoined(arena=spec.id, paused=False, id=msg.id))
        await self._wait(spec.id, player, waiter)

    def _answer(self, conn: Conn, intent_id: str | None, answer: msgspec.Struct) -> None:
        self.answers.keep(conn, intent_id, answer)
        conn.send_msg(answer)

    async def _player(self, conn: Conn) -> tuple[str, str | None] | None:
        if self.identities is None or not conn.session:
            return None
        player, name = await self.identities.name_of(conn.session)
        return None if player is None else (player, name)

    async def _rating(self, player: str, game: str) -> int | None:
        """The player's rating in the arena's game, for pairing (None: none, or the archive
        did not answer within ``DEADLINE_S``)."""
        if self.archive is None:
            return None
        db = self.archive
        try:
            found = await db.within(DEADLINE_S, standings.rating_of, db, [player], game, now_ms())
        except Exception as exc:
            if isinstance(exc, DOWN):
                db.failed(exc)
            return None
        standing = found.get(player)
        return None if standing is None else round(standing.rating)

    async def _wait(self, arena: str, player: str, waiter: Waiter) -> None:
        """Ask the store to pair the player now or list them; a pairing is delivered."""
        s = self.settings
        kind, pairing = await self.store.why_wait(
            arena, player, R.hash_token(waiter.token), self.node_id, LEASE_MS,
            secrets.token_urlsafe(12), secrets.randbelow(2), s.arena_rematch_ms, SCAN,
        )  # fmt: skip
        if pairing is not None:
            await self.deliver(pairing)
            return
        # "playing": their last game was not scored yet when they asked: kept, asked again.
        waiter.listed = kind != "playing"
        if kind not in ("waiting", "playing"):  # over, paused meanwhile, not joined
            self._forget(arena, player)

    async def leave(self, conn: Conn) -> None:
        """The connection closed: it no longer waits, nor watches."""
        self.known.discard(conn)
        self.watchers.drop(conn)
        self.answers.drop(conn)
        for arena, player in self.of_conn.pop(conn, set()):
            waiter = self.waiting.get((arena, player))
            if waiter is not None and waiter.conn is conn:
                del self.waiting[(arena, player)]
                # No longer waiting — unless on another socket since (another tab, node).
                with contextlib.suppress(RedisError):  # else its lease runs out (LEASE_MS)
                    await self.store.unwait(arena, player, self.node_id, R.hash_token(waiter.token))

    def _token(self, arena: str, player: str) -> str:
        """The player's seat token on this node in this arena: one for all their games here,
        so that a pairing made for an earlier ``arena-join`` (or socket) of theirs still
        reaches them when they asked again meanwhile."""
        token = self.tokens.pop((arena, player), None) or R.new_token()
        self.tokens[(arena, player)] = token  # the latest used last
        while len(self.tokens) > TOKENS_KEPT:
            del self.tokens[next(iter(self.tokens))]
        return token

    def _forget(self, arena: str, player: str) -> None:
        waiter = self.waiting.pop((arena, player), None)
        if waiter is not None:
            self.of_conn.get(waiter.conn, set()).discard((arena, player))

    # pairings -------------------------------------------------------------------------
    async def deliver(self, pairing: A.Pairing) -> None:
        """Send ``arena-paired`` to this node's players in the pairing (each once), the room
        made first."""
        ours: list[tuple[int, Waiter]] = []
        for index, side in enumerate(pairing.sides):
            waiter = self.waiting.get((pairing.arena, side.player))
            if waiter is None or (pairing.room, index) in self.delivered:
                continue
            if side.node == self.node_id and R.hash_token(waiter.token) == side.token_hash:
                ours.append((index, waiter))
            elif side.node != self.node_id:
                self._forget(pairing.arena, side.player)  # waiting on another node since
        if not ours:
            return
        spec = await self.spec(pairing.arena)
        for index, _ in ours:
            self._forget(pairing.arena, pairing.sides[index].player)
            self.delivered[(pairing.room, index)] = None
        while len(self.delivered) > 10_000:
            del self.delivered[next(iter(self.delivered))]
        if await self.create_room(room_of(spec, pairing, self.settings.abort_ms)):
            metrics.ARENA_GAMES_STARTED.labels(spec.game).inc()  # once: the room's maker
        for index, waiter in ours:
            metrics.ARENA_PAIRING_WAIT.observe(time.monotonic() - waiter.since)
            other = pairing.sides[1 - index]
            paired = A.ArenaPaired(
                arena=spec.id, room=pairing.room, url=f"/r/{pairing.room}", side=index,
                token=waiter.token, opponent=other.name, game=spec.game, options=spec.options,
                clock=spec.clock, rated=spec.rated, berserk=spec.berserk, id=waiter.intent_id,
            )  # fmt: skip
            self.answers.add(waiter.conn, waiter.intent_id, paired)  # its resend: this again
            waiter.conn.send_msg(paired)
        self.watchers.changed(spec.id)

    def on_message(self, channel: bytes, data: bytes) -> None:
        """An arena's news: its watchers' views are due; a pairing is delivered; players whose
        join waited for their last game's score ask again. A Cluster's subscriber also hands
        every channel a "read again" notice after a resubscription (not JSON): the refresh
        each second takes the pairings that may have been missed."""
        arena = channel.decode().rsplit("{arena:", 1)[-1].rstrip("}")
        self.watchers.changed(arena)
        if not data.startswith(b"{"):
            return
        news = json.loads(data)
        if news.get("k") == "final":  # nothing more will come: the watchers' last view is due
            self.subscribed.discard(arena)
            self._spawn(self.pubsub.unsubscribe(self.store.channel(arena)))
            return
        pairing = news.get("pairing")
        if pairing is not None:
            found = msgspec.convert(pairing, A.Pairing)
            if any((found.arena, s.player) in self.waiting for s in found.sides):
                self._spawn(self.deliver(found))
        if any(not w.listed for (a, _), w in self.waiting.items() if a == arena):
            self._spawn(self._retry(arena))

    async def _retry(self, arena: str) -> None:
        for (a, player), waiter in list(self.waiting.items()):
            if a == arena and not waiter.listed and self.waiting.get((a, player)) is waiter:
                await self._wait(a, player, waiter)

    # a game's end ---------------------------------------------------------------------
    def ended(self, room: R.Room) -> None:
        """The compare-and-set of this node ended an arena game: score it (in a task; the
        rounds score it if this fails or the node dies first)."""
        self._spawn(self.finish(room))

    async def finish(self, room: R.Room) -> bool:
        """Score the ended arena game once (False: scored before)."""
        result, paused = result_of(room)
        players = [seat.player or "" for seat in room.seats]
        berserk = list(room.berserk) or [False, False]
        ended = room.finished_ms or self.now()  # the archive's ``ended_ms`` of the game
        return await self.score(
            room.arena, room.id, room.game_no, room.game, players, result, berserk, ended, paused
        )

    async def score(
        self,
        arena: str,
        room: str,
        game_no: int,
        game: str,
        players: list[str],
        result: list[A.Result] | None,
        berserk: list[bool],
        ended_ms: int,
        paused: int | None = None,
    ) -> bool:
        """Score a game of the arena once (``result`` None: aborted, or lost); its players
        waiting on this node who asked before it was scored are asked for again."""
        scored = await self.store.finish(
            arena, room, game_no, players, result, berserk, ended_ms, paused
        )
        if scored:
            kind = "aborted" if result is None else "draw" if result[0] == "draw" else "decisive"
            metrics.ARENA_GAMES_FINISHED.labels(game, kind).inc()
            self.watchers.changed(arena)
            for player in players:
                waiter = self.waiting.get((arena, player))
                if waiter is not None and not waiter.listed:
                    await self._wait(arena, player, waiter)
        return scored

    def _spawn(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await work
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("arena work failed; the next round tries again")

        task = asyncio.create_task(run())
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    # refreshing -----------------------------------------------------------------------
    async def _refresh_forever(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            try:
                await self.refresh()
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("the arenas' refresh failed; it goes on")

    async def refresh(self) -> None:
        """Keep this node's waiters alive, deliver the pairings left for them, and ask again
        for those whose last game was not scored when they asked."""
        arenas = sorted({arena for arena, _ in self.waiting})
        if not arenas:
            return
        for pairing in await self.store.refresh(self.node_id, LEASE_MS, arenas):
            await self.deliver(pairing)
        for arena in arenas:
            await self._retry(arena)
