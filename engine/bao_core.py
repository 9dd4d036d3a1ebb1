"""The Bao core: rules B1–B20 on plain lists, with the profile as data and hooks.

Rules: ``docs/rules/bao.md`` (core B1–B20; profiles K1–K6, J1–J3, N1–N9).
Sources: de Voogt, *Limits of the Mind* (1995); Donkers, *Zanzibar Bao Rules
for the Computer* (2001); the seed texts named in ``docs/rules/bao.md``. The public,
immutable API is ``engine.bao``; this module is its private fast path and the
only copy of the rules.

Each player's 16 pits form a ring (B5). Ring index ``r``: 0–7 is front pit
``r + 1``, 8–15 is back pit ``16 - r``. The board is one list of 32 counts,
South's ring at 0–15 and North's at 16–31 (``base = 16 * player``)::

                       North (player 1)
        b8 b7 b6 b5 b4 b3 b2 b1     back    ring  8 .. 15
        a8 a7 a6 a5 a4 a3 a2 a1     front   ring  7 .. 0    (a5 nyumba)
        A1 A2 A3 A4 A5 A6 A7 A8     front   ring  0 .. 7    (A5 nyumba)
        B1 B2 B3 B4 B5 B6 B7 B8     back    ring 15 .. 8
                       South (player 0)

Clockwise (``R``) is ring ``+1`` (front toward pit 8, then the back row),
anticlockwise (``L``) is ``-1``, for both players from their own side (B5).
Front ring ``r`` faces the opponent's front ring ``7 - r`` (B3).

A move is simulated on mutable lists by ``run``; ``candidates`` lists the
starts the rules allow before the simulation strikes endless ones out (K6);
``finish`` applies what happens after a completed move (takasia K5 and the
profile's ``after_move`` hook, e.g. Nakakamado's NYAKUA N5).

A new profile is a ``Rules`` value, e.g. Nakakamado A (N1–N8): K1's start,
``takasia=False`` (and no option), ``tax_min=1`` (N3),
``mtaji_capture_ends="mover"`` (N4), ``endless="safety-stop"`` (N8) and an
``after_move`` hook for N5 that reads the ``Summary`` (``namua``,
``captures``, ``endpoint``) and may log ``("place", pit, player)`` steps;
then ``engine.bao.Bao(profile, options, rules)`` plays it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

NYUMBA = 4  # ring index of front pit 5 (B4)
EMPTY_ROW = [0] * 8

# Kinds of start (what the first action of a move is).
TAKASA = 0  # lift the start pit and sow it (namua takasa B16, mtaji takasa B17)
CAPTURE = 1  # namua: place and capture at once (B16); mtaji: first lap captures (B17)
TAX = 2  # lift exactly two seeds from the owned nyumba (K3, N3)
PASS = 3  # empty hand during namua (B19, N7)

# How a move ended.
EMPTY = "empty"  # the last seed fell in an empty pit (B8.1)
NYUMBA_STOP = "nyumba"  # stop in a functional nyumba (B15)
TAKASIA_STOP = "takasia"  # stop in the takasia'd pit (K5)
WON = "front-empty"  # the opponent's front row emptied mid-move (B13)
ENDLESS = "endless"  # more laps than the limit would be needed (B20)
PASSED = "pass"


class Rules(msgspec.Struct, frozen=True):
    """A Bao profile as data. Hooks are plain functions, None when unused."""

    name: str
    front: tuple[int, ...]  # start counts, front pits 1..8 (K1, J1)
    back: tuple[int, ...]  # start counts, back pits 1..8
    hand: int  # start hand of each player
    nyumba: bool  # both players own their nyumba at the start (B15; J1: no)
    takasia: bool  # default of the ``takasia`` option (K5, J2)
    nyumba_min: int = 6  # an owned nyumba is functional from this count (B15)
    tax_min: int | None = 6  # tax when the owned nyumba, >= this, is alone (K3; N3: 1)
    mtaji_capture_ends: str = "both"  # whose ownership a mtaji capture ends (K4; N4 "mover";
    # "none")
    lap_limit: int = 512  # laps allowed after the first (B20)
    endless: str = "illegal"  # "illegal" (K6, J3) or "safety-stop" (N8)
    # after_move(rules, b, hands, owned, player, summary, log) -> None, run after every
    # completed move (not after a pass, an endless move or a game-ending capture).
    after_move: Callable[..., None] | None = None


class Summary(NamedTuple):
    """What one move did, for the finishing rules, hooks and records (N6)."""

    status: str  # EMPTY, NYUMBA_STOP, TAKASIA_STOP, WON, ENDLESS, PASSED
    endpoint: int  # ring index of the mover where the last lap ended (-1: none)
    captures: int  # capture events (not seeds)
    laps: int  # laps after the first
    choice: bool  # the capturing move reached a functional nyumba: stop or safari
    pending: int  # captured seeds not sown when the game ended (B13)
    placed: int  # seeds placed from hand (0 or 1)
    kind: int
    namua: bool


def sow(b: list[int], base: int, pos: int, d: int, n: int) -> int:
    """Sow ``n`` seeds one per pit after ring ``pos`` in direction ``d`` (B7).

    Returns the ring index of the last seed. A lap of 16 or more passes its
    start and sows into it.
    """
    if n >= 16:
        q, n = divmod(n, 16)
        for i in range(base, base + 16):
            b[i] += q
        if not n:
            return pos
    for _ in range(n):
        pos = (pos + d) & 15
        b[base + pos] += 1
    return pos


def _outward(b: list[int], base: int) -> tuple[int, int] | None:
    """B18: the forbidden (ring, direction) when a kichwa is the only occupied front pit."""
    occupied = [r for r in range(8) if b[base + r]]
    if occupied == [0]:
        return (0, -1)  # front 1 anticlockwise, into B1
    if occupied == [7]:
        return (7, 1)  # front 8 clockwise, into B8
    return None


def mtaji_captures(b: list[int], p: int, block: int = -1) -> list[tuple[int, int, int]]:
    """Capturing starts in mtaji (B17): ``(ring, direction, end ring)``.

    The first lap (2–15 seeds) must end in an occupied own front pit facing an
    occupied opponent front pit. ``block`` is a takasia'd pit (K5).
    """
    base = p << 4
    ob = base ^ 16
    outward = _outward(b, base)
    out = []
    for r in range(16):
        n = b[base + r]
        if 2 <= n <= 15 and r != block:
            for d in (1, -1):
                e = (r + n * d) & 15
                if e < 8 and b[base + e] and b[ob + 7 - e] and (r, d) != outward:
                    out.append((r, d, e))
    return out


def candidates(
    rules: Rules, b: list[int], hands: list[int], owned: list[bool], p: int, block: int
) -> list[tuple[int, int, int]]:
    """Every start the rules allow, as ``(kind, ring, direction)``, before
    endless moves are struck out (B16–B19, K2–K3, K5).

    For a namua capture the direction is the entry's: +1 enters at the left
    kichwa (``L``), -1 at the right one (``R``) (B10).
    """
    base = p << 4
    ob = base ^ 16
    if hands[0] or hands[1]:  # namua (B16)
        if not hands[p]:
            return [(PASS, -1, 0)]  # B19
        caps = []
        for r in range(8):
            if b[base + r] and b[ob + 7 - r]:
                if r < 6:
                    caps.append((CAPTURE, r, 1))
                if r > 1:
                    caps.append((CAPTURE, r, -1))
        if caps:
            return caps  # B11
        front = [r for r in range(8) if b[base + r]]
        own = owned[p]
        house = b[base + NYUMBA]
        if rules.tax_min is not None and own and front == [NYUMBA] and house >= rules.tax_min:
            return [(TAX, NYUMBA, 1), (TAX, NYUMBA, -1)]  # K3
        if own:  # K2: any occupied front pit but a functional nyumba
            starts = [r for r in front if r != NYUMBA or house < rules.nyumba_min]
        else:
            starts = [r for r in front if b[base + r] >= 2] or front
        outward = _outward(b, base)
        return [(TAKASA, r, d) for r in starts for d in (1, -1) if (r, d) != outward]
    caps = mtaji_captures(b, p, block)
    if caps:
        return [(CAPTURE, r, d) for r, d, _ in caps]
    starts = [r for r in range(8) if b[base + r] >= 2 and r != block]
    if not starts:
        starts = [r for r in range(8, 16) if b[base + r] >= 2]
    outward = _outward(b, base)
    return [(TAKASA, r, d) for r in starts for d in (1, -1) if (r, d) != outward]


def run(
    rules: Rules,
    b: list[int],
    hands: list[int],
    owned: list[bool],
    p: int,
    kind: int,
    r: int,
    d: int,
    safari: bool = False,
    block: int = -1,
    log: list[tuple[Any, ...]] | None = None,
) -> Summary:
    """Play one move on the mutable ``b``, ``hands``, ``owned`` (B7–B20).

    ``log``, when given, receives the move's actions for ``engine.bao.steps``.
    """
    base = p << 4
    ob = base ^ 16
    namua = bool(hands[0] or hands[1])
    if kind == PASS:
        if log is not None:
            log.append(("pass", p))
        return Summary(PASSED, -1, 0, 0, False, 0, 0, kind, namua)
    limit = rules.lap_limit
    # N8 cuts a move off at the end of its limit-th lap after the first, whatever that lap's
    # end would do next; K6 judges the end first (a winning capture still counts).
    cut = limit if rules.endless == "safety-stop" else 1 << 30
    captures = 0
    choice = False
    placed = 0
    if namua:  # B16: one seed from hand into an occupied own front pit
        hands[p] -= 1
        b[base + r] += 1
        placed = 1
        if log is not None:
            log.append(("place", base + r, p))
    capturing = kind == CAPTURE
    note = None  # "safari" on the relay that is one
    pending_capture = capturing and namua
    if pending_capture:
        laps = -1  # the captured seeds' sowing is the first lap
        pos = r
    else:
        laps = 0
        n = 2 if kind == TAX else b[base + r]
        b[base + r] -= n
        if log is not None:
            log.append(("lift", base + r, n, "tax" if kind == TAX else None))
        if r == NYUMBA and owned[p] and not b[base + r]:
            owned[p] = False  # B15: emptied
            if log is not None:
                log.append(("lost", p))
        pos = sow(b, base, r, d, n)
        if log is not None:
            log.append(("lap", base, r, d, n))
    while True:
        if not pending_capture:
            v = b[base + pos]
            if v == 1:  # B8.1
                status = EMPTY
                break
            if laps >= cut:  # N8
                status = ENDLESS
                break
            if capturing and pos < 8 and b[ob + 7 - pos]:
                pending_capture = True  # B8.2
            else:
                if namua and pos == NYUMBA and owned[p] and v >= rules.nyumba_min:  # B15
                    if not capturing:
                        status = NYUMBA_STOP
                        break
                    choice = True
                    if not safari:
                        status = NYUMBA_STOP
                        break
                    note = "safari"
                elif pos == block:  # K5
                    status = TAKASIA_STOP
                    break
                if laps >= limit:  # B20
                    status = ENDLESS
                    break
                laps += 1  # B8.4 relay (or safari)
                b[base + pos] = 0
                if log is not None:
                    log.append(("relay", base + pos, v, p, note))
                    note = None
                if pos == NYUMBA and owned[p]:
                    owned[p] = False  # B15: lifted, or safari
                    if log is not None:
                        log.append(("lost", p))
                start, n = pos, v
        if pending_capture:  # capture at own front pit ``pos`` (B10)
            pending_capture = False
            f = ob + 7 - pos
            c = b[f]
            if laps >= limit and sum(b[ob : ob + 8]) != c:  # B20, unless this capture wins
                status = ENDLESS
                break
            b[f] = 0
            captures += 1
            if pos < 2:
                d = 1
            elif pos > 5:
                d = -1
            k = 0 if d == 1 else 7
            if log is not None:
                log.append(("capture", f, c, base + k, p))
            q = 1 - p
            if 7 - pos == NYUMBA and owned[q]:
                owned[q] = False  # B15: captured
                if log is not None:
                    log.append(("lost", q))
            if not namua and rules.mtaji_capture_ends != "none":  # K4, N4
                for who in (p, q) if rules.mtaji_capture_ends == "both" else (p,):
                    if owned[who]:
                        owned[who] = False
                        if log is not None:
                            log.append(("lost", who))
            if b[ob : ob + 8] == EMPTY_ROW:  # B13
                if log is not None:
                    log.append(("end", p, c))
                return Summary(WON, pos, captures, laps, choice, c, placed, kind, namua)
            laps += 1
            start, n = (k - d) & 15, c  # captured seeds are sown starting in the kichwa (B7)
        pos = start  # the lap: ``n`` seeds after ``start``, a relay's or captured ones
        if n < 16:  # the common case, inlined: this loop is the engine's hot spot
            for _ in range(n):
                pos = (pos + d) & 15
                b[base + pos] += 1
        else:
            pos = sow(b, base, start, d, n)
        if log is not None:
            log.append(("lap", base, start, d, n))
    if log is not None:
        log.append(("stop", base + pos, status))
    return Summary(status, pos, captures, laps, choice, 0, placed, kind, namua)


def expand(
    rules: Rules, b: list[int], hands: list[int], owned: list[bool], p: int, block: int
) -> list[tuple[Any, ...]]:
    """Every move of the position, simulated on copies: ``(kind, ring, direction, safari,
    b, hands, owned, summary)``. A capture reaching a functional nyumba is two moves, stop
    and safari (B15); endless ones are included, with status ENDLESS, for the profile to
    strike out (K6) or keep (N8)."""
    out = []
    for kind, r, d in candidates(rules, b, hands, owned, p, block):
        for safari in (False, True):
            b2, hands2, owned2 = b[:], hands[:], owned[:]
            summary = run(rules, b2, hands2, owned2, p, kind, r, d, safari, block)
            out.append((kind, r, d, safari, b2, hands2, owned2, summary))
            if not summary.choice:
                break
    return out


def takasia_target(b: list[int], owned: list[bool], mover: int) -> int:
    """K5: the opponent's front ring index takasia'd after ``mover``'s mtaji
    takasa in position ``b``, or -1.
    """
    opp = 1 - mover
    if mtaji_captures(b, opp):
        return -1
    targets = {7 - e for _, _, e in mtaji_captures(b, mover)}
    if len(targets) != 1:
        return -1
    (t,) = targets
    ob = opp << 4
    front = b[ob : ob + 8]
    if front[t] == 1:
        return -1
    if sum(1 for v in front if v) == 1 or sum(1 for v in front if v >= 2) == 1:
        return -1
    if t == NYUMBA and owned[opp]:
        return -1
    return t


def finish(
    rules: Rules,
    takasia: bool,
    b: list[int],
    hands: list[int],
    owned: list[bool],
    p: int,
    summary: Summary,
    log: list[tuple[Any, ...]] | None = None,
) -> int:
    """After a move: the profile's hook, then takasia (K5). Returns the
    takasia'd ring index of the next player, or -1."""
    if summary.status in (WON, ENDLESS, PASSED):
        return -1
    if rules.after_move is not None:
        rules.after_move(rules, b, hands, owned, p, summary, log)
    if not takasia or summary.namua or summary.kind == CAPTURE:
        return -1
    if b[0:8] == EMPTY_ROW or b[16:24] == EMPTY_ROW:
        return -1
    t = takasia_target(b, owned, p)
    if t >= 0 and log is not None:
        log.append(("takasia", ((1 - p) << 4) + t, 1 - p))
    return t
