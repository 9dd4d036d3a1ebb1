"""What time and play make of a stored rating: the deviation grown for time away, whether the
rating is provisional, whether it is listed on a leaderboard. Functions of values and the time
asked about (the caller's clock), so the archive's write, its pages and the lobby agree.

The numbers, and why (docs/fairplay.md tells players the same):

- ``PERIOD_MS``, one day: a rating period. Each whole day since a player's last rated game
  grows their deviation by one step 6 (``glicko2.idle``), applied when the rating is next read
  — shown, sought with, or played. lichess grows a deviation continuously at about 0.21 of its
  periods a day with a volatility of 0.09; a day with nyumba's 0.06 grows about as fast
  (sigma^2 per day: 109 Glicko points^2 here, 52 on lichess) and is a unit a player can count. A
  settled 60 passes ``SETTLED_RD`` after 26 days away, about when the 30-day rule below drops the
  player from the leaderboard anyway; a deviation of 50 needs about three years to grow back
  to a newcomer's 350, the cap.
- ``SETTLED_RD``, 80: a leaderboard lists only ratings known to within this (lichess-like; a
  rating 80 points uncertain is already two games' worth of movement between players of the
  same strength).
- ``BOARD_GAMES``, 10: rated games in the profile before a leaderboard lists a player. With
  Glicko-2's fast start a deviation may fall under 80 in fewer games against settled players;
  ten keeps one lucky evening off the board while asking little of a regular.
- ``BOARD_RECENT_MS``, 30 days: a leaderboard lists only players with a rated game in that
  time (the issue's rule; lichess asks for one in the last week, a smaller site has fewer
  games to find).
- ``glicko2.PROVISIONAL_RD``, 110: above it a rating is provisional, marked "?" wherever it is
  shown (lichess's threshold).
"""

from __future__ import annotations

from server.ratings import glicko2 as G

DAY_MS = 86_400_000
PERIOD_MS = DAY_MS
SETTLED_RD = 80.0
BOARD_GAMES = 10
BOARD_RECENT_MS = 30 * DAY_MS


def periods(last_ms: int, now_ms: int) -> int:
    """Whole rating periods from a player's last rated game (``last_ms``) to ``now_ms``; none
    for a clock behind the row's (another node's clock a little ahead)."""
    return max(0, (now_ms - last_ms) // PERIOD_MS)


def current(r: G.Rating, last_ms: int, now_ms: int) -> G.Rating:
    """``r``, last moved by a game at ``last_ms``, as it stands at ``now_ms``."""
    return G.idle(r, periods(last_ms, now_ms))


def listed(r: G.Rating, games: int, last_ms: int, now_ms: int) -> bool:
    """Whether a leaderboard lists this rating at ``now_ms``: enough rated games, one of them
    recent, and a deviation settled after its growth for time away."""
    recent = now_ms - last_ms <= BOARD_RECENT_MS
    settled = current(r, last_ms, now_ms).deviation < SETTLED_RD
    return games >= BOARD_GAMES and recent and settled
