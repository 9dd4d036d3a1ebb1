"""The operator's arena schedule, ``NYUMBA_ARENAS``: its entries and their next starts.

Pure. One entry a line of the setting, separated by ``;``: ``game[:option=value…] clock when
duration [rated|casual] [berserk]``, e.g. ``kalah 3+2 hourly 30m; bao-kiswahili 10+5
daily@19:00 60m``. ``server/rooms/arena.py`` makes each occurrence's arena (``scheduled_spec``,
with an id every node derives alike).
"""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

from server.rooms.clock import Control


class ScheduleError(ValueError):
    """A schedule entry that does not parse; the message names the entry and what is wrong."""


class ScheduleEntry(msgspec.Struct, frozen=True):
    """One entry of ``NYUMBA_ARENAS``: ``text`` as written, the game and options, the clock,
    ``every`` hour (at :00) or day (at ``at_ms`` after midnight UTC), how long, rated or
    casual, berserk allowed."""

    text: str
    game: str
    options: dict[str, Any]
    clock: Control
    every: Literal["hourly", "daily"]
    at_ms: int
    duration_ms: int
    rated: bool = True
    berserk: bool = False


HOUR_MS, DAY_MS = 3_600_000, 86_400_000
_FRACTIONS = {"¼": 0.25, "½": 0.5, "¾": 0.75}
_CLOCK = re.compile(r"^(\d*(?:\.\d+)?)([¼½¾]?)\+(\d+)$")
_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?$")
_DAILY = re.compile(r"^daily@([01]\d|2[0-3]):([0-5]\d)$")
_GAME = re.compile(r"^[a-z0-9-]+$")


def parse_schedule(text: str) -> list[ScheduleEntry]:
    """``NYUMBA_ARENAS``: entries separated by ``;``, each ``game[:option=value…] clock when
    duration [rated|casual] [berserk]`` — e.g. ``kalah 3+2 hourly 30m; bao-kiswahili 10+5
    daily@19:00 60m``. The clock is minutes + increment seconds (``3+2``, ``½+0``, ``0.5+1``);
    ``when`` is ``hourly`` (on the hour) or ``daily@HH:MM`` (UTC); the duration ``30m``, ``1h``
    or ``1h30m``. Rated unless ``casual``. Raises ``ScheduleError`` naming the bad entry."""
    return [_entry(item.strip()) for item in text.split(";") if item.strip()]


def _entry(item: str) -> ScheduleEntry:
    def bad(why: str) -> ScheduleError:
        return ScheduleError(
            f"NYUMBA_ARENAS entry {item!r}: {why} (expected e.g. 'kalah 3+2 hourly 30m')."
        )

    words = item.split()
    if len(words) < 4:
        raise bad("it needs a game, a clock, hourly or daily@HH:MM, and a duration")
    spec, clock_text, when, duration_text, *flags = words
    game, *pairs = spec.split(":")
    if not _GAME.match(game):
        raise bad(f"{game!r} is not a game's name")
    options: dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name or not value:
            raise bad(f"the option {pair!r} is not name=value")
        options[name] = int(value) if value.isdigit() else value in ("true", "on", "yes")
    clock = _clock(clock_text, bad)
    if when == "hourly":
        every: Literal["hourly", "daily"] = "hourly"
        at_ms = 0
    elif m := _DAILY.match(when):
        every, at_ms = "daily", (int(m[1]) * 60 + int(m[2])) * 60_000
    else:
        raise bad(f"{when!r} is neither 'hourly' nor 'daily@HH:MM' (UTC)")
    d = _DURATION.match(duration_text)
    duration_ms = (int(d[1] or 0) * 60 + int(d[2] or 0)) * 60_000 if d else 0
    if duration_ms <= 0:
        raise bad(f"{duration_text!r} is not a duration like 30m, 1h or 1h30m")
    period = HOUR_MS if every == "hourly" else DAY_MS
    if duration_ms > period:
        raise bad(f"a {every} arena cannot last longer than its period")
    rated, berserk = True, False
    for flag in flags:
        if flag in ("rated", "casual"):
            rated = flag == "rated"
        elif flag == "berserk":
            berserk = True
        else:
            raise bad(f"{flag!r} is not 'rated', 'casual' or 'berserk'")
    return ScheduleEntry(item, game, options, clock, every, at_ms, duration_ms, rated, berserk)


def _clock(text: str, bad: Any) -> Control:
    m = _CLOCK.match(text)
    if m is None or not (m[1] or m[2]):
        raise bad(f"{text!r} is not a clock like 3+2 (minutes + increment seconds)")
    minutes = float(m[1] or 0) + _FRACTIONS.get(m[2], 0.0)
    try:
        return msgspec.convert(
            {"initial_ms": round(minutes * 60_000), "increment_ms": int(m[3]) * 1000}, Control
        )
    except msgspec.ValidationError as e:
        raise bad(f"the clock {text!r} is out of range ({e})") from None


def next_start(entry: ScheduleEntry, now_ms: int) -> int:
    """The entry's first start at or after ``now_ms`` (UTC ms)."""
    period = HOUR_MS if entry.every == "hourly" else DAY_MS
    start = (now_ms - entry.at_ms) // period * period + entry.at_ms
    return start if start >= now_ms else start + period
