"""Ratings: Glicko-2 (``glicko2``) and what time and play make of a rating (``standing``:
the deviation grown over the rating periods a player was away, provisional, listed on a
leaderboard).

May import: the standard library only — no I/O, no clock of its own (every function takes the
time it is asked about), so the archive and the lobby apply the same rules and tests can ask
about a month ahead without waiting for it. Below ``server.ops`` and above ``server.rooms`` in
the layers (pyproject.toml); nothing in a room needs a rating's maths.
"""
