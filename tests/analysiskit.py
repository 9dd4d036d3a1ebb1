"""Game records and the analysis API, for the tests of analyses (``POST /api/analysis``)."""

from __future__ import annotations

import time

import httpx

import engine
from engine import ai, records


def record(profile: str, plies: int, seed: int, **options) -> bytes:
    game = engine.load(profile, **options)
    state = game.start()
    moves = []
    while game.legal_moves(state) and len(moves) < plies:
        move = ai.choose(game, state, "beginner", seed + len(moves))
        moves.append(game.notation(move))
        state = game.play(state, move)
    return records.text(records.dump(game, moves)).encode()


def wait_done(base: str, key: str, timeout: float = 240.0) -> dict:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        r = httpx.get(f"{base}/api/analysis/{key}", timeout=10)
        body = r.json()
        seen.append((body["status"], body.get("done"), body.get("total")))
        if body["status"] == "done":
            assert r.status_code == 200
            return body
        assert r.status_code == 202 and body["status"] == "running", body
        time.sleep(0.3)
    raise AssertionError(f"no analysis within {timeout} s: {seen[-3:]}")
