"""The lobby on a node: its watchers, its connections' seeks, and the pairings it delivers.

A connection sends ``lobby`` to watch the open seeks (a bounded list and a count of the rest,
then paced updates: ``server/live/lobbywatch.py``), ``seek`` to post one, ``accept`` to
take a listed one and ``cancel`` to withdraw its own (``server/PROTOCOL.md``, "The lobby").
The store decides every pairing in one script (``server/store/lobby.py``); this module keeps
what only this node knows: each of its seeks' connection and seat token. A pairing's news
reaches the nodes of both seekers (the channel, or else their next refresh); each creates the
room if it is not there yet — from the pairing alone, so either may — and sends its seeker
``paired`` with the room and the seat token, once.

A seek lives with its connection: it is cancelled when the connection closes, and the node
refreshes its seeks' lease in the store every ``REFRESH_S``; a node that dies stops
refreshing, and every node's sweep drops its seeks within ``LEASE_MS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from redis.exceptions import RedisError

import engine
from server.archive import standings
from server.archive.db import DOWN, Database
from server.live.connection import Conn
from server.live.identity import DEADLINE_S, Identities
from server.live.lobbywatch import Watchers
from server.live.local import now_ms
from server.ops import health
from server.ops.config import Settings
from server.rooms import cooldowns
from server.rooms import room as R
from server.rooms import seeks as S
from server.rooms.room import Refused
from server.store.lobby import LobbyStore, seek_rules

log = logging.getLogger("nyumba.lobby")

REFRESH_S = 1.0
LEASE_MS = 3000  # a seek whose node stops refreshing is gone this long after (and a sweep)
SCAN = 64  # seeks a pairing looks at, nearest first: stale, of one player or held, at most
KEPT = 16  # answers kept per socket for resent lobby intents
RATINGS_KEPT = 10_000  # (player, game) ratings a node remembers for a slow archive


@dataclass(slots=True)
class Mine:
    """One of this node's seeks: whose connection, its seat token (shown only in ``paired``)."""

    conn: Conn
    token: str
    rec: S.SeekRec
    intent_id: str | None


def room_of(pairing: S.Pairing, abort_ms: int) -> R.Room:
    """The room a pairing makes: the same from the same pairing, on any node."""
    south, north = pairing.seeks
    spec = south if south.game else north  # an ``accept`` names no game: the listed seek's
    room, _, _ = R.create(
        pairing.room, spec.game, spec.options, "friend", "south", "intermediate",
        pairing.at_ms, clock=spec.clock, abort_ms=abort_ms,
    )  # fmt: skip
    seats = [
        R.SeatRec("person", rec.token_hash, None, pairing.at_ms, rec.name, rec.player)
        for rec in pairing.seeks
    ]
    rated = spec.rated and south.player is not None and north.player is not None
    return msgspec.structs.replace(room, seats=seats, rated=rated, started_ms=pairing.at_ms)


