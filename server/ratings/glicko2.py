"""Glicko-2 ratings: pure functions of values (no I/O, no clock).

The system is Mark Glickman's, as "Example of the Glicko-2 system" (2013) states it, step by
step: ratings on the Glicko scale (1500 and 350 for a newcomer) are moved to the Glicko-2
scale (``SCALE``), the expected score against each opponent and the estimated variance ``v``
give the improvement ``delta``, the new volatility is the root of ``f`` found by the
Illinois (regula falsi) iteration of step 5, and the deviation and rating follow.

nyumba rates a game as a rating period of its own (one opponent, one result), as the
game is archived: a player's rating moves after every rated game, the way lichess does it.
Time away is rated too, without a scheduler: the whole idle periods since a player's last
rated game grow the deviation (the paper's step 6 for a period without games, ``idle``) when
the rating is next read, shown or played (``server/ratings/standing.py``). A rating is
*provisional* while its deviation is above ``PROVISIONAL_RD`` (lichess's threshold): shown
with a "?".

Hand-written, not a library: the algorithm is forty lines of arithmetic, and the
PyPI packages that implement it are small, unmaintained and either mutate player objects or
follow the 2012 paper's step with ``fC * fB < 0`` where the 2013 text has ``<= 0`` — this module
follows the 2013 text, and a test reproduces its worked example to the printed precision.
"""

from __future__ import annotations

import math
from typing import NamedTuple

SCALE = 173.7178  # Glicko points per Glicko-2 unit
START = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
TAU = 0.5  # how much the volatility may change (the paper suggests 0.3 to 1.2)
EPSILON = 0.000001  # the convergence tolerance of step 5
PROVISIONAL_RD = 110.0
MIN_RD = 30.0  # a deviation never shrinks below this: a rating can always still move


class Rating(NamedTuple):
    """A player's rating on the Glicko scale: rating, deviation (RD) and volatility."""

    rating: float = START
    deviation: float = START_RD
    volatility: float = START_VOLATILITY


def provisional(r: Rating) -> bool:
    return r.deviation > PROVISIONAL_RD


def idle(r: Rating, periods: int) -> Rating:
    """``r`` after ``periods`` rating periods without a game: step 6, phi* = sqrt(phi^2 +
    sigma^2), once a period — the same as adding ``periods`` sigma^2 at once, since a period
    without games leaves sigma as it is — never past a newcomer's ``START_RD`` (a player away
    for years is as unknown as a new one, no more)."""
    if periods <= 0:
        return r
    phi, sigma = r.deviation / SCALE, r.volatility
    grown = math.sqrt(phi * phi + periods * sigma * sigma) * SCALE
    return Rating(r.rating, min(START_RD, max(r.deviation, grown)), sigma)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The score ``player`` is expected to make against ``opponent`` (0 to 1)."""
    mu, mu_j = (player.rating - START) / SCALE, (opponent.rating - START) / SCALE
    return _e(mu, mu_j, opponent.deviation / SCALE)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm on ``f``."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: Rating, results: list[tuple[Rating, float]], tau: float = TAU, floor: float = 0.0
) -> Rating:
    """``player``'s rating after one rating period with ``results``: (opponent's rating at
    the period's start, score 1 / 0.5 / 0). No results: only the deviation grows (step 6).
    ``floor``: the smallest deviation returned."""
    mu = (player.rating - START) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, max(floor, phi_star * SCALE), sigma)
    inv_v = 0.0
    gain = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - START) / SCALE
        phi_j = opponent.deviation / SCALE
        g, e = _g(phi_j), _e(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / inv_v
    delta = v * gain
    sigma_new = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * gain
    return Rating(mu_new * SCALE + START, max(floor, phi_new * SCALE), sigma_new)


def game(south: Rating, north: Rating, south_score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them (a rating period of its own, each
    judged against the other's rating before the game); ``south_score``: 1, 0.5 or 0."""
    return (
        update(south, [(north, south_score)], floor=MIN_RD),
        update(north, [(south, 1.0 - south_score)], floor=MIN_RD),
    )
