"""Rated games between the same two players, at most ``NYUMBA_RATED_PAIR_DAILY`` in a day.

Counted in the store, so every node sees one count: a sorted set per pair of players (their
ids in order), one member per rated game that ended with a result (aborted games move no
rating and do not count), scored with the store-clock ms it ended at. The node that judges a
game's start reads the count of the last 24 hours (``rooms.Context.pair_rated_today``;
``server/rooms/ratedness.py`` decides), and the node whose write ended a rated game adds it.
Games of one pair played at the same time are each decided before the others end: the limit
is about a day of farming, not one game more."""

from __future__ import annotations

from server.rooms.ratedness import RATED
from server.rooms.room import Room
from server.store.store import Store

DAY_MS = 86_400_000


def _pair(room: Room) -> str | None:
    """The two identified players of ``room``'s seats, in order (None: not two of them)."""
    players = [s.player for s in room.seats]
    if None in players or players[0] == players[1]:
        return None
    return "|".join(sorted(p for p in players if p is not None))


def pair_of(room: Room) -> str | None:
    """The pair whose rated-game count decides ``room``'s start (None: none to count: the game
    is decided already, or not asked to be rated)."""
    return None if room.ratedness or not room.rated else _pair(room)


async def rated_today(store: Store, room: Room, now_ms: int) -> int:
    """Rated games ``room``'s two players finished in the last 24 hours (0: none to count)."""
    pair = pair_of(room)
    return 0 if pair is None else await store.rated_pair_games(pair, now_ms - DAY_MS)


async def counted(store: Store, before: Room, after: Room, now_ms: int) -> None:
    """Count the game ``after`` if this change ended it rated, with a result (an aborted game
    moves no rating, so it does not count)."""
    outcome = after.outcome
    if before.outcome is not None or outcome is None or after.ratedness != RATED:
        return
    pair = _pair(after)
    if pair is not None and outcome.adjudication != "aborted":
        await store.count_rated_pair(pair, f"{after.id}/{after.game_no}", now_ms, DAY_MS)
