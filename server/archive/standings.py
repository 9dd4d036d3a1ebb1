"""Ratings as they are read: a player's in each game, several players' in one (for their
seats and seeks), a game's leaderboard.

A stored rating is as its last rated game left it (``updated_ms``: when that game was rated).
Whoever reads it — these readers, and the write that rates a game (``games``) — first grows
its deviation for the whole rating periods since (``server/ratings/standing.py``), at the time
the caller passes: a rating is never shown, sought with or played as it was before time away.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta
from sqlalchemy import select

from server.archive.db import Database
from server.archive.schema import players, ratings
from server.ratings import glicko2 as G
from server.ratings import standing as T

BOARD = 50  # players on a leaderboard


class Standing(msgspec.Struct):
    """A player's rating in one game profile, as it stands when asked: the deviation grown for
    the whole days (rating periods) since ``last_ms``, the player's last rated game."""

    game: str
    rating: float
    deviation: Annotated[
        float, Meta(description="after its growth for the whole days since last_ms (cap 350)")
    ]
    games: Annotated[int, Meta(description="rated games in this game profile")]
    provisional: Annotated[bool, Meta(description="deviation (as grown) above 110: shown '?'")]
    player: str = ""
    name: Annotated[str | None, Meta(description="the player's name; null: none chosen")] = None
    last_ms: Annotated[int, Meta(description="when the last rated game was rated (ms)")] = 0
    volatility: Annotated[
        float, Meta(description="Glicko-2's sigma: how erratic the results are (starts at 0.06)")
    ] = G.START_VOLATILITY


def grown(r: Any, now_ms: int) -> G.Rating:
    """The rating of a ``ratings`` row as it stands at ``now_ms``."""
    return T.current(G.Rating(r.rating, r.deviation, r.volatility), r.updated_ms, now_ms)


def _standing(r: Any, now_ms: int) -> Standing:
    """A ``ratings`` row joined with its player's ``name``, as it stands at ``now_ms``."""
    now = grown(r, now_ms)
    return Standing(
        r.game,
        now.rating,
        now.deviation,
        r.games,
        G.provisional(now),
        r.player,
        r.name,
        r.updated_ms,
        now.volatility,
    )


# Ratings with their players' names (a player's rating goes when the player does).
NAMED = select(ratings, players.c.name).join(players, players.c.id == ratings.c.player)


async def standings(db: Database, player: str, now_ms: int) -> list[Standing]:
    async with db.read() as conn:
        rows = await conn.execute(NAMED.where(ratings.c.player == player).order_by(ratings.c.game))
        return [_standing(r, now_ms) for r in rows]


async def rating_of(
    db: Database, players_: list[str], game: str, now_ms: int
) -> dict[str, Standing]:
    """Each of ``players_``'s rating in ``game`` (those rated in it)."""
    async with db.read() as conn:
        rows = await conn.execute(
            NAMED.where(ratings.c.game == game, ratings.c.player.in_(players_))
        )
        return {r.player: _standing(r, now_ms) for r in rows}


async def leaderboard(db: Database, game: str, now_ms: int) -> list[Standing]:
    """The best ratings in ``game`` that ``standing.listed`` lists at ``now_ms``: enough rated
    games, one recent, the deviation settled after its growth for time away. The database
    applies the same test, so the first ``BOARD`` rows it returns are the ones listed; the
    Python test is the rule's statement, and drops nothing the SQL kept."""
    away = (now_ms - ratings.c.updated_ms) // T.PERIOD_MS  # whole periods
    step = ratings.c.volatility * G.SCALE
    grown = ratings.c.deviation * ratings.c.deviation + away * step * step
    query = (
        NAMED.where(
            ratings.c.game == game,
            ratings.c.games >= T.BOARD_GAMES,
            ratings.c.updated_ms >= now_ms - T.BOARD_RECENT_MS,
            grown < T.SETTLED_RD * T.SETTLED_RD,
        )
        .order_by(ratings.c.rating.desc(), ratings.c.player)
        .limit(BOARD)
    )
    async with db.read() as conn:
        rows = list(await conn.execute(query))
    return [
        _standing(r, now_ms)
        for r in rows
        if T.listed(G.Rating(r.rating, r.deviation, r.volatility), r.games, r.updated_ms, now_ms)
    ]
