"""Bao la Kiswahili and Bao la Kujifunza: the public, immutable Bao games.

Rules: ``docs/rules/bao.md``: core B1–B20, profile ``bao-kiswahili``
(K1–K6) and ``bao-kujifunza`` (J1–J3). Sources: A. de Voogt, *Limits of the
Mind* (Leiden 1995); H. Donkers, *Zanzibar Bao Rules for the Computer* (2001);
seed ``003_1da14aaf285d304a``. The rules themselves live once, in
``engine.bao_core``; profiles are ``Rules`` data there plus hooks. Pits, as
the literature draws them (North on top, rows read as South sees them)::

        b8 b7 b6 b5 b4 b3 b2 b1      North back
        a8 a7 a6 a5 a4 a3 a2 a1      North front   (a5 nyumba, a1/a8 kichwa)
        A1 A2 A3 A4 A5 A6 A7 A8      South front   (A5 nyumba, A1/A8 kichwa)
        B1 B2 B3 B4 B5 B6 B7 B8      South back

Moves (B6), ``Move(pit, side, safari, tax)``:

- ``A7L``: start pit and direction, ``L`` anticlockwise (toward pit 1),
  ``R`` clockwise (toward pit 8), for every takasa and every mtaji move;
- ``a5R``: a namua capture names the kichwa the captured seeds enter
  (``R`` = front 8, sowing anticlockwise; ``L`` = front 1, clockwise);
- ``a5R+``: the same capture choosing safari when it reaches the functional
  nyumba (B15); without ``+`` it stops there. Both are listed when the
  choice arises, only the plain form when it does not;
- ``A5L2``: a tax (K3): the nyumba, the direction, ``2`` for the two seeds;
- ``pass``: B19.

Position text (``describe``/``position``), one line::

    0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S namua hands=22,22 nyumba=SN

the four rows b8..b1 / a8..a1 / A1..A8 / B1..B8, the side to move (``S``/``N``),
the stage, both hands, the owned nyumba (``S``, ``N``, ``SN`` or ``-``), then
optionally ``takasia=a4`` (the mover's pit blocked for this move, K5),
``pending=0,3`` (captured seeds left unsown by a win, B13) and
``adjudication=safety-stop`` (N8). A position must hold 64 seeds.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable
from typing import Any

import msgspec

from engine import bao_core as core
from engine.core import BadNotation, Choice, IllegalMove, Outcome, Step, Transition

PLAYER = ("S", "N")
# NAMES[16 * player + ring]: ring 0-7 front 1-8, ring 8-15 back 8-1 (B2, B5)
NAMES = tuple(
    f"{'Aa'[p] if r < 8 else 'Bb'[p]}{r + 1 if r < 8 else 16 - r}"
    for p in (0, 1)
    for r in range(16)
)
INDEX = {name: i for i, name in enumerate(NAMES)}
# The rows of a position text, top to bottom: b8..b1, a8..a1, A1..A8, B1..B8.
ROWS = (
    tuple(range(24, 32)),
    tuple(range(23, 15, -1)),
    tuple(range(8)),
    tuple(range(15, 7, -1)),
)
BOARD_ORDER = tuple(INDEX[f"{row}{i}"] for row in "ABab" for i in range(1, 9))

KISWAHILI = core.Rules(
    name="bao-kiswahili",
    front=(0, 0, 0, 0, 6, 2, 2, 0),  # K1
    back=(0,) * 8,
    hand=22,
    nyumba=True,
    takasia=True,  # K5
)
KUJIFUNZA = core.Rules(
    name="bao-kujifunza",
    front=(2,) * 8,  # J1
    back=(2,) * 8,
    hand=0,
    nyumba=False,
    takasia=False,  # J2
    tax_min=None,
)
RULES = {r.name: r for r in (KISWAHILI, KUJIFUNZA)}


class State(msgspec.Struct, frozen=True, dict=True):
    """A Bao position. ``pits`` is in ring order (``NAMES``); ``nyumba`` says
    which players still own theirs; ``takasia`` names the pit of the player to
    move that is takasia'd for this move (K5). What ``legal_moves`` learns about a state
    is kept in its ``__dict__`` (never encoded, not part of equality)."""

    pits: tuple[int, ...]
    hands: tuple[int, int]
    to_move: int
    nyumba: tuple[bool, bool]
    takasia: str | None = None
    pending: tuple[int, int] = (0, 0)
    adjudication: str | None = None


class Move(msgspec.Struct, frozen=True, order=True):
    """A complete Bao move; ``Move()`` is a pass. See the module docstring."""

    pit: str = ""
    side: str = ""
    safari: bool = False
    tax: bool = False


PASS = Move()
_MOVE = re.compile(r"([ABab][1-8])([LR])(2?)(\+?)")


class _Table:
    """Everything ``legal_moves`` learned about one position (kept on the state)."""

    __slots__ = ("endless", "legal", "raw")

    def __init__(self) -> None:
        self.legal: tuple[Move, ...] = ()
        self.raw: dict[Move, tuple[Any, ...]] = {}
        self.endless: set[Move] = set()


_NONE = _Table()
_GAMES = itertools.count()


class Bao:
    """One Bao profile with its options (stateless)."""

    family = "bao"
    state_type = State

    def __init__(self, profile: str, options: dict[str, Any], rules: core.Rules) -> None:
        self.profile = profile
        self.options = dict(options)
        self.rules = rules
        self.takasia = bool(options.get("takasia", rules.takasia))
        # a state may be asked of several games (profiles, options): each keeps its own table
        self._key = f"table{next(_GAMES)}"

    # -- playing -------------------------------------------------------------

    def start(self) -> State:
        r = self.rules
        ring = r.front + r.back[::-1]
        return State(ring + ring, (r.hand, r.hand), 0, (r.nyumba, r.nyumba))

    def to_move(self, state: State) -> int:
        return state.to_move

    def legal_moves(self, state: State) -> tuple[Move, ...]:
        return self._table(state).legal

    def play(self, state: State, move: Move) -> State:
        raw = self._raw(state, self._table(state), move)
        b, hands, owned, summary = raw[0][:], raw[1][:], raw[2][:], raw[3]
        return self._after(state, b, hands, owned, summary, None)

    def apply(self, state: State, move: Move) -> Transition:
        """``play``, ``steps``, ``outcome`` and the next ``choices`` with the move run once."""
        kind, r, d = self._raw(state, self._table(state), move)[4:]
        p = state.to_move
        b, hands, owned = list(state.pits), list(state.hands), list(state.nyumba)
        log: list[tuple[Any, ...]] = []
        summary = core.run(
            self.rules, b, hands, owned, p, kind, r, d, move.safari, self.takasia_ring(state), log
        )
        after = self._after(state, b, hands, owned, summary, log)
        steps = [s for entry in log for s in _steps(entry)]
        if (state.hands[0] or state.hands[1]) and not (after.hands[0] or after.hands[1]):
            steps.append(Step("stage", note="mtaji"))  # B17
        over = self.outcome(after)
        if over is not None:
            steps.append(Step("end", player=over.winner, note=over.reason))
        return Transition(
            move, self.notation(move), tuple(steps), after, after.to_move, over, self.choices(after)
        )

    def _after(
        self,
        state: State,
        b: list[int],
        hands: list[int],
        owned: list[bool],
        summary: core.Summary,
        log: list[tuple[Any, ...]] | None,
    ) -> State:
        """The state after a move the core ran on ``b``, ``hands``, ``owned``: the
        after-move rules applied (``core.finish``, with ``log``)."""
        p = state.to_move
        t = core.finish(self.rules, self.takasia, b, hands, owned, p, summary, log)
        pending = [0, 0]
        pending[p] = summary.pending
        return State(
            tuple(b),
            (hands[0], hands[1]),
            1 - p,
            (owned[0], owned[1]),
            NAMES[((1 - p) << 4) + t] if t >= 0 else None,
            (pending[0], pending[1]),
            "safety-stop" if summary.status == core.ENDLESS else None,
        )

    def outcome(self, state: State) -> Outcome | None:
        if state.adjudication is not None:
            return Outcome(None, "relay-limit", adjudication=state.adjudication)  # N8
        for p in (0, 1):
            if not any(state.pits[p << 4 : (p << 4) + 8]):
                return Outcome(1 - p, "front-empty")  # B13, B14
        if not self._table(state).legal:
            return Outcome(1 - state.to_move, "no-move")  # B14, K6
        return None

    def steps(self, state: State, move: Move) -> tuple[Step, ...]:
        """The move's animation, from ``state``'s board to exactly ``play``'s."""
        return self.apply(state, move).steps

    def choices(self, state: State) -> tuple[Choice, ...]:
        out = []
        for move in self._table(state).legal:
            pit, choice = self.origin(move, state)
            out.append(Choice(self.notation(move), pit, choice))
        return tuple(out)

    def summary(self, state: State, move: Move) -> core.Summary:
        """What ``move`` did before the after-move rules: captures, the pit its last lap
        ended in, laps, whether the stop/safari choice arose … (for records, N6)."""
        return self._raw(state, self._table(state), move)[3]  # type: ignore[no-any-return]

    # -- text ------------------------------------------------------------------

    def notation(self, move: Move) -> str:
        if not move.pit:
            return "pass"
        return f"{move.pit}{move.side}{'2' if move.tax else ''}{'+' if move.safari else ''}"

    def origin(self, move: Move, state: State | None = None) -> tuple[str | None, str]:
        """The pit a player clicks for ``move`` and what tells it from the other moves
        from that pit: ``L``/``R`` (direction), ``+`` for safari, ``2`` for a tax; a pass
        has no pit. Given the position, a namua capture says ``kichwa-L``/``kichwa-R``
        (the kichwa its seeds enter, B6/B10), with `` +`` for safari."""
        if not move.pit:
            return None, "pass"
        choice = self.notation(move)[len(move.pit) :]
        if state is not None and (state.hands[0] or state.hands[1]):
            entry = self._table(state).raw.get(move)
            if entry is not None and entry[4] == core.CAPTURE:
                choice = f"kichwa-{move.side}" + (" +" if move.safari else "")
        return move.pit, choice

    def parse(self, state: State, text: str) -> Move:
        if text == "pass":
            return PASS
        m = _MOVE.fullmatch(text) if isinstance(text, str) else None
        if m is None or (m[3] and m[4]):
            raise BadNotation(f"{text!r} is not a Bao move (e.g. A7L, a5R+, A5L2, pass)")
        return Move(m[1], m[2], bool(m[4]), bool(m[3]))

    def describe(self, state: State) -> str:
        rows = "/".join(",".join(str(state.pits[i]) for i in row) for row in ROWS)
        owned = "".join(PLAYER[p] for p in (0, 1) if state.nyumba[p]) or "-"
        stage = "namua" if state.hands[0] or state.hands[1] else "mtaji"
        text = (
            f"{rows} {PLAYER[state.to_move]} {stage} "
            f"hands={state.hands[0]},{state.hands[1]} nyumba={owned}"
        )
        if state.takasia:
            text += f" takasia={state.takasia}"
        if any(state.pending):
            text += f" pending={state.pending[0]},{state.pending[1]}"
        if state.adjudication:
            text += f" adjudication={state.adjudication}"
        return text

    def position(self, text: str) -> State:
        try:
            state = self._read(text)
        except (ValueError, IndexError, KeyError) as e:
            raise BadNotation(f"{text!r} is not a Bao position: {e}") from None
        problem = self._problem(state)
        if problem:
            raise BadNotation(f"{text!r} is not a legal Bao position: {problem}")
        return state

    def board(self, state: State) -> dict[str, Any]:
        return {
            "pits": {NAMES[i]: state.pits[i] for i in BOARD_ORDER},
            "hands": list(state.hands),
            "stage": "namua" if state.hands[0] or state.hands[1] else "mtaji",
            "nyumba": list(state.nyumba),
            "takasia": state.takasia,
            "pending": list(state.pending),
        }

    # -- inside ----------------------------------------------------------------

    def takasia_ring(self, state: State) -> int:
        """The ring index of the pit of the player to move takasia'd for this move (K5), or -1."""
        return INDEX[state.takasia] & 15 if state.takasia else -1

    def _raw(self, state: State, table: _Table, move: Any) -> tuple[Any, ...]:
        raw = table.raw.get(move) if isinstance(move, Move) else None
        if raw is None:
            name = self.notation(move) if isinstance(move, Move) else repr(move)
            why = " (it never ends, K6)" if isinstance(move, Move) and move in table.endless else ""
            raise IllegalMove(f"{name} is not legal in {self.describe(state)}{why}")
        return raw

    def _table(self, state: State) -> _Table:
        try:
            return state.__dict__[self._key]  # type: ignore[no-any-return]
        except KeyError:
            table = state.__dict__[self._key] = self._build(state)
            return table

    def _build(self, state: State) -> _Table:
        pits = state.pits
        if state.adjudication or not any(pits[0:8]) or not any(pits[16:24]):
            return _NONE
        p = state.to_move
        namua = bool(state.hands[0] or state.hands[1])
        illegal = self.rules.endless == "illegal"
        table = _Table()
        ranked = []
        for kind, r, d, safari, b, hands, owned, summary in core.expand(
            self.rules,
            list(pits),
            list(state.hands),
            list(state.nyumba),
            p,
            self.takasia_ring(state),
        ):
            rank, move = _MOVES[_code(kind, r, d, safari, p, namua)]
            if illegal and summary.status == core.ENDLESS:
                table.endless.add(move)  # K6
            else:
                table.raw[move] = (b, hands, owned, summary, kind, r, d)
                ranked.append((rank, move))
        ranked.sort()  # by rank: the same order as sorting the moves, but cheaper
        table.legal = tuple(move for _, move in ranked)
        return table

    def random_playout(
        self,
        state: State | None = None,
        rand: Callable[[], float] = random.random,
        record: list[Move] | None = None,
    ) -> tuple[int | None, int]:
        """Uniformly random legal moves from ``state`` (default: the start) to the end, on
        plain lists with the same rules functions and no state objects: the computer
        player's fast path. Returns (winner or None, plies); ``record`` collects the moves."""
        state = state or self.start()
        if self.outcome(state) is not None:
            return self.outcome(state).winner, 0  # type: ignore[union-attr]
        rules, takasia = self.rules, self.takasia
        illegal = rules.endless == "illegal"
        b, hands, owned = list(state.pits), list(state.hands), list(state.nyumba)
        p, block, plies = state.to_move, self.takasia_ring(state), 0
        while True:
            if b[0:8] == core.EMPTY_ROW:
                return 1, plies  # B13, B14
            if b[16:24] == core.EMPTY_ROW:
                return 0, plies
            options = core.expand(rules, b, hands, owned, p, block)
            if illegal:
                options = [o for o in options if o[7].status != core.ENDLESS]
            if not options:
                return 1 - p, plies  # B14, K6
            kind, r, d, safari, b, new_hands, owned, summary = options[int(rand() * len(options))]
            if record is not None:
                record.append(move_of(kind, r, d, safari, p, bool(hands[0] or hands[1])))
            hands = new_hands
            plies += 1
            if summary.status == core.ENDLESS:
                return None, plies  # a safety stop (N8)
            block = core.finish(rules, takasia, b, hands, owned, p, summary)
            p = 1 - p

    def _read(self, text: str) -> State:
        fields = text.split()
        rows = fields[0].split("/")
        if len(rows) != 4:
            raise ValueError("expected four rows b8..b1/a8..a1/A1..A8/B1..B8")
        pits = [0] * 32
        for row, idx in zip(rows, ROWS):
            counts = row.split(",")
            if len(counts) != 8:
                raise ValueError(f"row {row!r} needs 8 counts")
            for i, c in zip(idx, counts):
                pits[i] = _count(c)
        to_move = PLAYER.index(fields[1])
        stage = fields[2]
        if stage not in ("namua", "mtaji"):
            raise ValueError(f"stage {stage!r} is neither namua nor mtaji")
        keys: dict[str, str] = {}
        for f in fields[3:]:
            key, _, value = f.partition("=")
            if key not in ("hands", "nyumba", "takasia", "pending", "adjudication") or key in keys:
                raise ValueError(f"unexpected {f!r}")
            keys[key] = value
        hands = _pair(keys["hands"])
        owned = keys["nyumba"]
        if owned not in ("-", "S", "N", "SN"):
            raise ValueError(f"nyumba={owned} is not S, N, SN or -")
        if (stage == "namua") != bool(hands[0] or hands[1]):
            raise ValueError(f"stage {stage} does not match hands {hands}")
        takasia = keys.get("takasia")
        if takasia is not None and takasia not in INDEX:
            raise ValueError(f"takasia={takasia} is not a pit")
        return State(
            tuple(pits),
            hands,
            to_move,
            ("S" in owned, "N" in owned),
            takasia,
            _pair(keys.get("pending", "0,0")),
            keys.get("adjudication"),
        )

    def _problem(self, s: State) -> str:
        """Why ``s`` cannot arise in this profile, or ''."""
        if sum(s.pits) + sum(s.hands) + sum(s.pending) != 64:
            return "the seeds do not add up to 64 (B1)"
        empty = [not any(s.pits[p << 4 : (p << 4) + 8]) for p in (0, 1)]
        if all(empty):
            return "both front rows are empty"
        for p in (0, 1):
            if s.nyumba[p] and not self.rules.nyumba:
                return "this game has no nyumba to own (J1)"
            if s.nyumba[p] and not s.pits[(p << 4) + core.NYUMBA]:
                return "an empty nyumba is not owned (B15)"
            if s.pending[p] and not empty[1 - p]:
                return "pending seeds exist only after a win mid-move (B13)"
        if s.takasia:
            i = INDEX[s.takasia]
            if not self.takasia or s.hands[0] or s.hands[1]:
                return "takasia needs mtaji and the takasia option (K5)"
            if i >> 4 != s.to_move or i & 15 > 7 or s.pits[i] < 2:
                return "takasia names a front pit of the player to move with 2 or more seeds (K5)"
            if i & 15 == core.NYUMBA and s.nyumba[s.to_move]:
                return "an owned nyumba is never takasia'd (K5)"
        if s.adjudication is not None and (
            s.adjudication != "safety-stop" or self.rules.endless != "safety-stop"
        ):
            return f"adjudication {s.adjudication} does not exist in this game"
        return ""


