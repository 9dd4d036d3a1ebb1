"""Oware (Abapa) — profile ``oware``, rules O1–O12 of ``docs/rules/oware.md``.

Sources: seed ``004_95e82af6703b4f80.txt`` (a Japanese teaching page for Abapa Oware), restated
and numbered in ``docs/rules/oware.md``, which decides; O10 and O11 are its Decisions (the
standard Abapa endings, as in OpenSpiel's ``oware``).

- O1/O2: twelve pits in a ring, 4 seeds each; South (0) moves first; captured seeds leave the
  board for the captor's score tray, which is never sown. Moves are one letter, a–f / A–F.
- O3/O4: lift an own non-empty pit and sow counter-clockwise into the pits only; with 12+ seeds
  the origin pit is skipped every lap. O5: no extra turns.
- O6: last seed in an opponent pit now holding 2 or 3: capture it, then the pits before it
  (clockwise) while on the opponent's side and holding 2 or 3. O7: a capture that would take
  every seed on the opponent's side is cancelled (grand slam); the sowing stands.
- O8: if the opponent's side is empty, a move must reach it when any move can.
- O9: more than 24 captured wins at once (``reason="majority"``); 24–24 draws.
- O10: the player to move has no seed: each side's seeds go to that side's owner; game over
  (``reason="no-moves"``).
- O11: a position (pits, scores, player to move) repeating one since the last capture ends the
  game; each side's seeds go to their owner (``reason``/``adjudication`` ``"repetition"``).
- O12: agreement/resignation are built by the server (``engine.core``).

Ring index of each pit (the move is the same number; score trays are fields 12 and 13)::

              North (player 1)
        F    E    D    C    B    A
       11   10    9    8    7    6
        0    1    2    3    4    5
        a    b    c    d    e    f
          South (player 0, moves first)

Sowing runs a → f → A → F → a. A capture chain walks back (clockwise) along the opponent's row.

Position text: a–f ``/`` A–F ``score S-N`` player to move, then ``; history`` and the moves
since the last capture (or the start), each with the seeds it lifted, which O11 needs, and
``; repetition`` for a game that O11 ended:
``"0 5 5 5 5 4 / 4 4 4 4 4 4 score 0-0 North; history a4"``.

Steps (``steps``): ``lift``, one ``sow`` per seed, then either ``capture`` per pit taken (last
pit first) and ``store`` (to the mover's tray, ``store0``/``store1``), or ``grand-slam`` (O7).
A move that ends the game closes with ``end`` (``note`` = the reason), preceded under O10/O11
by an ``end`` per non-empty pit carrying its seeds to its owner's tray.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from engine import sowing as sw
from engine.core import BadNotation, Outcome, Step

SCORE = (12, 13)  # ring fields of the score trays
SCORES = sw.shift(12)  # b >> SCORES: both score trays, nothing else
NAMES = tuple(sw.PIT_NAMES) + ("store0", "store1")
SH = tuple(sw.shift(k) for k in range(14))
SIDE = (sw.mask(range(6)), sw.mask(range(6, 12)))
THEIRS = tuple(tuple(6 * (1 - p) <= r < 6 * (2 - p) for r in range(12)) for p in (0, 1))
FIRST = (6, 0)  # the opponent's first pit, where a capture chain must stop
REACH = tuple(6 - r % 6 for r in range(12))  # seeds a pit needs to reach the other side (O8)
TABLES = sw.SowingTables(12, range(12), lambda i, j: j == i, max_seeds=48)  # O4: skip origin
ADD, SEQ = TABLES.add, TABLES.seq
# MOVES[i][n]: (add-vector, last pit, whether it is on the opponent's row) for n seeds from i
MOVES = [
    tuple(
        (add, last, THEIRS[i // 6][last])
        for add, last in zip(TABLES.add[i], TABLES.last[i], strict=True)
    )
    for i in range(12)
]
WIN = 25  # O9: more than 24


def moves_packed(b: int) -> list[int]:
    """Legal moves of the player to move on packed board ``b`` (O3, O8), game not over."""
    p = b & 1
    moves = [r for r in range(6 * p, 6 * p + 6) if b >> SH[r] & 255]
    if not b & SIDE[1 - p]:
        feeding = [r for r in moves if b >> SH[r] & 255 >= REACH[r]]
        if feeding:
            return feeding
    return moves


def play_packed(b: int, i: int, seen: set[int], trace: list[Step] | None = None) -> int:
    """Play legal move ``i`` on packed board ``b`` (O3–O11) and return the new board.

    ``seen`` holds every position since the last capture, ``b`` included; it is updated (O11).
    With ``trace`` a list, the move's animation steps are appended to it.
    """
    p = b & 1
    n = b >> SH[i] & 255
    add, last, theirs = MOVES[i][n]
    b += add
    if trace is not None:
        trace.append(Step("lift", NAMES[i], n, player=p))
        trace.extend(Step("sow", NAMES[j], 1, player=p) for j in SEQ[i][n])
    taken = 0
    if theirs:
        v = b >> SH[last] & 255
        if v == 2 or v == 3:  # O6
            c, j, stop, chain = b, last, FIRST[p], []
            while True:
                c -= v << SH[j]
                taken += v
                chain.append((j, v))
                if j == stop:
                    break
                j -= 1
                v = c >> SH[j] & 255
                if v != 2 and v != 3:
                    break
            if c & SIDE[1 - p]:
                b = c + (taken << SH[SCORE[p]])
                if trace is not None:
                    trace.extend(Step("capture", NAMES[j], v, player=p) for j, v in chain)
                    trace.append(Step("store", seeds=taken, to=NAMES[SCORE[p]], player=p))
            else:  # O7: grand slam, nothing is captured
                taken = 0
                if trace is not None:
                    trace.append(
                        Step("grand-slam", NAMES[last], player=p, note="capture cancelled")
                    )
    b ^= 1
    if taken:
        if b >> SH[SCORE[p]] & 255 >= WIN:  # O9
            if trace is not None:
                trace.append(Step("end", player=p, note="majority"))
            return b | sw.OVER
        seen.clear()
    if not b & SIDE[b & 1]:  # O10
        return _finish(b, 0, "no-moves", trace)
    if not taken and b in seen:  # O11
        return _finish(b, sw.REPETITION, "repetition", trace)
    seen.add(b)
    return b


def _finish(b: int, flag: int, reason: str, trace: list[Step] | None) -> int:
    """O10/O11: the seeds on each side go to that side's owner; the game is over."""
    for r in range(12):
        n = b >> SH[r] & 255
        if n:
            owner = r // 6
            b += (n << SH[SCORE[owner]]) - (n << SH[r])
            if trace is not None:
                trace.append(Step("end", NAMES[r], n, to=NAMES[SCORE[owner]], player=owner))
    if trace is not None:
        trace.append(Step("end", note=reason))
    return b | sw.OVER | flag


