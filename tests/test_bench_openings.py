"""The bench's distinct openings (``tests/bench/openings.py``): a run's pairs start from
different openings, and a game with fewer openings than pairs stops with a sentence instead
of drawing for ever."""

import importlib.util
from pathlib import Path

import pytest

# loaded by path: putting tests/bench on sys.path would let its scripts (load, fuzz, ops, …)
# shadow other modules for the rest of the test session
_spec = importlib.util.spec_from_file_location(
    "bench_openings", Path(__file__).resolve().parent / "bench" / "openings.py"
)
assert _spec is not None and _spec.loader is not None
_openings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_openings)
distinct = _openings.distinct


def test_repeats_are_drawn_again_until_new():
    first = {0: ["a"], 1: ["a"], 2: ["b"]}
    out = distinct(first, lambda k, attempt: [f"{k}/{attempt}"])
    assert out == {0: ["a"], 1: ["1/1"], 2: ["b"]}


def test_too_few_openings_for_the_pairs_is_an_error_not_a_hang():
    calls = []

    def redraw(k, attempt):
        calls.append((k, attempt))
        return ["a"] if attempt % 2 else ["b"]

    with pytest.raises(RuntimeError, match="pair 2: 10 redraws all repeat one of the 2 openings"):
        distinct({0: ["a"], 1: ["a"], 2: ["b"]}, redraw, attempts=10)
    assert len(calls) == 2 + 10