def _count(text: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{text!r} is not a seed count")
    return int(text)


def _pair(text: str) -> tuple[int, int]:
    a, b = text.split(",")
    return _count(a), _count(b)


def _steps(entry: tuple[Any, ...]) -> list[Step]:
    """Core log entries as engine Steps."""
    what = entry[0]
    if what == "lap":
        _, base, pos, d, n = entry
        p = base >> 4
        out = []
        for _ in range(n):
            pos = (pos + d) & 15
            out.append(Step("sow", pit=NAMES[base + pos], seeds=1, player=p))
        return out
    if what == "place":  # a hand seed; a profile rule may name itself (N5: "nyakua")
        note = entry[3] if len(entry) > 3 else None
        return [Step("place", pit=NAMES[entry[1]], seeds=1, player=entry[2], note=note)]
    if what == "lift":
        _, i, n, note = entry
        lift = Step("lift", pit=NAMES[i], seeds=n, player=i >> 4)
        return [Step("tax", pit=NAMES[i], seeds=n, player=i >> 4), lift] if note else [lift]
    if what == "relay":
        _, i, n, p, note = entry
        return [
            Step("relay", pit=NAMES[i], seeds=n, player=p, note=note),
            Step("lift", pit=NAMES[i], seeds=n, player=p),
        ]
    if what == "capture":
        _, f, c, k, p = entry
        return [Step("capture", pit=NAMES[f], seeds=c, to=NAMES[k], player=p)]
    if what == "lost":
        p = entry[1]
        return [Step("nyumba", pit=NAMES[(p << 4) + core.NYUMBA], player=p, note="lost")]
    if what == "stop":
        return [Step("stop", pit=NAMES[entry[1]], note=entry[2])]
    if what == "end":
        return [Step("stop", seeds=entry[2], player=entry[1], note=core.WON)]
    if what == "takasia":
        return [Step("takasia", pit=NAMES[entry[1]], player=entry[2])]
    if what == "pass":
        return [Step("pass", player=entry[1])]
    raise AssertionError(entry)


def _code(kind: int, r: int, d: int, safari: bool, p: int, namua: bool) -> int:
    """The index in ``_MOVES`` of a core start (B6): a namua capture's letter names the
    kichwa; ``0`` is the pass."""
    if kind == core.PASS:
        return 0
    left = d == 1 if kind == core.CAPTURE and namua else d == -1
    return ((p << 4 | r) << 3 | left << 2 | safari << 1 | (kind == core.TAX)) + 1


def _all_moves() -> list[tuple[int, Move]]:
    """Every move there is, as (rank in sorted order, move), indexed by ``_code``."""
    moves = [PASS] + [
        Move(NAMES[i >> 3], "L" if i & 4 else "R", bool(i & 2), bool(i & 1)) for i in range(256)
    ]
    rank = {m: n for n, m in enumerate(sorted(moves))}
    return [(rank[m], m) for m in moves]


_MOVES = _all_moves()


def move_of(kind: int, r: int, d: int, safari: bool, p: int, namua: bool) -> Move:
    """The Move of a core start (``bao_core.candidates``) by player ``p``; the search's way
    from the core's moves to the game's."""
    return _MOVES[_code(kind, r, d, safari, p, namua)][1]


def make(profile: str, options: dict[str, Any]) -> Bao:
    return Bao(profile, options, RULES[profile])
