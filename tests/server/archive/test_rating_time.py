"""Ratings as time leaves them, on a real SQLite file and a real PostgreSQL server: the
deviation grows for each whole day (rating period) away, the next game is rated from the grown
deviation, and a leaderboard lists only players with enough games, a recent one and a settled
deviation. Time is the ``now_ms`` each call is given — a month passes without waiting for it."""

from __future__ import annotations

import math

import msgspec
import pytest
from archivekit import won_by_south
from asynckit import run

from server.archive import games, players, standings
from server.archive.db import Database
from server.archive.schema import ratings
from server.ratings import glicko2 as G
from server.rooms.finished import record_text

NOW = 1_800_000_000_000
DAY = 86_400_000
MONTH = NOW + 30 * DAY + 3_600_000  # 30 whole days and an hour later


def grown_by_hand(deviation: float, volatility: float, days: int) -> float:
    """Glickman's step 6 once a day, written out: phi* = sqrt(phi^2 + sigma^2) on the Glicko-2
    scale (173.7178 points a unit), capped at a newcomer's 350."""
    phi = deviation / 173.7178
    for _ in range(days):
        phi = math.sqrt(phi * phi + volatility * volatility)
    return min(350.0, phi * 173.7178)


def test_deviation_grows_over_a_month_away_and_the_next_game_is_rated_from_it(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        ids = await _rated(db, {"Amina": (1600.0, 60.0, 30, 0), "Baraka": (1650.0, 70.0, 30, 0)})
        a, b = ids["Amina"], ids["Baraka"]
        then = (await standings.standings(db, a, NOW))[0]
        later = (await standings.standings(db, a, MONTH))[0]
        entry = won_by_south("after-a-month", a, b, MONTH)
        await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), MONTH)
        after = await standings.rating_of(db, [a, b], "kalah", MONTH)
        await db.close()
        return a, b, then, later, after

    a, b, then, later, after = run(go())
    assert then.deviation == 60.0 and then.last_ms == NOW and not then.provisional
    expected = grown_by_hand(60.0, 0.06, 30)
    assert later.deviation == pytest.approx(expected, abs=1e-6)
    assert later.deviation > 80  # 82.8: a month away is visible
    assert later.rating == 1600.0 and later.last_ms == NOW
    # The month's game is rated from both deviations as the month left them.
    south = G.Rating(1600.0, expected, 0.06)
    north = G.Rating(1650.0, grown_by_hand(70.0, 0.06, 30), 0.06)
    want_south, want_north = G.game(south, north, 1.0)
    stale_south, _ = G.game(G.Rating(1600.0, 60.0, 0.06), G.Rating(1650.0, 70.0, 0.06), 1.0)
    assert after[a].rating == pytest.approx(want_south.rating)
    assert after[a].deviation == pytest.approx(want_south.deviation)
    assert after[b].rating == pytest.approx(want_north.rating)
    assert after[b].deviation == pytest.approx(want_north.deviation)
    assert want_south.rating - stale_south.rating > 3  # the growth made a difference
    assert after[a].last_ms == MONTH and after[a].games == 31


async def _rated(db: Database, table: dict[str, tuple[float, float, int, int]]) -> dict[str, str]:
    """Players named as ``table``'s keys, each with a Kalah rating (rating, deviation, rated
    games, days since the last one before ``NOW``) written as their last game left it."""
    ids = {}
    for name in table:
        p, _ = await players.create(db, NOW, name)
        ids[name] = p.id
    rows = [
        {
            "player": ids[name],
            "game": "kalah",
            "rating": r,
            "deviation": d,
            "volatility": 0.06,
            "games": n,
            "updated_ms": NOW - days * DAY,
        }
        for name, (r, d, n, days) in table.items()
    ]
    async with db.write() as conn:
        await conn.execute(ratings.insert(), rows)
    return ids


# name: (rating, deviation, rated games, days since the last one)
BOARD = {
    "settled": (1800.0, 60.0, 12, 1),
    "few-games": (1900.0, 60.0, 9, 1),
    "stale": (1850.0, 50.0, 40, 31),
    "unsettled": (1700.0, 90.0, 20, 0),
    "grown-unsettled": (1750.0, 75.0, 20, 20),  # 75 grows past 80 in 20 days away
    "provisional-by-time": (1600.0, 100.0, 30, 100),  # 100 grows past 110 in 100 days
}


def test_the_leaderboard_lists_only_settled_active_players_with_enough_games(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        ids = await _rated(db, BOARD)
        board = await standings.leaderboard(db, "kalah", NOW)
        await db.close()
        return ids, board

    ids, board = run(go())
    assert [s.player for s in board] == [ids["settled"]]
    assert board[0].name == "settled" and not board[0].provisional


def test_a_rating_left_alone_becomes_provisional(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        ids = await _rated(db, BOARD)
        wanted = [ids["provisional-by-time"], ids["unsettled"]]
        found = await standings.rating_of(db, wanted, "kalah", NOW)
        await db.close()
        return ids, found

    ids, found = run(go())
    away = found[ids["provisional-by-time"]]
    assert away.provisional and away.deviation == pytest.approx(grown_by_hand(100.0, 0.06, 100))
    assert away.last_ms == NOW - 100 * DAY
    assert not found[ids["unsettled"]].provisional  # 90: not away, not provisional
