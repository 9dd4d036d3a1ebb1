"""Whether a game is rated: decided once, when it starts, from values alone (fair play).

A game asked to be rated (a rated friend room, a rated lobby pairing) is rated only if, when
it starts, it has a clock and its two seats are held by two different identified people
connected from two different addresses. The game starts at its first move (or, if it ends
before any, at its end): before that a seat may still change hands (an invite is taken, a
lobby player arrives). The decision is kept on the room (``Room.ratedness``, fixed by
``server/rooms/ratedstart.py``), sent in every ``state``, archived as the game's ``rated``
and never changed afterwards: a seat linked to its player later, a hand-over to the
computer or a reclaim do not make an unrated game rated or a rated one unrated.

Nothing here imports the room: the lobby's seek check (``clock_refusal``) and the room's
decision (``reason``) are functions of plain values, so any layer may ask them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

RATED = "rated"
CASUAL = "casual"  # the game was never asked to be rated

# Why a game asked to be rated is not: the code sent in ``state.unrated``, and what it means
# (the client words them in en and ja; docs/fair-play).
REASONS: dict[str, str] = {
    "no-clock": "the game has no clock",
    "computer": "the computer holds a seat",
    "anonymous": "a seat's player is not identified (no player cookie when it was taken)",
    "same-player": "one player holds both seats (one player cookie, or one passkey)",
    "absent": "a seat's player had not connected when the game started",
    "same-address": "both seats' players connect from the same address",
    "daily-limit": "the two players have played as many rated games together today as count",
}

# A rated room's refusal; the code (and a seek's sentence) is the lobby's (``seeks.ERRORS``).
ROOM_NEEDS_CLOCK = "A rated room needs a clock: choose a time control, or play unrated."


def clock_refusal(rated: bool, clock: object | None) -> str | None:
    """The error code refusing a rated room or seek without a clock (None: nothing to refuse).
    Without a clock a player about to lose can leave and leave the game hanging."""
    return "rated-needs-clock" if rated and clock is None else None


def address_mark(room: str, address: str | None) -> str | None:
    """What a seat keeps of its player's address: a short hash salted with the room's id,
    enough to tell two seats' addresses apart and no more (docs/privacy.md)."""
    if not address or address == "unknown":
        return None
    return hashlib.sha256(f"{room}\n{address}".encode()).hexdigest()[:16]


def reason(
    *,
    asked: bool,
    clocked: bool,
    holders: Sequence[str],
    players: Sequence[str | None],
    addresses: Sequence[str | None],
    same_address_rated: bool,
    pair_rated_today: int = 0,
    pair_daily: int = 5,
) -> str:
    """``RATED``, ``CASUAL`` (not asked), or the code in ``REASONS`` of why not, for a game
    starting with these seats (``addresses``: each seat's ``address_mark``, None if its player
    never connected; ``same_address_rated``: the operator lifted the address rule;
    ``pair_rated_today``: rated games the two players started in the last 24 hours, of which
    ``pair_daily`` count)."""
    if not asked:
        return CASUAL
    if not clocked:
        return "no-clock"
    if any(h != "person" for h in holders):
        return "computer"
    if any(p is None for p in players):
        return "anonymous"
    if len(set(players)) < len(players):
        return "same-player"
    if not same_address_rated:  # lifted: a club behind one address, where addresses tell nothing
        if any(a is None for a in addresses):
            return "absent"
        if len(set(addresses)) < len(addresses):
            return "same-address"
    if pair_rated_today >= pair_daily:
        return "daily-limit"
    return RATED
