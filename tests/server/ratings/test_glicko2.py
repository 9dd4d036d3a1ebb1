"""Glicko-2: the worked example of Glickman's paper, and ratings that move toward results."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.ratings import glicko2 as G


def test_the_papers_worked_example_to_its_printed_precision():
    # "Example of the Glicko-2 system" (Glickman): a 1500/200 player, volatility 0.06, tau 0.5,
    # beats a 1400/30 player and loses to 1550/100 and 1700/300 in one rating period.
    player = G.Rating(1500, 200, 0.06)
    results = [(G.Rating(1400, 30), 1.0), (G.Rating(1550, 100), 0.0), (G.Rating(1700, 300), 0.0)]
    after = G.update(player, results, tau=0.5)
    # The paper prints the new values on the Glicko-2 scale to four places, and converts those
    # rounded values back: mu' = -0.2069 -> r' = 1464.06, phi' = 0.8722 -> RD' = 151.52.
    mu, phi = (after.rating - 1500) / G.SCALE, after.deviation / G.SCALE
    assert round(mu, 4) == -0.2069 and round(phi, 4) == 0.8722
    assert round(round(mu, 4) * G.SCALE + 1500, 2) == 1464.06
    assert round(round(phi, 4) * G.SCALE, 2) == 151.52
    assert 0.05999 <= after.volatility < 0.06000  # printed as its first five places: 0.05999|60
    # unrounded, the same to within the paper's last printed digit
    assert abs(after.rating - 1464.06) < 0.01 and abs(after.deviation - 151.52) < 0.01


def test_a_period_without_games_only_widens_the_deviation():
    after = G.update(G.Rating(1500, 200, 0.06), [])
    assert after.rating == 1500 and after.volatility == 0.06
    assert round(after.deviation, 2) == 200.27  # sqrt(phi^2 + sigma^2), on the Glicko scale


def test_a_newcomer_is_provisional_until_games_narrow_the_deviation():
    r, o = G.Rating(), G.Rating()
    assert G.provisional(r)
    for _ in range(12):
        r, o = G.game(r, o, 0.5)
    assert G.provisional(r)  # 112.5 after twelve draws between newcomers
    r, o = G.game(r, o, 0.5)
    assert not G.provisional(r) and not G.provisional(o)


ratings = st.builds(
    G.Rating,
    st.floats(600, 2600),
    st.floats(G.MIN_RD, G.START_RD),
    st.floats(0.03, 0.09),
)


@given(ratings, ratings, st.sampled_from([0.0, 0.5, 1.0]))
def test_a_rating_moves_toward_the_result(south, north, score):
    after_south, after_north = G.game(south, north, score)
    surprise = score - G.expected(south, north)  # above 0: did better than expected
    if abs(surprise) < 1e-9:
        return
    assert (after_south.rating > south.rating) == (surprise > 0)
    assert (after_north.rating > north.rating) == (surprise < 0)
    # and never past where the result points: a win cannot lower a rating, a loss raise it
    if score == 1.0:
        assert after_south.rating >= south.rating and after_north.rating <= north.rating
    if score == 0.0:
        assert after_south.rating <= south.rating and after_north.rating >= north.rating
