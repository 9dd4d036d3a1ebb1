"""Rated games between the same two players, at most ``NYUMBA_RATED_PAIR_DAILY`` in a day.

Counted in the store, so every node sees one count: a sorted set per pair of players (their
ids in order), one member per rated game, scored with the store-clock ms it started at. The
node that judges a game's start reads the count of the last 24 hours
(``rooms.Context.pair_rated_today``, ``server/rooms/ratedness.py`` decides), and the node
whose write fixed a game as rated adds it. Two games of one pair starting at the same moment
on two nodes may both be counted under the limit: the limit is about a day of farming, not
one game more."""

from __future__ import annotations

from server.rooms.ratedness import RATED
from server.rooms.room import Room
from server.store.store import Store

DAY_MS = 86_400_000


def pair_of(room: Room) -> str | None:
    """The pair whose rated-game count decides ``room``'s start (None: none to count: the game
    is decided already, not asked to be rated, or not between two identified players)."""
    players = [s.player for s in room.seats]
    if room.ratedness or not room.rated or None in players or players[0] == players[1]:
        return None
    return "|".join(sorted(p for p in players if p is not None))


async def rated_today(store: Store, room: Room, now_ms: int) -> int:
    """Rated games ``room``'s two players started in the last 24 hours (0: none to count)."""
    pair = pair_of(room)
    return 0 if pair is None else await store.rated_pair_games(pair, now_ms - DAY_MS)


async def counted(store: Store, before: Room, after: Room, now_ms: int) -> None:
    """Count the game ``after`` if this change fixed it as rated."""
    pair = pair_of(before)
    if pair is not None and after.ratedness == RATED:
        await store.count_rated_pair(pair, f"{after.id}/{after.game_no}", now_ms, DAY_MS)
