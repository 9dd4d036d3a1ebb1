"""Arenas in the store: each arena's keys in one hash slot, its scripts atomic on one master.

Every key of an arena carries the ``{arena:<id>}`` hash tag, so on a Cluster the whole arena
lives in one slot and each script below runs atomically there (``<k>`` is
``<prefix>arena:{arena:<id>}:``)::

    <k>meta       hash: spec -> the ArenaSpec (JSON); finished -> "1" once final
    <k>sheets     hash: player -> their sheet (JSON: name, rating, points, games, wins, draws,
                  losses, streak, berserks, sheet, doubled, paused, souths, last (opponent),
                  changed_ms)
    <k>order      sorted set: player -> the standings key (server/rooms/arena.py order_key);
                  rank = ZRANK + 1 (equal keys by player id)
    <k>waiting    sorted set: waiting player -> points (pairing looks nearest in points)
    <k>lease      sorted set: waiting player -> alive until (store ms; their node refreshes it)
    <k>waiter     hash: waiting player -> {token_hash, node, since} (JSON)
    <k>node:<n>   set: the players node <n> keeps waiting (its ``refresh``)
    <k>mail:<n>   list: pairings of node <n>'s players not yet taken by its ``refresh``
    <k>playing    hash: player -> the room of their game in progress
    <k>games      hash: room -> the game in progress (ArenaGame, JSON)
    <k>done       set: "<room>/<game_no>" already scored (``finish`` counts each game once)
    <k>results    list: the finished games (JSON: room, players, result, points, ended_ms)
    <k>seen       sorted set: joined, unpaused player -> when last waiting, playing or joined
    <k>claim      string: the node finalizing the arena (a lease)
    channel <prefix>arena:{arena:<id>}   the arena's news (JSON), each a change of the
                  standings or of the games in progress:
                  {"k": "joined", "player"}, {"k": "paused", "player", "absent"?: true},
                  {"k": "paired", "pairing": Pairing}, {"k": "finished", "room", "players",
                  "points" (per side), "paused": player | null}, {"k": "final"}

and the listing, a second slot written separately (after the arena's own keys)::

    <prefix>arena:{arenas}:index   sorted set: arena id -> starts_ms (not yet finished)

Pairing is one script (``WAIT``, ``server/store/arenascripts.py``): it refuses a player who is
not joined, paused or playing; before the start it only lists them; after the end it pairs
nobody; while running it pairs them with the waiting player nearest in points (then in rating
at join, then the longest waiting), never the previous opponent unless both have waited the
rematch time — drops every stale waiter it meets — or lists them as waiting. Sides: the one
with fewer souths takes south (the coin on equal). A player is never in two arena games: the
pairing moves both out of ``waiting`` into ``playing`` in the same script. Times are the
store's (``TIME``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from typing import Any, Literal

import msgspec

from server.rooms.arena import (
    ArenaGame,
    ArenaRefused,
    ArenaSpec,
    GameResult,
    Pairing,
    Row,
    decode_pairing,
    decode_spec,
    encode,
)
from server.store.arenascripts import (
    CLAIM,
    CREATE,
    FINAL,
    FINISH,
    JOIN,
    PAUSE,
    REFRESH,
    STANDINGS,
    SWEEP,
    UNWAIT,
    WAIT,
)

__all__ = ["ArenaStore", "Pairing"]

Result = Literal["win", "draw", "loss"]
LISTED = 500  # the most arenas the listing reads


class _Sheet(msgspec.Struct):
    """A player's sheet as the scripts keep it (``arenascripts.py`` names the fields)."""

    n: str | None = None
    r: int | None = None
    pts: int = 0
    g: int = 0
    w: int = 0
    d: int = 0
    l: int = 0  # noqa: E741 (the scripts' short name for losses)
    st: int = 0
    b: int = 0
    sh: str = ""
    dl: str = ""  # one character a game of sh: '1' where its points were doubled
    pa: int = 0


_decode_sheet = msgspec.json.Decoder(_Sheet).decode
_decode_game = msgspec.json.Decoder(ArenaGame).decode
_decode_result = msgspec.json.Decoder(GameResult).decode