class Lobby:
    def __init__(
        self,
        settings: Settings,
        store: Any,
        node_id: str,
        create_room: Callable[[R.Room], Awaitable[bool]],
        archive: Database | None = None,
        identities: Identities | None = None,
    ):
        self.settings = settings
        self.node_id = node_id
        self.store = LobbyStore(store.link, store.prefix, store.sharded)
        self.create_room = create_room
        self.archive = archive
        self.identities = identities
        self.watchers = Watchers(self.store.open_seeks)
        self.known: set[Conn] = set()  # connections that used the lobby (no join deadline)
        self.mine: dict[str, Mine] = {}  # seek id -> this node's seek
        self.of_conn: dict[Conn, str] = {}  # connection -> its open seek's id
        self.answered: dict[Conn, dict[str, msgspec.Struct]] = {}  # intent ids' answers
        self.ratings: OrderedDict[tuple[str, str], tuple[int | None, bool]] = OrderedDict()
        self.pubsub = store.pubsub()
        self.pubsub.deliver = self.on_message
        self._task: asyncio.Task[None] | None = None
        self._pacing: asyncio.Task[None] | None = None
        self._delivering: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        await self.pubsub.subscribe(self.store.channel)
        self._task = asyncio.create_task(self._refresh_forever(), name="lobby")
        self._pacing = asyncio.create_task(self.watchers.run(), name="lobby-watchers")

    async def stop(self) -> None:
        for task in (self._task, self._pacing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    # the connection's messages --------------------------------------------------------
    async def handle(self, conn: Conn, msg: Any) -> None:
        self.known.add(conn)
        if isinstance(msg, S.Watch):
            await self.watchers.watch(conn, msg)
            return
        intent_id = getattr(msg, "id", None)
        kept = self.answered.get(conn, {}).get(intent_id) if intent_id else None
        if kept is not None:
            conn.send_msg(kept)
            return
        answer: msgspec.Struct | None
        if isinstance(msg, S.Cancel):
            answer = await self._cancel(conn, msg)
        else:
            answer = await self._seek(conn, msg)
        if answer is not None:
            if intent_id:
                self._keep(conn, intent_id, answer)
            conn.send_msg(answer)

    async def _seek(self, conn: Conn, msg: S.Seek | S.Accept) -> msgspec.Struct | None:
        if conn in self.of_conn:
            raise Refused("seeking")
        if len(self.mine) >= self.settings.seeks_per_node:
            raise Refused("seek-limit")
        player, name = None, msg.name  # no name sent: the player's own (server/live/identity.py)
        if self.identities is not None and conn.session:
            player, known_name = await self.identities.name_of(conn.session)
            name = name or known_name
        token, seek_id = R.new_token(), secrets.token_urlsafe(9)
        if isinstance(msg, S.Seek):
            code = S.problem(msg)
            if code is not None:
                raise Refused(code)
            try:
                game = R.load_game(msg.game, msg.options)
            except engine.BadOptions as exc:
                raise Refused("bad-message", f"Not a game to seek: {exc}") from None
            if msg.rated and player is None:
                if (
                    conn.session
                    and self.archive is not None
                    and self.archive.down_since is not None
                ):
                    raise Refused("busy", "Who you are could not be read in time; try again.")
                raise Refused("not-identified")
            options = dict(game.options)
            pool = S.pool_of(msg.game, options, msg.clock, msg.rated)
            rating, provisional = await self._rating(player, msg.game)
            rec = S.SeekRec(
                seek_id, msg.game, options, msg.clock, msg.side, msg.rated,
                hashlib.sha256(pool.encode()).hexdigest()[:20], self.node_id, conn.id,
                R.hash_token(token), conn.address, name, player, rating, provisional,
            )  # fmt: skip
            target = ""
        else:
            rec = S.SeekRec(
                seek_id, "", {}, None, "random", False, "", self.node_id, conn.id,
                R.hash_token(token), conn.address, name, player,
            )  # fmt: skip
            target = msg.seek
        self.mine[seek_id] = Mine(conn, token, rec, msg.id)
        self.of_conn[conn] = seek_id
        s = self.settings
        rules = seek_rules(
            LEASE_MS, s.seeks_per_address, secrets.token_urlsafe(12), secrets.randbelow(2),
            target, SCAN, S.rating_of(rec), s.join_deadline_ms, s.pairings_per_address,
            # both first moves' windows, and the flag watcher's lease should a node die
            s.join_deadline_ms + 2 * s.abort_ms + 60_000,
            cooldowns.WINDOW_MS, cooldowns.ladder_of(s.seek_cooldowns_ms),
        )  # fmt: skip
        try:
            kind, answer = await self.store.seek(seek_id, S.encode_rec(rec), rules)
        except BaseException:
            self._forget(seek_id)
            raise
        if kind == "paired" and answer is not None:
            await self.deliver(S.decode_pairing(answer))
            return None  # ``paired`` answered it
        if kind == "open":
            return S.Seeking(seek=seek_id, status="open", id=msg.id)
        self._forget(seek_id)
        if kind == "cooldown" and answer is not None:
            left = int(answer)
            raise Refused("cooldown", cooldowns.wait_sentence(left), left)
        if kind == "pending" and answer is not None:
            left = int(answer)
            raise Refused("pairing-pending", cooldowns.pending_sentence(left), left)
        raise Refused("seek-limit" if kind == "limit" else "no-seek")

    def rules(self) -> dict[str, Any]:
        """What the store's scripts need of ``server/rooms/cooldowns.py``'s rules."""
        ladder = cooldowns.ladder_of(self.settings.seek_cooldowns_ms)
        return {"window": cooldowns.WINDOW_MS, "ladder": list(ladder)}

    def may_be_in_flight(self, room: R.Room, now_ms: int) -> bool:
        """Whether a join of ``room`` may end a lobby pairing's flight (only then is the store
        told): a lobby room is made with both seats taken and started at once, and its seats
        are in flight for the join deadline (and until the next sweep after it)."""
        return (
            room.mode == "friend"
            and not room.arena  # an arena's rooms are the arena's (server/live/arena.py)
            and room.game_no == 1
            and room.started_ms == room.created_ms
            and now_ms - room.created_ms <= self.settings.join_deadline_ms + LEASE_MS
        )

    def judged(self, room: R.Room, deadline_ms: int) -> None:
        """A room judged at its deadline (``server/live/flags.py``): a lobby game aborted by a
        missing first move is an offence of that side's (server/rooms/cooldowns.py)."""
        side = cooldowns.no_first_move(room, deadline_ms)
        if side is not None and room.mode == "friend" and room.game_no == 1 and not room.arena:
            self._spawn(self.store.struck(room.id, side, self.rules()))

    async def joined(self, room_id: str, sides: list[int]) -> None:
        """A paired room's seats were joined: no longer in flight (server/rooms/cooldowns.py)."""
        await self.store.joined(room_id, sides)

    async def _cancel(self, conn: Conn, msg: S.Cancel) -> S.Seeking:
        mine = self.mine.get(msg.seek)
        if mine is None or mine.conn is not conn:
            raise Refused("no-seek")
        kind, pairing = await self.store.cancel(msg.seek)
        if kind == "paired" and pairing is not None:
            # Paired before the cancel reached the store (its news had not yet reached this
            # node): ``paired`` answers the seek, and the cancel, which changed nothing, gets
            # the answer it gets when the news came first.
            await self.deliver(S.decode_pairing(pairing))
            raise Refused("no-seek", "That seek was paired before the cancel; see its `paired`.")
        self._forget(msg.seek)
        return S.Seeking(seek=msg.seek, status="cancelled", id=msg.id)

    async def leave(self, conn: Conn) -> None:
        """The connection closed: its seek goes with it."""
        self.watchers.drop(conn)
        self.known.discard(conn)
        self.answered.pop(conn, None)
        seek_id = self.of_conn.get(conn)
        if seek_id is not None:
            self._forget(seek_id)
            with contextlib.suppress(RedisError):  # else its lease runs out (LEASE_MS)
                await self.store.cancel(seek_id)

    def _keep(self, conn: Conn, intent_id: str, answer: msgspec.Struct) -> None:
        """Keep the answer to a socket's intent id for its resends (its latest ``KEPT``)."""
        kept = self.answered.setdefault(conn, {})
        kept[intent_id] = answer
        if len(kept) > KEPT:
            del kept[next(iter(kept))]

    def _forget(self, seek_id: str) -> None:
        mine = self.mine.pop(seek_id, None)
        if mine is not None and self.of_conn.get(mine.conn) == seek_id:
            del self.of_conn[mine.conn]

    async def _rating(self, player: str | None, game: str) -> tuple[int | None, bool]:
        """The rating the seek shows: the archive's, or, when it does not answer within
        ``DEADLINE_S``, the last one this node read (none: the seek shows no rating, and is
        paired as ``S.DEFAULT_RATING``). The game's rating moves when it is archived."""
        if player is None or self.archive is None:
            return None, False
        db, known = self.archive, self.ratings.get((player, game), (None, False))
        try:
            rated = await db.within(DEADLINE_S, standings.rating_of, db, [player], game, now_ms())
            found = rated.get(player)
        except Exception as exc:  # the archive is slow or down: the seek goes on
            if isinstance(exc, DOWN):
                db.failed(exc)
            return known
        shown = (None, False) if found is None else (round(found.rating), found.provisional)
        self.ratings[(player, game)] = shown
        self.ratings.move_to_end((player, game))
        if len(self.ratings) > RATINGS_KEPT:
            self.ratings.popitem(last=False)
        return shown

    # pairings -------------------------------------------------------------------------
    async def deliver(self, pairing: S.Pairing) -> None:
        """Send ``paired`` to this node's seekers in the pairing (each once), the room made."""
        ours: list[tuple[int, Mine]] = []
        for side, rec in enumerate(pairing.seeks):
            m = self.mine.get(rec.id)
            if m is not None:
                ours.append((side, m))
        if not ours:
            return
        for _, m in ours:
            self._forget(m.rec.id)
        await self.create_room(room_of(pairing, self.settings.abort_ms))  # False: made already
        for side, m in ours:
            other = pairing.seeks[1 - side]
            game = pairing.seeks[side] if pairing.seeks[side].game else other
            paired = S.Paired(
                room=pairing.room, url=f"/r/{pairing.room}", side=side, token=m.token,
                seek=m.rec.id, game=game.game, options=game.options, clock=game.clock,
                rated=game.rated and other.player is not None and m.rec.player is not None,
                opponent=other.name, id=m.intent_id,
            )  # fmt: skip
            if m.intent_id:
                self._keep(m.conn, m.intent_id, paired)
            m.conn.send_msg(paired)

    def on_message(self, channel: bytes, data: bytes) -> None:
        """The lobby channel's news: kept for the watchers; a pairing delivered. A Cluster's
        subscriber also hands every channel its "read again" notice after a resubscription
        (not JSON): the lobby's own refresh each second already reads the pairings that may have
        been missed, and the watchers' list is read whole again."""
        if not data.startswith(b"{"):
            self.watchers.lost()
            return
        news = json.loads(data)
        kind = news.get("k")
        if kind == "open":
            self.watchers.opened(S.view(msgspec.convert(news["seek"], S.SeekRec)))
        else:
            self.watchers.gone(list(news.get("ids") or []))
        if kind == "paired":
            pairing = msgspec.convert(news["pairing"], S.Pairing)
            if any(rec.id in self.mine for rec in pairing.seeks):
                self._spawn(self.deliver(pairing))

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("a pairing could not be delivered; the next refresh tries again")

        task = asyncio.create_task(run())
        self._delivering.add(task)
        task.add_done_callback(self._delivering.discard)

    async def _refresh_forever(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            try:
                await self.refresh()
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("the lobby refresh failed; it goes on")

    async def refresh(self) -> None:
        """Keep this node's seeks alive; deliver pairings whose news was missed; sweep."""
        ids = list(self.mine)
        for seek_id, answer in zip(ids, await self.store.refresh(ids, LEASE_MS)):
            if answer == b"open":
                continue
            if answer:
                await self.deliver(S.decode_pairing(answer))
            elif seek_id in self.mine:
                self._forget(seek_id)  # gone (swept while this node could not refresh it)
        await self.store.sweep(self.rules())
