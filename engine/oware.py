"""Oware (Abapa) — profile ``oware``, rules O1–O12 of ``shared/rules/oware.md``.

Sources: seed ``004_95e82af6703b4f80.txt`` (a Japanese teaching page for Abapa Oware), restated
and numbered in ``shared/rules/oware.md``, which decides; O10 and O11 are its Decisions (the
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

import random
import re
from collections.abc import Callable
from typing import Any

import msgspec

from engine import _sowing as sw
from engine.core import BadNotation, IllegalMove, Outcome, Step

SCORE = (12, 13)  # ring fields of the score trays
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


def _moves(b: int) -> list[int]:
    """Legal moves of the player to move on packed board ``b`` (O3, O8), game not over."""
    p = b & 1
    moves = [r for r in range(6 * p, 6 * p + 6) if b >> SH[r] & 255]
    if not b & SIDE[1 - p]:
        feeding = [r for r in moves if b >> SH[r] & 255 >= REACH[r]]
        if feeding:
            return feeding
    return moves


def _play(b: int, i: int, seen: set[int], trace: list[Step] | None = None) -> int:
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


def _random_playout(
    b: int,
    seen: set[int],
    rand: Callable[[], float],
    record: list[int] | None = None,
) -> tuple[int, int]:
    """Play uniformly random legal moves from packed board ``b`` to the end.

    Returns the final packed board and the number of plies. While the opponent has seeds
    every non-empty own pit is legal, so rejection sampling over the six pits is uniform;
    otherwise O8 may restrict the choice and ``_moves`` decides.
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
            moves = _moves(b)
            i = moves[int(rand() * len(moves))]
        if record is not None:
            record.append(i)
        b = _play(b, i, seen)
        plies += 1
    return b, plies


