"""Time away as Glicko-2 rates it (step 6 once a rating period), and the leaderboard's rule."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from server.ratings import glicko2 as G
from server.ratings import standing as T

DAY = 86_400_000


@given(st.floats(30, 350), st.floats(0.01, 0.2), st.integers(0, 3000), st.floats(800, 2600))
def test_idle_is_step_6_once_a_period_capped_at_a_newcomers_deviation(rd, sigma, periods, r):
    phi = rd / G.SCALE
    for _ in range(periods):  # the paper's step 6, a period at a time
        phi = math.sqrt(phi * phi + sigma * sigma)
    grown = G.idle(G.Rating(r, rd, sigma), periods)
    assert math.isclose(grown.deviation, min(350.0, phi * G.SCALE), rel_tol=1e-9)
    assert grown.rating == r and grown.volatility == sigma


def test_whole_days_count_and_a_clock_behind_counts_none():
    assert T.periods(0, DAY - 1) == 0 and T.periods(0, DAY) == 1 and T.periods(0, 45 * DAY) == 45
    assert T.periods(10 * DAY, 0) == 0
    settled = G.Rating(1700, 60, 0.06)
    assert T.current(settled, 5 * DAY, 5 * DAY + DAY - 1) == settled


def test_a_settled_rating_leaves_the_board_after_26_days_away_or_30_without_games():
    settled = G.Rating(1700, 60, 0.06)
    assert T.listed(settled, 10, 0, 25 * DAY) and not T.listed(settled, 10, 0, 26 * DAY)
    slow = G.Rating(1700, 60, 0.01)  # a steady player's deviation hardly grows...
    assert T.listed(slow, 10, 0, 30 * DAY) and not T.listed(slow, 10, 0, 30 * DAY + 1)
    assert not T.listed(settled, 9, 0, 0)  # ...and nine games are not enough
