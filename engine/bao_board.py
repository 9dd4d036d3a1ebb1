"""Bao's values and words: pit names, ``State``, ``Move`` and the table of every move, the
position text, and the steps a move's core log becomes. The rules are in ``engine.bao_core``;
the game object is ``engine.bao.Bao``. Pits, rows and text: ``engine.bao``'s docstring.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from engine import bao_core as core
from engine.core import Step

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
MOVE_TEXT = re.compile(r"([ABab][1-8])([LR])(2?)(\+?)")


def describe(state: State) -> str:
    """The one-line position text (module docstring of ``engine.bao``)."""
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


def read_position(text: str) -> State:
    """The state a position text names, unchecked; ValueError, IndexError or KeyError for
    text that is not one."""
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


def problem(rules: core.Rules, takasia: bool, s: State) -> str:
    """Why ``s`` cannot arise in a profile with ``rules`` and the ``takasia`` option, or ''."""
    if sum(s.pits) + sum(s.hands) + sum(s.pending) != 64:
        return "the seeds do not add up to 64 (B1)"
    empty = [not any(s.pits[p << 4 : (p << 4) + 8]) for p in (0, 1)]
    if all(empty):
        return "both front rows are empty"
    for p in (0, 1):
        if s.nyumba[p] and not rules.nyumba:
            return "this game has no nyumba to own (J1)"
        if s.nyumba[p] and not s.pits[(p << 4) + core.NYUMBA]:
            return "an empty nyumba is not owned (B15)"
        if s.pending[p] and not empty[1 - p]:
            return "pending seeds exist only after a win mid-move (B13)"
    if s.takasia:
        i = INDEX[s.takasia]
        if not takasia or s.hands[0] or s.hands[1]:
            return "takasia needs mtaji and the takasia option (K5)"
        if i >> 4 != s.to_move or i & 15 > 7 or s.pits[i] < 2:
            return "takasia names a front pit of the player to move with 2 or more seeds (K5)"
        if i & 15 == core.NYUMBA and s.nyumba[s.to_move]:
            return "an owned nyumba is never takasia'd (K5)"
    if s.adjudication is not None and (
        s.adjudication != "safety-stop" or rules.endless != "safety-stop"
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


def log_steps(entry: tuple[Any, ...]) -> list[Step]:
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


def code(kind: int, r: int, d: int, safari: bool, p: int, namua: bool) -> int:
    """The index in ``MOVES`` of a core start (B6): a namua capture's letter names the
    kichwa; ``0`` is the pass."""
    if kind == core.PASS:
        return 0
    left = d == 1 if kind == core.CAPTURE and namua else d == -1
    return ((p << 4 | r) << 3 | left << 2 | safari << 1 | (kind == core.TAX)) + 1


def _all_moves() -> list[tuple[int, Move]]:
    """Every move there is, as (rank in sorted order, move), indexed by ``code``."""
    moves = [PASS] + [
        Move(NAMES[i >> 3], "L" if i & 4 else "R", bool(i & 2), bool(i & 1)) for i in range(256)
    ]
    rank = {m: n for n, m in enumerate(sorted(moves))}
    return [(rank[m], m) for m in moves]


MOVES = _all_moves()


def move_of(kind: int, r: int, d: int, safari: bool, p: int, namua: bool) -> Move:
    """The Move of a core start (``bao_core.candidates``) by player ``p``; the search's way
    from the core's moves to the game's."""
    return MOVES[code(kind, r, d, safari, p, namua)][1]
