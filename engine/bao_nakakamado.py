"""Bao Nakakamado, NYAKUA proposal A (``bao-nakakamado-a``): a profile of the Bao core.

Rules: ``docs/rules/bao.md`` N1–N9 on the core B1–B20. Source: seed
``000_d913db6ff940adcf`` (the trial rulebook ``nyakua-a-trial-001`` by nkkmd and
Bao Nakakamado contributors) and, where it is silent, the behaviour of its published
trial app. Pits and moves are Bao's (``engine.bao``)::

        b8 b7 b6 b5 b4 b3 b2 b1      North back      app: pits[1][1][7..0]
        a8 a7 a6 a5 a4 a3 a2 a1      North front     app: pits[1][0][7..0]
        A1 A2 A3 A4 A5 A6 A7 A8      South front     app: pits[0][0][0..7]
        B1 B2 B3 B4 B5 B6 B7 B8      South back      app: pits[0][1][0..7]

The profile is data on the core (``NAKAKAMADO_A``): K1's start without takasia (N1,
N2), the two-seed tax whatever the nyumba holds (N3), ownership ended by the mover's own
mtaji capture (N4), the safety stop (N8) and one hook, ``nyakua`` (N5). The ban on moves
that empty one's own front row (rulebook chapters 4 and 8) is the core's B18: the trial
app forbids exactly the lone kichwa sown outward, and no other move can empty the row
(a relay always passes another front pit before it could leave it).

Deliberate differences from the trial app, both from ``docs/rules/bao.md``: a nyumba emptied by a
namua start lift (a takasa from it, or a tax of its last two seeds) is no longer owned (N2,
B15; the app keeps it owned), and the safety stop cuts a move exactly after 512 laps past
its first (N8; the app also cuts a move whose 511th lap stops in a functional nyumba).

The trial app's file format (N9) is ``engine.records.nakakamado``.
"""

from __future__ import annotations

from typing import Any

from engine import bao_core as core
from engine.bao import Bao


def nyakua(
    rules: core.Rules,
    b: list[int],
    hands: list[int],
    owned: list[bool],
    p: int,
    summary: core.Summary,
    log: list[tuple[Any, ...]] | None,
) -> None:
    """N5, the end-pit addition: after a completed namua move with two or more capture
    events, while the mover holds a seed and the opponent two, one seed from each hand goes
    into the pit where the last lap ended. Nothing is judged again. The core calls this
    only after a completed move (never after a pass, a win mid-move or a safety stop)."""
    q = 1 - p
    if not summary.namua or summary.captures < 2 or hands[p] < 1 or hands[q] < 2:
        return
    if b[0:8] == core.EMPTY_ROW or b[16:24] == core.EMPTY_ROW:
        return  # the game ended (B14): no addition
    pit = (p << 4) + summary.endpoint
    for who in (p, q):
        hands[who] -= 1
        b[pit] += 1
        if log is not None:
            log.append(("place", pit, who, "nyakua"))


NAKAKAMADO_A = core.Rules(
    name="bao-nakakamado-a",
    front=(0, 0, 0, 0, 6, 2, 2, 0),  # N1 (K1)
    back=(0,) * 8,
    hand=22,
    nyumba=True,
    takasia=False,  # N1
    tax_min=1,  # N3
    mtaji_capture_ends="mover",  # N4
    endless="safety-stop",  # N8
    after_move=nyakua,  # N5
)


def make(profile: str, options: dict[str, Any]) -> Bao:
    return Bao(profile, options, NAKAKAMADO_A)
