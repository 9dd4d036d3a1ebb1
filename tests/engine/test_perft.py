"""Move-path counts ("perft") from the start position, against engine/data/perft_*.json.

``perft(game, state, depth)`` counts the move sequences of exactly ``depth`` plies (an extra
turn's move is a ply; a finished game ends its branch). The stored counts were generated with
the engine and are checked two ways: through the engine's public API, and through the plain
restatement of the rules in ``sowing_reference.py``, which shares no code with the engine.

Regenerate (only when a rule deliberately changes; say which in the commit):

    .venv/bin/python tests/engine/test_perft.py --write [--depth 9]
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from sowing_reference import kalah_moves, kalah_play, oware_moves, oware_play

import engine

DATA = Path(engine.__file__).resolve().parent / "data"
KALAH_OPTIONS = [
    {"seeds": 4, "empty_capture": False},
    {"seeds": 4, "empty_capture": True},
    {"seeds": 3, "empty_capture": False},
    {"seeds": 6, "empty_capture": True},
]
CHECKED_DEPTH = 7  # through both implementations; deeper stored figures are for reference


def perft(game, state, depth: int) -> int:
    """Move sequences of ``depth`` plies from ``state``, through the public API."""
    moves = game.legal_moves(state)
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    return sum(perft(game, game.play(state, m), depth - 1) for m in moves)


def kalah_reference_perft(pits, stores, mover, depth: int, empty_capture: bool) -> int:
    moves = kalah_moves(pits, stores, mover)
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    return sum(
        kalah_reference_perft(
            *kalah_play(pits, stores, mover, m, empty_capture), depth - 1, empty_capture
        )
        for m in moves
    )


def oware_reference_perft(pits, scores, mover, over, seen, depth: int) -> int:
    moves = oware_moves(pits, scores, mover, over)
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for m in moves:
        branch = set(seen)
        p, s, nxt, reason = oware_play(pits, scores, mover, m, branch)
        total += oware_reference_perft(p, s, nxt, reason is not None, branch, depth - 1)
    return total


def stored(name: str) -> list[dict]:
    return json.loads((DATA / f"perft_{name}.json").read_text())["perft"]


def test_stored_files_cover_every_checked_option_set():
    assert [entry["options"] for entry in stored("kalah")] == KALAH_OPTIONS
    assert [entry["options"] for entry in stored("oware")] == [{}]
    for entry in stored("kalah") + stored("oware"):
        assert len(entry["counts"]) > CHECKED_DEPTH


@pytest.mark.parametrize("index", range(len(KALAH_OPTIONS)), ids=lambda i: str(KALAH_OPTIONS[i]))
def test_kalah_perft(index):
    entry = stored("kalah")[index]
    game = engine.load("kalah", **entry["options"])
    want = entry["counts"][: CHECKED_DEPTH + 1]
    assert [perft(game, game.start(), d) for d in range(CHECKED_DEPTH + 1)] == want
    seeds, empty = entry["options"]["seeds"], entry["options"]["empty_capture"]
    ref = kalah_reference_perft([seeds] * 12, [0, 0], 0, CHECKED_DEPTH, empty)
    assert ref == want[CHECKED_DEPTH]


def test_oware_perft():
    game = engine.load("oware")
    want = stored("oware")[0]["counts"][: CHECKED_DEPTH + 1]
    assert [perft(game, game.start(), d) for d in range(CHECKED_DEPTH + 1)] == want
    start = ([4] * 12, [0, 0], 0)
    seen = {(tuple(start[0]), (0, 0), 0)}
    assert oware_reference_perft(*start, False, seen, CHECKED_DEPTH) == want[CHECKED_DEPTH]


def _write(depth: int) -> None:
    for name, option_sets in (("kalah", KALAH_OPTIONS), ("oware", [{}])):
        entries = []
        for options in option_sets:
            game = engine.load(name, **options)
            counts = []
            for d in range(depth + 1):
                t = time.perf_counter()
                counts.append(perft(game, game.start(), d))
                print(name, options, d, counts[-1], f"{time.perf_counter() - t:.1f}s", flush=True)
            entries.append({"options": options, "counts": counts})
        doc = {
            "profile": name,
            "what": "counts[d]: move sequences of d plies from the start (an extra turn's move "
            "is a ply; a finished game ends its branch)",
            "regenerate": "python tests/engine/test_perft.py --write --depth N",
            "perft": entries,
        }
        _dump(name, doc)


def _dump(name: str, doc: dict) -> None:
    text = json.dumps(doc, indent=1)
    text = re.sub(r"\[[\d,\s]+\]", lambda m: json.dumps(json.loads(m[0])), text)  # one line each
    (DATA / f"perft_{name}.json").write_text(text + "\n")


if __name__ == "__main__":
    if "--write" in sys.argv:
        args = sys.argv[1:]
        _write(int(args[args.index("--depth") + 1]) if "--depth" in args else 8)
    else:
        print(__doc__)
