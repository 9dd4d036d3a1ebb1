"""What one lobby watcher is shown: a bounded list, and a count for the rest.

Pure. A watcher's ``lobby`` message names its filters (a game, a clock, rated or not) and the
rating it wants seeks near (``near``); together, rounded, they are its *view*
(``ViewKey``). A view shows at most ``SHOWN`` open seeks — those that fit the filters, nearest
``near`` first (a seek without a rating counts as ``DEFAULT_NEAR``), the oldest first among
equals — and, per game, how many open seeks it does not show (``more``). So a message's size
does not grow with the lobby, and watchers who ask for the same view are sent the same bytes
(``server/live/lobbywatch.py`` builds each view once per update).

Measured before (issue 46): with 2,000 open seeks every watcher was sent every seek (466 KB)
and every change, one message each.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from server.rooms import seeks as S

SHOWN = 40  # open seeks one watcher is shown, at most
NEAR_STEP = 100  # ``near`` is rounded to this: nearby watchers share one view
DEFAULT_NEAR = S.DEFAULT_RATING  # the rating every player starts with (Glicko-2)


class ViewKey(NamedTuple):
    """A watcher's view: its filters (None, "any": all) and its rounded ``near``."""

    game: str | None
    clock: tuple[int, int] | str  # (initial ms, increment ms), "none" or "any"
    rated: bool | None
    near: int


def key_of(watch: S.Watch) -> ViewKey:
    clock = watch.clock
    timing = clock if isinstance(clock, str) else (clock.initial_ms, clock.increment_ms)
    near = DEFAULT_NEAR if watch.near is None else watch.near
    return ViewKey(watch.game, timing, watch.rated, round(near / NEAR_STEP) * NEAR_STEP)


def fits(key: ViewKey, seek: S.SeekView) -> bool:
    """Whether the seek passes the view's filters."""
    if key.game is not None and seek.game != key.game:
        return False
    if key.rated is not None and seek.rated != key.rated:
        return False
    if key.clock == "any":
        return True
    if seek.clock is None:
        return key.clock == "none"
    return key.clock == (seek.clock.initial_ms, seek.clock.increment_ms)


def shown(key: ViewKey, seeks: Iterable[S.SeekView]) -> list[S.SeekView]:
    """The view's seeks, nearest ``near`` first, then in the order given (oldest first)."""
    near = key.near
    ranked = (
        (abs((DEFAULT_NEAR if s.rating is None else s.rating) - near), i, s)
        for i, s in enumerate(seeks)
        if fits(key, s)
    )
    return [s for _, _, s in heapq.nsmallest(SHOWN, ranked, key=lambda r: (r[0], r[1]))]


def by_game(seeks: Iterable[S.SeekView]) -> Counter[str]:
    """The open seeks per game (counted once per update, for every view)."""
    return Counter(s.game for s in seeks)


def more(listed: list[S.SeekView], counts: Counter[str]) -> dict[str, int]:
    """Per game, the open seeks a view does not show (left out by its filters or its bound)."""
    rest = counts - Counter(s.game for s in listed)
    return dict(sorted(rest.items()))


def change(
    before: dict[str, S.SeekView], after: list[S.SeekView]
) -> tuple[list[S.SeekView], list[str]]:
    """What turns the list ``before`` into ``after``: the seeks to add, the ids to remove."""
    now = {s.id for s in after}
    return [s for s in after if s.id not in before], [i for i in before if i not in now]