def random_playout_packed(
    b: int,
    seen: set[int],
    rand: Callable[[], float],
    record: list[int] | None = None,
) -> tuple[int, int]:
    """Play uniformly random legal moves from packed board ``b`` to the end.

    Returns the final packed board and the number of plies. While the opponent has seeds
    every non-empty own pit is legal, so rejection sampling over the six pits is uniform;
    otherwise O8 may restrict the choice and ``moves_packed`` decides.
    """
    plies = 0
    while not b & sw.OVER:
        p = b & 1
        if b & SIDE[1 - p]:
            base = 6 * p
            i = base + int(rand() * 6)
            while not b >> SH[i] & 255:
                i = base + int(rand() * 6)
        else:
            moves = moves_packed(b)
            i = moves[int(rand() * len(moves))]
        if record is not None:
            record.append(i)
        b = play_packed(b, i, seen)
        plies += 1
    return b, plies


def pack(state: OwareState) -> int:
    """The packed board of a state (``sowing`` module docstring)."""
    return int.from_bytes(bytes((state.to_move, *state.pits, *state.scores)), "little")


class OwareState(msgspec.Struct, frozen=True, forbid_unknown_fields=True, dict=True):
    """An Oware position.

    ``pits`` a–f then A–F; ``scores`` the captured seeds (South, North); ``history`` the moves
    since the last capture (or the start) as (move, seeds lifted), oldest first, for O11;
    ``repetition`` marks a game O11 ended.
    """

    pits: tuple[int, ...]
    scores: tuple[int, int]
    to_move: int
    history: tuple[tuple[int, int], ...] = ()
    repetition: bool = False


