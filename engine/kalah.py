"""Kalah — profile ``kalah``, rules K1–K10 of ``docs/rules/kalah.md``.

Sources: seed ``001_fe9e11a67b869c08.txt`` (a Japanese play page for Kalah), restated and
numbered in ``docs/rules/kalah.md``, which decides. Option ``empty_capture`` follows Irving,
Donkers & Uiterwijk, "Solving Kalah" (2000).

- K1/K2: South (0, moves first) and North (1), six pits and a store each; ``seeds`` (3–6,
  default 4) in every pit, stores empty.
- K3: a move is one pit letter, South ``a``–``f``, North ``A``–``F``, each from its owner's left.
- K4: lift a non-empty own pit, sow counter-clockwise from the next pit through own pits, own
  store and opponent pits, skipping the opponent's store. With 13+ seeds the origin is sown too.
- K5: last seed in own store: the same player moves again (no limit).
- K6/K7: last seed in an own pit that was empty, opposite pit non-empty: both go to the store
  and the turn passes. ``empty_capture=True``: the last seed goes to the store even opposite an
  empty pit.
- K8: after every move, if either side's six pits are empty the game ends and each side's seeds
  go to its owner's store (``reason="side-empty"``). K9: most seeds in store wins, equal draws;
  no early stop at 25. K10: resignation/agreement are built by the server (``engine.core``).

Ring index of each field (moves are indices into ``"abcdefABCDEF"``; ring = move + move // 6)::

                 North (player 1)
           F    E    D    C    B    A
          12   11   10    9    8    7
    13                                  6
    store1                         store0
           0    1    2    3    4    5
           a    b    c    d    e    f
              South (player 0, moves first)

Sowing runs a → f → store0 → A → F → store1 → a; pit k faces pit 12 − k (a–F … f–A).

Position text (``describe``/``position``): a–f, ``[South's store]``, A–F, ``[North's store]``,
player to move — ``"4 4 4 4 4 4 [0] 4 4 4 4 4 4 [0] South"``.

Steps (``steps``): ``lift`` (pit, seeds), one ``sow`` per seed (pit or ``store0``/``store1``),
then ``extra-turn``, or ``capture`` (opposite pit, then the last pit) and ``store``; a move
that ends the game adds an ``end`` per non-empty pit (seeds to ``to``) and a closing ``end``
with ``note="side-empty"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from engine import sowing as sw
from engine.core import BadNotation, Outcome, Step

RING = tuple(range(6)) + tuple(range(7, 13))  # move k -> ring field
MOVE_OF = {r: k for k, r in enumerate(RING)}
STORE = (6, 13)
NAMES = tuple(sw.PIT_NAMES[:6]) + ("store0",) + tuple(sw.PIT_NAMES[6:]) + ("store1",)
SH = tuple(sw.shift(k) for k in range(14))
SOUTH, NORTH = sw.mask(range(6)), sw.mask(range(7, 13))  # each side's pits
PITS = (tuple(range(6)), tuple(range(7, 13)))  # each side's ring pits
MINE = tuple(tuple(r in RING[6 * p : 6 * p + 6] for r in range(14)) for p in (0, 1))
TABLES = sw.SowingTables(14, RING, lambda i, j: j == STORE[1 - (i > 6)], max_seeds=72)
SEQ = TABLES.seq
OWN_STORE, OWN_PIT, ELSEWHERE = 0, 1, 2  # where a move's last seed lands
# MOVES[i][n]: (add-vector, last field, where it lands) for n seeds lifted from ring pit i
MOVES = [
    tuple(
        (
            add,
            last,
            OWN_STORE if last == STORE[i > 6] else OWN_PIT if MINE[i > 6][last] else ELSEWHERE,
        )
        for add, last in zip(TABLES.add[i], TABLES.last[i], strict=True)
    )
    for i in range(14)
]


# -- the rules on a packed board: the one copy, and the fast path ``engine.search`` uses ----


def play_packed(
    b: int, i: int, empty_capture: bool = False, trace: list[Step] | None = None
) -> int:
    """Sow ring pit ``i`` of packed board ``b`` for the player to move (K4–K8).

    The caller guarantees the pit is the mover's and non-empty. With ``trace`` a list, the
    move's animation steps are appended to it. Returns the packed board after the move.
    """
    n = b >> SH[i] & 255
    add, last, lands = MOVES[i][n]
    b += add
    if trace is not None:
        trace.append(Step("lift", NAMES[i], n, player=b & 1))
        trace.extend(Step("sow", NAMES[j], 1, player=b & 1) for j in SEQ[i][n])
    if lands == OWN_STORE:  # K5
        if trace is not None:
            trace.append(Step("extra-turn", player=b & 1))
    else:
        if lands == OWN_PIT and b >> SH[last] & 255 == 1:  # K6: it was empty before the seed
            facing = 12 - last
            o = b >> SH[facing] & 255
            if o or empty_capture:
                p = b & 1
                b += ((o + 1) << SH[STORE[p]]) - (o << SH[facing]) - (1 << SH[last])
                if trace is not None:
                    if o:
                        trace.append(Step("capture", NAMES[facing], o, player=p))
                    trace.append(Step("capture", NAMES[last], 1, player=p))
                    trace.append(Step("store", seeds=o + 1, to=NAMES[STORE[p]], player=p))
        b ^= 1  # K7: the turn passes
    if not b & SOUTH or not b & NORTH:
        b = _finish(b, trace)
    return b


def _finish(b: int, trace: list[Step] | None) -> int:
    """K8: every seed left in a pit goes to its owner's store; the game is over."""
    for r in RING:
        n = b >> SH[r] & 255
        if n:
            owner = int(r > 6)
            b += (n << SH[STORE[owner]]) - (n << SH[r])
            if trace is not None:
                trace.append(Step("end", NAMES[r], n, to=NAMES[STORE[owner]], player=owner))
    if trace is not None:
        trace.append(Step("end", note="side-empty"))
    return b | sw.OVER


