"""What the sowing games (Kalah, Oware) share: packed boards, sowing tables, one-letter moves,
the board a client draws, and the public API over a board cached on each state.

Each family keeps its rules in one function that works on a *packed board*: a single Python
int. Bit 0 is the player to move (0 South, 1 North), bit 1 is set once the game is over, bit 2
marks an Oware game ended by repetition (O11). Ring field ``k`` (a pit, a store or a score tray)
holds its seed count in the byte at ``shift(k)``, so ``b.to_bytes(15, "little")[k + 1]`` is
field ``k``: unpacking a whole board is one C call. Sowing ``n`` seeds from a pit is one integer
addition of a precomputed *add-vector* (+1 in every field sown, −n in the origin), and "is this
side empty" is one AND with a mask: that is what makes playouts fast in pure Python.

The public, immutable API (``SowingGame``) keeps each state's packed board and legal moves in
the state's own ``__dict__`` (msgspec's ``dict=True``: private runtime data, never encoded, not
part of equality), computed once per state, so ``legal_moves``, ``play`` and ``outcome`` on the
same state never repeat work. ``play`` and ``apply`` call the same rules function.

>>> b = pack([4, 0, 2], to_move=1)
>>> unpack(b, 3), b & TO_MOVE
([4, 0, 2], 1)
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine import registry
from engine.core import BadNotation, Choice, IllegalMove, Outcome, Transition

TO_MOVE = 1
OVER = 2
REPETITION = 4
WIDTH = 8  # bits per field: a pit may hold every seed in the game (72 at most)
FIELD = (1 << WIDTH) - 1
BYTES = 15  # a flags byte and 14 fields
PIT_NAMES = "abcdefABCDEF"  # move k is the pit named PIT_NAMES[k] (K3, O2)
SIDE_NAMES = ("South", "North")
NONZERO = bytes([0] + [1] * 255)  # bytes.translate table: seeds -> 0/1
# LEGAL[p][six 0/1 bytes]: the moves of player p whose pits hold seeds
LEGAL = tuple(
    {
        bytes((m >> k) & 1 for k in range(6)): tuple(6 * p + k for k in range(6) if m >> k & 1)
        for m in range(64)
    }
    for p in (0, 1)
)
CHOICES = tuple(Choice(name, name, "") for name in PIT_NAMES)


def shift(k: int) -> int:
    """Bit offset of ring field ``k`` in a packed board."""
    return WIDTH * (k + 1)


def pack(values: Iterable[int], to_move: int = 0, flags: int = 0) -> int:
    """Packed board holding ``values`` in ring fields 0, 1, …"""
    b = to_move | flags
    for k, v in enumerate(values):
        b |= v << shift(k)
    return b


def unpack(b: int, count: int) -> list[int]:
    """The first ``count`` ring fields of packed board ``b``."""
    return list(b.to_bytes(BYTES, "little")[1 : count + 1])


def mask(fields: Iterable[int]) -> int:
    """A mask covering the given ring fields (for emptiness tests)."""
    return sum(FIELD << shift(k) for k in fields)


class SowingTables:
    """For each sowing pit ``i`` and seed count ``n``: the ring fields sown, in order
    (``seq[i][n]``), the last one (``last[i][n]``) and the packed add-vector (``add[i][n]``,
    which also empties the origin)."""

    def __init__(
        self,
        ring: int,
        pits: Sequence[int],
        skipped: Callable[[int, int], bool],
        max_seeds: int,
    ) -> None:
        self.seq: list[tuple[tuple[int, ...], ...]] = [() for _ in range(ring)]
        self.add: list[tuple[int, ...]] = [() for _ in range(ring)]
        self.last: list[tuple[int, ...]] = [() for _ in range(ring)]
        for i in pits:
            order = [j % ring for j in range(i + 1, i + 1 + ring) if not skipped(i, j % ring)]
            seqs = [tuple(order[t % len(order)] for t in range(n)) for n in range(max_seeds + 1)]
            self.seq[i] = tuple(seqs)
            self.add[i] = tuple(sum(1 << shift(j) for j in s) - (len(s) << shift(i)) for s in seqs)
            self.last[i] = tuple(s[-1] if s else i for s in seqs)


def read_counts(text: str, tokens: Sequence[str], what: str) -> list[int]:
    """Seed counts from position tokens; BadNotation naming ``text`` otherwise."""
    try:
        counts = [int(t) for t in tokens]
    except ValueError:
        raise BadNotation(f"bad {what} in position {text!r}: {' '.join(tokens)!r}") from None
    if any(c < 0 or c > FIELD for c in counts):
        raise BadNotation(f"bad {what} in position {text!r}: counts must be 0–{FIELD}")
    return counts


def read_side(text: str, token: str) -> int:
    """0 for ``South``, 1 for ``North``; BadNotation otherwise."""
    if token not in SIDE_NAMES:
        raise BadNotation(f"position {text!r} must name the player to move: South or North")
    return SIDE_NAMES.index(token)


def check_total(text: str, counts: Iterable[int], total: int, rule: str) -> None:
    """BadNotation unless a position's seeds add up to ``total``."""
    held = sum(counts)
    if held != total:
        raise BadNotation(f"position {text!r} holds {held} seeds, not {total} ({rule})")


