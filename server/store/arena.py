"""Arenas in the store: each arena's keys in one hash slot, its scripts atomic on one master.

Every key of an arena carries the ``{arena:<id>}`` hash tag, so on a Cluster the whole arena
lives in one slot and each script below runs atomically there (``<k>`` is
``<prefix>arena:{arena:<id>}:``)::

    <k>meta       hash: spec -> the ArenaSpec (JSON); finished -> "1" once final
    <k>sheets     hash: player -> their sheet (JSON: name, rating, points, games, wins, draws,
                  losses, streak, berserks, sheet, paused, souths, last (opponent), changed_ms)
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
    channel <prefix>arena:{arena:<id>}   the arena's news (JSON): joined, paused, paired,
                  finished, final

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

from collections.abc import Callable, Iterable
from typing import Any, Literal

from server.rooms.arena import ArenaGame, ArenaSpec, GameResult, Pairing, Row

__all__ = ["ArenaStore", "GameResult", "Pairing"]

Result = Literal["win", "draw", "loss"]


class ArenaStore:
    """The arenas' scripts over a store's connection (``link``; ``sharded``: a Cluster, whose
    channels are sharded)."""

    def __init__(self, link: Any, prefix: str, sharded: bool = False):
        self.link = link
        self.prefix = prefix
        self.sharded = sharded

    def keys(self, arena: str) -> str:
        """The prefix of the arena's keys (all in the slot ``{arena:<id>}``)."""
        return f"{self.prefix}arena:{{arena:{arena}}}:"

    def channel(self, arena: str) -> str:
        """The arena's channel (sharded on a Cluster: SSUBSCRIBE)."""
        return f"{self.prefix}arena:{{arena:{arena}}}"

    async def create(self, spec: ArenaSpec) -> bool:
        """Create the arena (False: its id exists already), then list it in the index."""
        raise NotImplementedError

    async def get(self, arena: str) -> ArenaSpec | None:
        raise NotImplementedError

    async def listing(self, now_ms: int) -> list[ArenaSpec]:
        """The arenas not finished (upcoming, running, ending), by start."""
        raise NotImplementedError

    async def join(self, arena: str, player: str, name: str | None, rating: int | None) -> Row:
        """Join (or resume after a pause): the player's row. Raises ``ArenaRefused``
        (``no-arena``, ``arena-over`` once the end has passed or the arena is final)."""
        raise NotImplementedError

    async def pause(self, arena: str, player: str) -> Row | None:
        """Pause the player: not paired, no longer waiting; stays in the standings. None: not
        joined."""
        raise NotImplementedError

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
        once with the nearest suitable waiting player (the room ``room_id``, sides by souths,
        ``coin`` 0/1 on equal), else listed as waiting with a lease of ``lease_ms``. None also
        when the player is not joined, paused, playing, or the arena is not running."""
        raise NotImplementedError

    async def unwait(self, arena: str, player: str) -> None:
        """The player's waiting socket closed: no longer waiting (still joined)."""
        raise NotImplementedError

    async def refresh(
        self, node_id: str, lease_ms: int, arenas: Iterable[str] | None = None
    ) -> list[Pairing]:
        """Renew the leases of this node's waiting players (in ``arenas``; None: every listed
        arena) and take the pairings made for them that the node has not taken yet (news its
        subscription may have missed; a pairing may come both ways: deliver by room once)."""
        raise NotImplementedError

    async def sweep(
        self,
        now_ms: int,
        new_room: Callable[[], str],
        rematch_ms: int = 5000,
        absent_ms: int = 60_000,
        arenas: Iterable[str] | None = None,
    ) -> list[Pairing]:
        """Over ``arenas`` (None: every listed arena running or ending at ``now_ms``): drop
        stale waiters, pair the waiting players left over (their rematch wait passed, or the
        arena just started; rooms named by ``new_room``), pause players absent ``absent_ms``
        (joined, unpaused, not waiting, not playing). The pairings made."""
        raise NotImplementedError

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
        raise NotImplementedError

    async def standings(self, arena: str, start: int = 0, count: int = 20) -> list[Row]:
        """Rows ``start``.. (0-based; ``count`` of them) in standings order."""
        raise NotImplementedError

    async def row(self, arena: str, player: str) -> Row | None:
        raise NotImplementedError

    async def playing(self, arena: str, count: int = 20) -> list[ArenaGame]:
        """Games in progress (at most ``count``), the oldest first."""
        raise NotImplementedError

    async def playing_rooms(self, arena: str) -> list[str]:
        """Every room of a game in progress (for the node's check of rooms that ended)."""
        raise NotImplementedError

    async def results(self, arena: str) -> list[GameResult]:
        """The arena's finished games, in the order scored."""
        raise NotImplementedError

    async def players(self, arena: str) -> int:
        """Joined players in all (paused ones too)."""
        raise NotImplementedError

    async def claim(self, arena: str, node_id: str, lease_ms: int) -> bool:
        """Claim the arena's finalization for ``lease_ms`` (one node at a time)."""
        raise NotImplementedError

    async def mark_finished(self, arena: str, keep_ms: int = 86_400_000) -> None:
        """The arena is final (its standings are in the database): out of the listing, its
        keys kept ``keep_ms`` more, a ``final`` notice published."""
        raise NotImplementedError

    async def is_finished(self, arena: str) -> bool:
        raise NotImplementedError