_POSITION = re.compile(
    r"^(?P<south>(?:\d+\s+){6})/\s+(?P<north>(?:\d+\s+){6})"
    r"score\s+(?P<s0>\d+)-(?P<s1>\d+)\s+(?P<who>\S+)$"
)
_HISTORY = re.compile(r"^([a-fA-F])(\d+)$")


class Oware(sw.SowingGame):
    """The game object ``engine.load("oware")`` returns; see ``engine.core``."""

    title = "Oware"
    state_type = OwareState
    trays = SCORE
    total = 48

    def start(self) -> OwareState:
        return OwareState((4,) * 12, (0, 0), 0)

    def describe(self, state: OwareState) -> str:
        south, north = sw.rows(state.pits)
        s0, s1 = state.scores
        text = f"{south} / {north} score {s0}-{s1} {sw.SIDE_NAMES[state.to_move]}"
        if state.history:
            text += "; history " + " ".join(f"{sw.PIT_NAMES[m]}{n}" for m, n in state.history)
        if state.repetition:
            text += "; repetition"
        return text

    def position(self, text: str) -> OwareState:
        parts = [p.strip() for p in text.split(";")] if isinstance(text, str) else [""]
        form = "a–f / A–F score S-N South|North"
        pits, scores, who = self._read(text, parts[0], _POSITION, form)
        history: list[tuple[int, int]] = []
        repetition = False
        for part in parts[1:]:
            words = part.split()
            if words[:1] == ["history"] and not history and not repetition and len(words) > 1:
                for word in words[1:]:
                    h = _HISTORY.match(word)
                    if h is None:
                        raise BadNotation(f"bad history move {word!r} in position {text!r}")
                    history.append((sw.PIT_NAMES.index(h[1]), int(h[2])))
            elif words == ["repetition"] and not repetition:
                repetition = True
            else:
                raise BadNotation(f"unexpected {part!r} in Oware position {text!r}")
        state = OwareState(tuple(pits), (scores[0], scores[1]), who, tuple(history), repetition)
        self._validate(text, state)
        return state

    # -- the public API over the packed rules ---------------------------------------------
    def _cache(self, state: OwareState) -> dict[str, Any]:
        d = state.__dict__
        if "b" not in d:
            b = pack(state)
            if _over(state):
                b |= sw.OVER | (sw.REPETITION if state.repetition else 0)
            d["b"] = b
            d["seen"] = _seen(b, state.history)
            d["legal"] = () if b & sw.OVER else tuple(moves_packed(b))
        return d

    def _next(self, state: OwareState, move: int, trace: list[Any] | None) -> OwareState:
        d = state.__dict__
        b = d["b"]
        seen = set(d["seen"])
        c = play_packed(b, move, seen, trace)
        if c & sw.OVER or c >> SCORES != b >> SCORES:  # over, or a capture (O11 resets)
            history: tuple[tuple[int, int], ...] = ()
        else:
            history = state.history + ((move, state.pits[move]),)
        data = c.to_bytes(15, "little")
        after = OwareState(
            tuple(data[1:13]), (data[13], data[14]), c & 1, history, bool(c & sw.REPETITION)
        )
        d = after.__dict__
        d["b"] = c
        d["seen"] = seen
        if c & sw.OVER:
            d["legal"] = ()
        elif c & SIDE[1 - (c & 1)]:  # the opponent has seeds: every non-empty own pit (O3)
            p = c & 1
            d["legal"] = sw.LEGAL[p][data[1 + 6 * p : 7 + 6 * p].translate(sw.NONZERO)]
        else:  # O8
            d["legal"] = tuple(moves_packed(c))
        return after

    def _ending(self, state: OwareState) -> Outcome:
        south, north = state.scores
        winner = None if south == north else int(north > south)
        if state.repetition:
            return Outcome(winner, "repetition", (south, north), adjudication="repetition")
        # O9 leaves seeds on the board (O7 spares the loser's row); O10 clears it.
        reason = "majority" if any(state.pits) else "no-moves"
        return Outcome(winner=winner, reason=reason, score=(south, north))

    def _playout(
        self, state: OwareState, rand: Callable[[], float], record: list[int] | None
    ) -> tuple[int, int]:
        d = self._cache(state)
        return random_playout_packed(d["b"], set(d["seen"]), rand, record)

    def seen(self, state: OwareState) -> set[int]:
        """Every packed board since the last capture, the current one included (O11): what
        a search from ``state`` must avoid repeating (a copy, the caller's to change)."""
        return set(self._cache(state)["seen"])

    # -- checks ---------------------------------------------------------------------------
    def _validate(self, text: str, state: OwareState) -> None:
        """BadNotation unless ``state`` is a position the rules can reach."""
        pits, scores = state.pits, state.scores
        sw.check_total(text, pits + scores, self.total, "O1")
        if state.repetition and any(pits):
            raise BadNotation(f"position {text!r}: a repetition ending clears the board (O11)")
        over = _over(state)
        mover = pits[6 * state.to_move : 6 * state.to_move + 6]
        if not over and not any(mover):
            raise BadNotation(f"position {text!r}: the player to move has no seed, so O10 ends it")
        if state.history and over:
            raise BadNotation(f"position {text!r}: a finished game keeps no history")
        if state.history:
            self._validate_history(text, state)

    def _validate_history(self, text: str, state: OwareState) -> None:
        """BadNotation unless the history is a capture-free run of legal moves ending here."""
        pits, scores = state.pits, state.scores
        earliest = list(pits)
        for move, n in reversed(state.history):
            earliest[move] += n
            for j in SEQ[move][n]:
                earliest[j] -= 1
        first_mover = (state.to_move + len(state.history)) % 2
        here = pack(state)
        ok = all(0 <= v <= sw.FIELD for v in earliest)
        ok = ok and any(earliest[6 * first_mover : 6 * first_mover + 6])
        b = sw.pack(earliest + list(scores), first_mover) if ok else here
        seen = {b}
        for move, n in state.history if ok else ():
            if move not in moves_packed(b) or b >> SH[move] & 255 != n:
                ok = False
                break
            b = play_packed(b, move, seen)
            ok = not b & sw.OVER and b >> SCORES == here >> SCORES
            if not ok:
                break
        if not ok or b != here:
            raise BadNotation(
                f"position {text!r}: its history is not a capture-free run of legal moves "
                f"that ends in this position (O11)"
            )


def _over(state: OwareState) -> bool:
    return state.repetition or max(state.scores) >= WIN or not any(state.pits)


def _seen(b: int, history: tuple[tuple[int, int], ...]) -> set[int]:
    """Every board since the last capture, ``b`` included, from the history (O11)."""
    seen = {b}
    for move, n in reversed(history):
        b = (b ^ 1) - ADD[move][n]
        seen.add(b)
    return seen


def make(profile: str, options: dict[str, Any]) -> Oware:
    """The registry's constructor (``engine.load``)."""
    return Oware(profile, options)
