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
from collections.abc import Callable
from typing import Any

from engine import bao_core as core
from engine.bao_board import (
    BOARD_ORDER,
    INDEX,
    MOVE_TEXT,
    MOVES,
    NAMES,
    PASS,
    Move,
    State,
    code,
    describe,
    log_steps,
    move_of,
    read_position,
)
from engine.bao_board import problem as bad_position
from engine.core import BadNotation, Choice, IllegalMove, Outcome, Step, Transition

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


def read_move(text: str) -> Move:
    """The move ``text`` writes, legal or not (B6); BadNotation for text that is no Bao move."""
    if text == "pass":
        return PASS
    m = MOVE_TEXT.fullmatch(text) if isinstance(text, str) else None
    if m is None or (m[3] and m[4]):
        raise BadNotation(f"{text!r} is not a Bao move (e.g. A7L, a5R+, A5L2, pass)")
    return Move(m[1], m[2], bool(m[4]), bool(m[3]))


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
        steps = [s for entry in log for s in log_steps(entry)]
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
        """The legal move ``text`` names: BadNotation for text that is no Bao move,
        IllegalMove for a move not legal in ``state`` (looked up in the table the
        state keeps, so ``apply`` afterwards does not build it again)."""
        move = read_move(text)
        self._raw(state, self._table(state), move)
        return move

    def describe(self, state: State) -> str:
        return describe(state)

    def position(self, text: str) -> State:
        try:
            state = read_position(text)
        except (ValueError, IndexError, KeyError) as e:
            raise BadNotation(f"{text!r} is not a Bao position: {e}") from None
        problem = bad_position(self.rules, self.takasia, state)
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
            rank, move = MOVES[code(kind, r, d, safari, p, namua)]
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


def make(profile: str, options: dict[str, Any]) -> Bao:
    return Bao(profile, options, RULES[profile])


__all__ = [
    "KISWAHILI",
    "KUJIFUNZA",
    "NAMES",
    "PASS",
    "RULES",
    "Bao",
    "Move",
    "State",
    "make",
    "read_move",
]