def random_playout_packed(
    b: int,
    empty_capture: bool,
    rand: Callable[[], float],
    record: list[int] | None = None,
) -> tuple[int, int]:
    """Play uniformly random legal moves from packed board ``b`` to the end.

    Returns the final packed board and the number of plies. Rejection sampling over the six
    pits is uniform over the non-empty ones (the legal moves); ``record`` collects the moves.
    """
    plies = 0
    while not b & sw.OVER:
        base = 7 if b & 1 else 0
        i = base + int(rand() * 6)
        while not b >> SH[i] & 255:
            i = base + int(rand() * 6)
        if record is not None:
            record.append(MOVE_OF[i])
        b = play_packed(b, i, empty_capture)
        plies += 1
    return b, plies


def pack(state: KalahState) -> int:
    """The packed board of a state (``sowing`` module docstring)."""
    p, (s0, s1) = state.pits, state.stores
    return int.from_bytes(bytes((state.to_move, *p[:6], s0, *p[6:], s1)), "little")


class KalahState(msgspec.Struct, frozen=True, forbid_unknown_fields=True, dict=True):
    """A Kalah position: ``pits`` a–f then A–F, ``stores`` (South, North), player to move."""

    pits: tuple[int, ...]
    stores: tuple[int, int]
    to_move: int


_POSITION = re.compile(
    r"^(?P<south>(?:\S+\s+){6})\[(?P<s0>\S+)\]\s+"
    r"(?P<north>(?:\S+\s+){6})\[(?P<s1>\S+)\]\s+(?P<who>\S+)$"
)


class Kalah(sw.SowingGame):
    """The game object ``engine.load("kalah", …)`` returns; see ``engine.core``."""

    title = "Kalah"
    state_type = KalahState
    trays = STORE

    def __init__(self, profile: str, options: dict[str, Any]) -> None:
        super().__init__(profile, options)
        self.seeds: int = options["seeds"]
        self.empty_capture: bool = options["empty_capture"]
        self.total = 12 * self.seeds

    def start(self) -> KalahState:
        return KalahState((self.seeds,) * 12, (0, 0), 0)

    def describe(self, state: KalahState) -> str:
        south, north = sw.rows(state.pits)
        s0, s1 = state.stores
        return f"{south} [{s0}] {north} [{s1}] {sw.SIDE_NAMES[state.to_move]}"

    def position(self, text: str) -> KalahState:
        head = text.strip() if isinstance(text, str) else ""
        form = "a–f [store] A–F [store] South|North"
        pits, stores, who = self._read(text, head, _POSITION, form)
        sw.check_total(text, pits + stores, self.total, f"K2, seeds={self.seeds}")
        if any(pits) and not (any(pits[:6]) and any(pits[6:])):
            raise BadNotation(
                f"position {text!r} has one side empty: the game is over (K8), "
                f"so its seeds belong in the stores"
            )
        return KalahState(tuple(pits), (stores[0], stores[1]), who)

    # -- the public API over the packed rules ---------------------------------------------
    def _cache(self, state: KalahState) -> dict[str, Any]:
        d = state.__dict__
        if "b" not in d:
            b = pack(state)
            if not b & SOUTH or not b & NORTH:  # K8
                b |= sw.OVER
            d["b"] = b
            d["legal"] = _legal(b)
        return d

    def _next(self, state: KalahState, move: int, trace: list[Any] | None) -> KalahState:
        b = play_packed(state.__dict__["b"], RING[move], self.empty_capture, trace)
        data = b.to_bytes(15, "little")
        after = KalahState(tuple(data[1:7] + data[8:14]), (data[7], data[14]), b & 1)
        d = after.__dict__
        d["b"] = b
        d["legal"] = _legal(b)
        return after

    def _ending(self, state: KalahState) -> Outcome:
        south, north = state.stores
        winner = None if south == north else int(north > south)
        return Outcome(winner=winner, reason="side-empty", score=(south, north))

    def _playout(
        self, state: KalahState, rand: Callable[[], float], record: list[int] | None
    ) -> tuple[int, int]:
        return random_playout_packed(self._cache(state)["b"], self.empty_capture, rand, record)


def _legal(b: int) -> tuple[int, ...]:
    """The legal moves on packed board ``b``: the mover's pits holding seeds (K4)."""
    if b & sw.OVER:
        return ()
    if b & 1:
        return sw.LEGAL[1][b.to_bytes(15, "little")[8:14].translate(sw.NONZERO)]
    return sw.LEGAL[0][b.to_bytes(15, "little")[1:7].translate(sw.NONZERO)]


def make(profile: str, options: dict[str, Any]) -> Kalah:
    """The registry's constructor (``engine.load``)."""
    return Kalah(profile, options)