def rows(pits: Sequence[int]) -> tuple[str, str]:
    """South's and North's pit counts as position text."""
    return " ".join(map(str, pits[:6])), " ".join(map(str, pits[6:]))


class SowingGame:
    """The public API of a sowing game over its packed-board rules.

    A family sets ``title``, ``state_type``, ``trays`` (the ring fields of the
    stores or score trays) and implements ``_cache`` (fill a state's ``__dict__`` with ``b``
    and ``legal``), ``_next`` (the state after a legal move, appending steps to a trace),
    ``_ending`` (the outcome of a finished state), ``_playout`` (the packed random playout),
    ``describe``, ``position`` and ``start``. ``_cache`` fills a state's dict only once and
    returns it.
    """

    title: str
    state_type: type
    trays: tuple[int, int]

    def __init__(self, profile: str, options: dict[str, Any]) -> None:
        self.profile = profile
        self.family = registry.find(profile).family
        self.options = dict(options)

    def __repr__(self) -> str:
        return f"<{self.title} {self.options}>"

    def start(self) -> Any:
        raise NotImplementedError

    def describe(self, state: Any) -> str:
        raise NotImplementedError

    def _cache(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _next(self, state: Any, move: int, trace: list[Any] | None) -> Any:
        raise NotImplementedError

    def _ending(self, state: Any) -> Outcome:
        raise NotImplementedError

    def _playout(
        self, state: Any, rand: Callable[[], float], record: list[int] | None
    ) -> tuple[int, int]:
        raise NotImplementedError

    # -- values ---------------------------------------------------------------------------
    def to_move(self, state: Any) -> int:
        return state.to_move  # type: ignore[no-any-return]

    def legal_moves(self, state: Any) -> tuple[int, ...]:
        try:
            return state.__dict__["legal"]  # type: ignore[no-any-return]
        except KeyError:
            return self._cache(state)["legal"]  # type: ignore[no-any-return]

    def play(self, state: Any, move: int) -> Any:
        try:
            legal = state.__dict__["legal"]
        except KeyError:
            legal = self._cache(state)["legal"]
        if type(move) is not int or move not in legal:
            self._refuse(state, move)
        return self._next(state, move, None)

    def apply(self, state: Any, move: int) -> Transition:
        if type(move) is not int or move not in self.legal_moves(state):
            self._refuse(state, move)
        trace: list[Any] = []
        after = self._next(state, move, trace)
        legal = after.__dict__["legal"]
        return Transition(
            move,
            PIT_NAMES[move],
            tuple(trace),
            after,
            after.to_move,
            None if legal else self._ending(after),
            tuple(CHOICES[m] for m in legal),
        )

    def steps(self, state: Any, move: int) -> tuple[Any, ...]:
        return self.apply(state, move).steps

    def outcome(self, state: Any) -> Outcome | None:
        try:
            legal = state.__dict__["legal"]
        except KeyError:
            legal = self._cache(state)["legal"]
        return None if legal else self._ending(state)

    def choices(self, state: Any) -> tuple[Choice, ...]:
        return tuple(CHOICES[m] for m in self.legal_moves(state))

    def origin(self, move: int, state: Any = None) -> tuple[str | None, str]:
        """A move is its pit: nothing else to choose (K3, O2)."""
        return self.notation(move), ""

    def board(self, state: Any) -> dict[str, Any]:
        data = self._cache(state)["b"].to_bytes(BYTES, "little")
        return {
            "pits": dict(zip(PIT_NAMES, state.pits, strict=True)),
            "stores": [data[self.trays[0] + 1], data[self.trays[1] + 1]],
        }

    # -- text -----------------------------------------------------------------------------
    def notation(self, move: int) -> str:
        if type(move) is not int or not 0 <= move < 12:
            raise IllegalMove(f"{move!r} is not {self._a} move")
        return PIT_NAMES[move]

    def parse(self, state: Any, text: str) -> int:
        if not isinstance(text, str) or len(text) != 1 or text not in PIT_NAMES:
            raise BadNotation(
                f"{text!r} is not {self._a} move: write one pit letter, a–f (South) or A–F (North)"
            )
        move = PIT_NAMES.index(text)
        if move not in self.legal_moves(state):
            self._refuse(state, move)
        return move

    def _read(
        self, text: str, head: str, pattern: re.Pattern[str], form: str
    ) -> tuple[list[int], list[int], int]:
        """Pit counts, tray counts and the player to move from ``head``, the board part of
        position ``text``, matched by ``pattern`` (groups ``south``, ``north``, ``s0``,
        ``s1``, ``who``); BadNotation showing ``form`` and an example otherwise."""
        m = pattern.match(head)
        if m is None:
            raise BadNotation(
                f"{text!r} is not {self._a} position: write {form}, "
                f"e.g. {self.describe(self.start())!r}"
            )
        pits = read_counts(text, m["south"].split() + m["north"].split(), "pit counts")
        trays = read_counts(text, [m["s0"], m["s1"]], "stores")
        return pits, trays, read_side(text, m["who"])

    # -- fast path (bench, computer player) -----------------------------------------------
    def random_playout(
        self,
        state: Any = None,
        rand: Callable[[], float] = random.random,
        record: list[int] | None = None,
    ) -> tuple[int | None, int]:
        """A uniformly random playout from ``state`` (default: the start), on the packed board.

        Returns (winner or None for a draw, plies played). ``record`` collects the moves.
        """
        b, plies = self._playout(self.start() if state is None else state, rand, record)
        south, north = b >> shift(self.trays[0]) & FIELD, b >> shift(self.trays[1]) & FIELD
        return (None if south == north else int(north > south)), plies

    # -- refusals -------------------------------------------------------------------------
    @property
    def _a(self) -> str:
        return f"an {self.title}" if self.title[0] in "AEIOU" else f"a {self.title}"

    def _refuse(self, state: Any, move: Any) -> None:
        """IllegalMove for a move not in ``legal_moves(state)``, saying why."""
        where = self.describe(state)
        if type(move) is not int or not 0 <= move < 12:
            raise IllegalMove(f"{move!r} is not {self._a} move (position {where})")
        name = PIT_NAMES[move]
        legal = self.legal_moves(state)
        if not legal:
            why = "the game is over"
        elif move // 6 != state.to_move:
            why = f"pit {name} is not {SIDE_NAMES[state.to_move]}'s"
        elif not state.pits[move]:
            why = f"pit {name} is empty"
        else:
            feeding = ", ".join(PIT_NAMES[m] for m in legal)
            why = f"the opponent's row is empty and {feeding} would feed it (O8)"
        raise IllegalMove(f"illegal move {name} in {where}: {why}")