class OwareState(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
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


_POSITION = re.compile(r"^((?:\d+\s+){6})/\s+((?:\d+\s+){6})score\s+(\d+)-(\d+)\s+(\S+)$")
_HISTORY = re.compile(r"^([a-fA-F])(\d+)$")


class Oware:
    """The game object ``engine.load("oware")`` returns; see ``engine.core``."""

    state_type = OwareState
    total = 48

    def __init__(self, profile: str, options: dict[str, Any]) -> None:
        self.profile = profile
        self.options = dict(options)

    def __repr__(self) -> str:
        return "<Oware>"

    # -- values -------------------------------------------------------------------------
    def start(self) -> OwareState:
        return OwareState((4,) * 12, (0, 0), 0)

    def to_move(self, state: OwareState) -> int:
        return state.to_move

    def legal_moves(self, state: OwareState) -> tuple[int, ...]:
        if self._over(state):
            return ()
        return tuple(_moves(self._pack(state)))

    def play(self, state: OwareState, move: int) -> OwareState:
        self._check(state, move)
        b = self._pack(state)
        after = _play(b, move, self._seen(state))
        if after & sw.OVER or after >> SH[12] != b >> SH[12]:  # over, or a capture (O11 resets)
            history: tuple[tuple[int, int], ...] = ()
        else:
            history = state.history + ((move, state.pits[move]),)
        return self._unpack(after, history)

    def steps(self, state: OwareState, move: int) -> tuple[Step, ...]:
        self._check(state, move)
        trace: list[Step] = []
        _play(self._pack(state), move, self._seen(state), trace)
        return tuple(trace)

    def outcome(self, state: OwareState) -> Outcome | None:
        if not self._over(state):
            return None
        south, north = state.scores
        winner = None if south == north else int(north > south)
        if state.repetition:
            return Outcome(winner, "repetition", (south, north), adjudication="repetition")
        # O9 leaves seeds on the board (O7 spares the loser's row); O10 clears it.
        reason = "majority" if any(state.pits) else "no-moves"
        return Outcome(winner=winner, reason=reason, score=(south, north))

    def board(self, state: OwareState) -> dict[str, Any]:
        return {
            "pits": dict(zip(sw.PIT_NAMES, state.pits, strict=True)),
            "stores": list(state.scores),
        }

    # -- text ---------------------------------------------------------------------------
    def notation(self, move: int) -> str:
        if type(move) is not int or not 0 <= move < 12:
            raise IllegalMove(f"{move!r} is not an Oware move")
        return sw.PIT_NAMES[move]

    def parse(self, state: OwareState, text: str) -> int:
        if not isinstance(text, str) or len(text) != 1 or text not in sw.PIT_NAMES:
            raise BadNotation(
                f"{text!r} is not an Oware move: write one pit letter, a–f (South) or A–F (North)"
            )
        move = sw.PIT_NAMES.index(text)
        self._check(state, move)
        return move

    def describe(self, state: OwareState) -> str:
        south = " ".join(map(str, state.pits[:6]))
        north = " ".join(map(str, state.pits[6:]))
        s0, s1 = state.scores
        text = f"{south} / {north} score {s0}-{s1} {sw.SIDE_NAMES[state.to_move]}"
        if state.history:
            text += "; history " + " ".join(f"{sw.PIT_NAMES[m]}{n}" for m, n in state.history)
        if state.repetition:
            text += "; repetition"
        return text

    def position(self, text: str) -> OwareState:
        parts = [p.strip() for p in text.split(";")] if isinstance(text, str) else [""]
        m = _POSITION.match(parts[0])
        if m is None:
            raise BadNotation(
                f"{text!r} is not an Oware position: write a–f / A–F score S-N South|North, "
                f"e.g. {self.describe(self.start())!r}"
            )
        south, north, s0, s1, who = m.groups()
        pits = sw.read_counts(text, south.split() + north.split(), "pit counts")
        scores = sw.read_counts(text, [s0, s1], "scores")
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
        state = OwareState(
            tuple(pits), (scores[0], scores[1]), sw.read_side(text, who), tuple(history), repetition
        )
        self._validate(text, state)
        return state

    # -- fast path (bench, computer player) ---------------------------------------------
    def _random_playout(
        self,
        state: OwareState | None = None,
        rand: Callable[[], float] = random.random,
        record: list[int] | None = None,
    ) -> tuple[int | None, int]:
        """A uniformly random playout from ``state`` (default: the start).

        Returns (winner or None for a draw, plies played). ``record`` collects the moves.
        """
        state = self.start() if state is None else state
        b, plies = _random_playout(self._pack(state), self._seen(state), rand, record)
        south, north = b >> SH[12] & 255, b >> SH[13] & 255
        return (None if south == north else int(north > south)), plies

    # -- helpers ------------------------------------------------------------------------
    @staticmethod
    def _over(state: OwareState) -> bool:
        return state.repetition or max(state.scores) >= WIN or not any(state.pits)

    @staticmethod
    def _pack(state: OwareState) -> int:
        return sw.pack(state.pits + state.scores, state.to_move)

    @staticmethod
    def _unpack(b: int, history: tuple[tuple[int, int], ...]) -> OwareState:
        f = sw.unpack(b, 14)
        return OwareState(tuple(f[:12]), (f[12], f[13]), b & 1, history, bool(b & sw.REPETITION))

    def _seen(self, state: OwareState) -> set[int]:
        """Every position since the last capture, the current one included (O11)."""
        b = self._pack(state)
        seen = {b}
        for move, n in reversed(state.history):
            b = (b ^ 1) - ADD[move][n]
            seen.add(b)
        return seen

    def _validate(self, text: str, state: OwareState) -> None:
        """BadNotation unless ``state`` is a position the rules can reach."""
        pits, scores = state.pits, state.scores
        if sum(pits) + sum(scores) != self.total:
            raise BadNotation(f"position {text!r} holds {sum(pits) + sum(scores)} seeds, not 48")
        if state.repetition and any(pits):
            raise BadNotation(f"position {text!r}: a repetition ending clears the board (O11)")
        over = self._over(state)
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
        b = sw.pack(earliest + list(scores), first_mover)
        seen = {b}
        ok = all(v >= 0 for v in earliest) and any(earliest[6 * first_mover : 6 * first_mover + 6])
        for move, n in state.history if ok else ():
            if move not in _moves(b) or b >> SH[move] & 255 != n:
                ok = False
                break
            b = _play(b, move, seen)
            ok = not b & sw.OVER and b >> SH[12] == self._pack(state) >> SH[12]
            if not ok:
                break
        if not ok or b != self._pack(state):
            raise BadNotation(
                f"position {text!r}: its history is not a capture-free run of legal moves "
                f"that ends in this position (O11)"
            )

    def _check(self, state: OwareState, move: int) -> None:
        legal = self.legal_moves(state)
        if type(move) is int and move in legal:
            return
        where = self.describe(state)
        if type(move) is not int or not 0 <= move < 12:
            raise IllegalMove(f"{move!r} is not an Oware move (position {where})")
        name = sw.PIT_NAMES[move]
        if self._over(state):
            why = "the game is over"
        elif move // 6 != state.to_move:
            why = f"pit {name} is not {sw.SIDE_NAMES[state.to_move]}'s"
        elif not state.pits[move]:
            why = f"pit {name} is empty"
        else:
            feeding = ", ".join(sw.PIT_NAMES[m] for m in legal)
            why = f"the opponent's row is empty and {feeding} would feed it (O8)"
        raise IllegalMove(f"illegal move {name} in {where}: {why}")


def make(profile: str, options: dict[str, Any]) -> Oware:
    """The registry's constructor (``engine.load``)."""
    return Oware(profile, options)