def _row(rank: int, player: str, raw: bytes) -> Row:
    s = _decode_sheet(raw)
    sheet = [int(x) for x in s.sh.split(",") if x]
    doubled = [c == "1" for c in s.dl]
    return Row(
        rank, player, s.n, s.pts, s.g, s.w, s.d, s.l, s.st >= 2, s.b, sheet, doubled, s.pa == 1, s.r
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


class ArenaStore:
    """The arenas' scripts over a store's connection (``link``; ``sharded``: a Cluster, whose
    channels are sharded)."""

    def __init__(self, link: Any, prefix: str, sharded: bool = False):
        self.link = link
        self.prefix = prefix
        self.sharded = sharded
        self.index = f"{prefix}arena:{{arenas}}:index"

        def script(text: str) -> Any:
            return link.script(text.replace("'PUBLISH'", "'SPUBLISH'") if sharded else text)

        self._create, self._join, self._pause = script(CREATE), script(JOIN), script(PAUSE)
        self._unwait, self._wait, self._refresh = script(UNWAIT), script(WAIT), script(REFRESH)
        self._sweep, self._finish = script(SWEEP), script(FINISH)
        self._standings, self._final = script(STANDINGS), script(FINAL)
        self._claim = link.script(CLAIM)

    def keys(self, arena: str) -> str:
        """The prefix of the arena's keys (all in the slot ``{arena:<id>}``)."""
        return f"{self.prefix}arena:{{arena:{arena}}}:"

    def channel(self, arena: str) -> str:
        """The arena's channel (sharded on a Cluster: SSUBSCRIBE)."""
        return f"{self.prefix}arena:{{arena:{arena}}}"

    async def _run(self, script: Any, arena: str, *args: Any) -> Any:
        k = self.keys(arena)
        return await script(keys=[k + "meta"], args=[k, self.channel(arena), arena, *args])

    def creator_key(self, player: str) -> str:
        """The player's claim on their one upcoming-or-running arena (its id, until its end)."""
        return f"{self.prefix}arena:{{arenas}}:by:{player}"

    async def create(self, spec: ArenaSpec) -> bool:
        """Create the arena (False: its id exists already), then list it in the index. A
        player's (``spec.by``) is listed only with their claim, taken in the same step: while
        another arena of theirs is upcoming or running, this one is removed unlisted and
        ``ArenaRefused`` ``arena-limit`` raised (however many ask at once, one is made)."""
        made = await self._run(
            self._create, spec.id, encode(spec), spec.starts_ms, spec.ends_ms, spec.created_ms
        )
        if not made:
            return False
        if spec.by is None:
            await self.link.execute("ZADD", self.index, spec.starts_ms, spec.id)
            return True
        held = await self._claim(
            keys=[self.index, self.creator_key(spec.by)],
            args=[spec.id, spec.starts_ms, spec.ends_ms],
        )
        if held:  # unlisted, its id never shown: nobody knows of it
            await self.link.execute("DEL", self.keys(spec.id) + "meta")
            raise ArenaRefused("arena-limit", f"Your arena {_text(held)} is upcoming or running.")
        return True

    async def get(self, arena: str) -> ArenaSpec | None:
        raw = await self.link.execute("HGET", self.keys(arena) + "meta", "spec")
        return None if raw is None else decode_spec(raw)

    async def listing(self, now_ms: int) -> list[ArenaSpec]:
        """The arenas not finished (upcoming, running, ending), by start."""
        ids = [_text(x) for x in await self.link.execute("ZRANGE", self.index, 0, LISTED - 1)]
        if not ids:
            return []
        metas = await self.link.execute_many(
            [("HMGET", self.keys(i) + "meta", "spec", "finished") for i in ids]
        )
        gone = [i for i, (spec, _) in zip(ids, metas, strict=True) if spec is None]
        if gone:  # expired after being final (a node died between the two writes)
            await self.link.execute("ZREM", self.index, *gone)
        return [decode_spec(spec) for spec, final in metas if spec is not None and not final]

    async def join(self, arena: str, player: str, name: str | None, rating: int | None) -> Row:
        """Join (or resume after a pause): the player's row. Raises ``ArenaRefused``
        (``no-arena``; ``arena-over`` once the end has passed or the arena is final)."""
        out = await self._run(self._join, arena, player, json.dumps(name), json.dumps(rating))
        if _text(out[0]) != "ok":
            raise ArenaRefused(_text(out[0]))
        return _row(int(out[2]) + 1, player, _bytes(out[1]))

    async def pause(self, arena: str, player: str) -> Row | None:
        """Pause the player: not paired, no longer waiting; stays in the standings. None: not
        joined."""
        out = await self._run(self._pause, arena, player)
        return _row(int(out[1]) + 1, player, _bytes(out[0])) if out else None

    async def wait(
        self,
        arena: str,
        player: str,
        token_hash: str,
        node_id: str,
        lease_ms: int,
        room_id: str,
        coin: int,
        rematch_ms: int = 5000,
        scan: int = 64,
    ) -> Pairing | None:
        """The player waits for a game on node ``node_id`` (their seat token's hash): paired at
        once with the nearest suitable waiting player (the room ``room_id``; sides by souths,
        ``coin`` 0/1 on equal: 0 gives south to the one who waited longer), else listed as
        waiting with a lease of ``lease_ms``. None also when the player is not joined, paused,
        playing, or the arena is over (``why`` says which); before the start they wait."""
        return (await self.why_wait(
            arena, player, token_hash, node_id, lease_ms, room_id, coin, rematch_ms, scan
        ))[1]  # fmt: skip

    async def why_wait(
        self,
        arena: str,
        player: str,
        token_hash: str,
        node_id: str,
        lease_ms: int,
        room_id: str,
        coin: int,
        rematch_ms: int = 5000,
        scan: int = 64,
    ) -> tuple[str, Pairing | None]:
        """``wait`` with its reason: ("paired", pairing), ("waiting", None), or (why, None):
        ``no-arena``, ``not-joined``, ``paused``, ``playing``, ``over``."""
        out = await self._run(
            self._wait, arena, player, token_hash, node_id, lease_ms, room_id, coin,
            rematch_ms, scan,
        )  # fmt: skip
        kind = _text(out[0])
        if kind == "paired":
            return kind, decode_pairing(_bytes(out[1]))
        return (kind if kind == "waiting" else _text(out[1])), None

    async def unwait(
        self, arena: str, player: str, node_id: str | None = None, token_hash: str = ""
    ) -> bool:
        """The player's waiting socket closed: no longer waiting (still joined). With
        ``node_id``: only if they wait there with ``token_hash`` (else another socket of theirs
        waits since). False: not unlisted."""
        more = () if node_id is None else (node_id, token_hash)
        return bool(await self._run(self._unwait, arena, player, *more))

    async def refresh(
        self, node_id: str, lease_ms: int, arenas: Iterable[str] | None = None
    ) -> list[Pairing]:
        """Renew the leases of this node's waiting players (in ``arenas``; None: every listed
        arena) and take the pairings made for them that the node has not taken yet. A pairing
        ``wait`` answered is not among them, but one may also come on the arena's channel:
        deliver each room once."""
        ids = [a.id for a in await self.listing(0)] if arenas is None else list(arenas)
        made = []
        for arena in ids:
            for raw in await self._run(self._refresh, arena, node_id, lease_ms):
                made.append(decode_pairing(_bytes(raw)))
        return made

    async def sweep(
        self,
        now_ms: int,
        new_room: Callable[[], str] = lambda: secrets.token_urlsafe(12),
        rematch_ms: int = 5000,
        absent_ms: int = 60_000,
        arenas: Iterable[str] | None = None,
        limit: int = 1000,
    ) -> list[Pairing]:
        """Over ``arenas`` (None: every listed arena started by ``now_ms``): drop stale
        waiters, pause players absent ``absent_ms`` (joined, unpaused, not waiting, not
        playing), and while running pair the waiting players left over (their rematch wait
        passed, or the arena just started; rooms named by ``new_room``). The pairings made."""
        if arenas is None:
            arenas = [a.id for a in await self.listing(now_ms) if a.starts_ms <= now_ms]
        made = []
        for arena in arenas:
            waiting = int(await self.link.execute("ZCARD", self.keys(arena) + "waiting"))
            n = min(waiting // 2, limit // 2)
            rooms = [new_room() for _ in range(n)]
            coins = [secrets.randbelow(2) for _ in range(n)]
            out = await self._run(
                self._sweep, arena, rematch_ms, absent_ms, json.dumps(rooms), json.dumps(coins),
                limit,
            )  # fmt: skip
            made += [decode_pairing(_bytes(raw)) for raw in out]
        return made

    async def finish(
        self,
        arena: str,
        room: str,
        game_no: int,
        players: list[str],
        result: list[Result] | None,
        berserk: list[bool],
        ended_ms: int,
        paused_side: int | None = None,
    ) -> bool:
        """Score a game of the arena once (idempotent on room/game_no): both sides by
        ``server/rooms/arena.py`` ``score`` (``result`` per side; None: aborted, nothing
        counts), release them from ``playing``, pause ``paused_side``'s player (an abort by
        their missing first move) and publish. False: scored before."""
        out = await self._run(
            self._finish, arena, room, game_no, json.dumps(players),
            "" if result is None else json.dumps(result), json.dumps(berserk or [False, False]),
            ended_ms, "" if paused_side is None else paused_side,
        )  # fmt: skip
        return bool(int(out[0]))

    async def standings(self, arena: str, start: int = 0, count: int = 20) -> list[Row]:
        """Rows ``start``.. (0-based; ``count`` of them) in standings order."""
        if count <= 0:
            return []
        out = await self._run(self._standings, arena, start, start + count - 1)
        return [
            _row(start + i + 1, _text(out[2 * i]), _bytes(out[2 * i + 1]))
            for i in range(len(out) // 2)
        ]

    async def row(self, arena: str, player: str) -> Row | None:
        k = self.keys(arena)
        rank, raw = await self.link.execute_many(
            [("ZRANK", k + "order", player), ("HGET", k + "sheets", player)]
        )
        return None if rank is None or raw is None else _row(int(rank) + 1, player, _bytes(raw))

    async def rows(self, arena: str, players: list[str]) -> dict[str, Row]:
        """The rows of ``players`` (those joined), by player, in one round trip."""
        if not players:
            return {}
        k = self.keys(arena)
        out = await self.link.execute_many(
            [c for p in players for c in (("ZRANK", k + "order", p), ("HGET", k + "sheets", p))]
        )
        return {
            p: _row(int(rank) + 1, p, _bytes(raw))
            for p, rank, raw in zip(players, out[::2], out[1::2], strict=True)
            if rank is not None and raw is not None
        }

    async def playing(self, arena: str, count: int = 20) -> list[ArenaGame]:
        """Games in progress (at most ``count``), the oldest first."""
        raw = await self.link.execute("HVALS", self.keys(arena) + "games")
        games = sorted((_decode_game(_bytes(g)) for g in raw), key=lambda g: (g.started_ms, g.room))
        return games[:count]

    async def playing_rooms(self, arena: str) -> list[str]:
        """Every room of a game in progress (for the node's check of rooms that ended)."""
        return [_text(r) for r in await self.link.execute("HKEYS", self.keys(arena) + "games")]

    async def results(self, arena: str) -> list[GameResult]:
        """The arena's finished games, in the order scored."""
        raw = await self.link.execute("LRANGE", self.keys(arena) + "results", 0, -1)
        return [_decode_result(_bytes(r)) for r in raw]

    async def players(self, arena: str) -> int:
        """Joined players in all (paused ones too)."""
        return int(await self.link.execute("HLEN", self.keys(arena) + "sheets"))

    async def claim(self, arena: str, node_id: str, lease_ms: int) -> bool:
        """Claim the arena's finalization for ``lease_ms`` (one node at a time)."""
        key = self.keys(arena) + "claim"
        return await self.link.execute("SET", key, node_id, "NX", "PX", lease_ms) is not None

    async def mark_finished(self, arena: str, keep_ms: int = 86_400_000) -> None:
        """The arena is final (its standings are in the database): out of the listing, its
        keys kept ``keep_ms`` more, a ``final`` notice published (once)."""
        await self._run(self._final, arena, keep_ms)
        await self.link.execute("ZREM", self.index, arena)

    async def is_finished(self, arena: str) -> bool:
        return await self.link.execute("HGET", self.keys(arena) + "meta", "finished") is not None
