"""The pure part of a move's CPU: what a node runs for one move besides its sockets and the
store (``rooms.judge``, the notice and the record ``delta.notice`` makes, ``stored.appended``),
in µs a move over whole Kalah games played at random, untimed and clocked.

    python tests/bench/hot_path.py [--root DIR] [--games 150] [--repeat 5]

``--root`` runs another checkout's code (its own packages first on the path), e.g. one whose
hot modules were compiled with mypyc (tests/bench/peers/README.md, "Issue 49": the recipe and
what it saved). The best of ``--repeat`` runs is printed: on a shared machine the least
disturbed one is the closest to the code's own cost.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any


def games(n: int, clocked: bool) -> float:
    """µs a move over ``n`` games."""
    from server.rooms import delta, judge, stored
    from server.rooms import protocol as P
    from server.rooms.clock import Control
    from server.rooms.layout import CURRENT
    from server.rooms.room import Context, Position, create
    from server.rooms.view import state_message

    clock = Control(initial_ms=600_000, increment_ms=0) if clocked else None
    rng = random.Random(1)
    moves, spent = 0, 0.0
    for _ in range(n):
        room, token, sides = create(
            "r1", "kalah", {}, "local", "south", "beginner", 1000, clock=clock
        )
        who = judge.hash_token(token)[:16]
        now = 2000
        pos = Position(room)
        board: dict[str, Any] = pos.game.board(pos.state)
        while room.outcome is None:
            now += 300
            move = rng.choice(pos.choices).move
            intent = P.Move(room="r1", version=room.version, move=move, id=f"m{room.version}")
            started = time.perf_counter()
            done = judge.judge(room, intent, Context(sides=sides, who=who, now_ms=now), pos)
            new = done.room
            after = done.position or Position(new)
            kept = stored.appended(room, new, CURRENT)
            _, drawn, _ = delta.notice(
                room,
                new,
                after,
                lambda b=board: b,
                lambda n=new, a=after, t=now: state_message(n, {}, t, 0, 0, a),
                kept,
                now,
            )
            spent += time.perf_counter() - started
            moves += 1
            room, pos, board = new, after, drawn
    return spent / moves * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[2]))
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.root).resolve()))
    for clocked in (False, True):
        best = min(games(args.games, clocked) for _ in range(args.repeat))
        what = "clocked" if clocked else "untimed"
        print(f"{what}: {best:.1f} µs a move (best of {args.repeat}; root {args.root})")


if __name__ == "__main__":
    main()
