"""A computer-player worker process: ``python -m server.computer.thinker``.

It reads requests from standard input and writes answers to standard output,
one at a time, each a msgpack array after a 4-byte big-endian length:

    request  [id, game, options (map), state (msgpack bytes), level, seed]
    answer   [id, move notation, null]  or  [id, null, error text]

A level of ``analysis:<kind>`` asks for a job of ``engine.analysis.job`` instead: ``state`` is
a game record, ``seed`` the position and ``options["first"]`` a line's first move; the answer
carries the job's msgpack bytes in place of the move.

It runs in the idle scheduling class (Linux ``SCHED_IDLE``; elsewhere the
lowest priority a process can give itself), so it thinks only with CPU the
node's event loop, the store and everything else leave. It exits when its
standard input closes (the node stopped or died).
"""

from __future__ import annotations

import os
import struct
import sys
import time
from typing import Any

import msgspec

HINT = "hint"  # not a level: the best move the hint budget finds
ANALYSIS = "analysis:"  # not a level: a job of engine.analysis (plan, value, line)

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


def lower_priority() -> None:
    """The idle class, not nice 19. Measured (stop 31, kernel 6.18, two cores, ``load.py
    --acks state --rate 1 --rooms 1000 --seconds 20 --computer-rooms 10 --analyses 0,4
    --rounds 3``): with the thinkers at nice 19 the other rooms' p50 move round trip read
    1.8-3.1 ms and p99 13-26 ms in all six runs, against 1.3-1.8 and 8-27 ms in the idle class.
    The price is paid on a host busy with other work: under two CPU-bound processes at nice 0,
    a thinker's start (importing the engine, 0.13 s of CPU) took 35 s of wall clock in the idle
    class and 7 s at nice 19; a node that shares its cores should be given a spare one."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.nice(19)
        except OSError:
            pass


class Pacer:
    """Rests ``rest_s`` after every ``run_s`` of thinking (the search calls it often).

    Measured on two shared cores, 2,000 rooms x 1 move/s: a process that ran
    nonstop in the idle scheduling class still raised the other rooms' p99 move
    round trip from 5-8 ms to 12-13 ms; one that slept 0.5 ms every 2 ms left it
    at 5.2 ms. The rest costs the computer a fifth of its speed when it has the
    machine to itself."""

    def __init__(self, run_s: float = 0.002, rest_s: float = 0.0005):
        self.run_s, self.rest_s = run_s, rest_s
        self.until = time.perf_counter() + run_s

    def __call__(self) -> None:
        if time.perf_counter() >= self.until:
            time.sleep(self.rest_s)
            self.until = time.perf_counter() + self.run_s


def choose(
    game_name: str, options: dict[str, Any], state: bytes, level: str, seed: int, pause: Any = None
) -> str:
    import engine
    from engine import ai

    game = engine.load(game_name, **options)
    value: Any = msgspec.msgpack.decode(state, type=game.state_type)
    if level == HINT:
        move = ai.hint(game, value, seed, pause)
    else:
        move = ai.choose(game, value, level, seed, pause)
    return game.notation(move)


def _read_exactly(stream: Any, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> int:
    lower_priority()
    import engine.ai  # noqa: F401  (loaded before the first request, not during it)

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = _read_exactly(stdin, 4)
        if head is None:
            return 0
        body = _read_exactly(stdin, struct.unpack(">I", head)[0])
        if body is None:
            return 0
        request_id = None
        try:
            request_id, game, options, state, level, seed = _decode(body)
            if level.startswith(
                ANALYSIS
            ):  # server/computer/analysis.py: one position of an analysis
                from engine import analysis

                kind, first = level[len(ANALYSIS) :], options.get("first")
                answer = [request_id, analysis.job(kind, state, seed, first, Pacer()), None]
            else:
                answer = [request_id, choose(game, options, state, level, seed, Pacer()), None]
        except Exception as exc:  # a bad request or an engine error: say so, keep serving
            answer = [request_id, None, f"{type(exc).__name__}: {exc}"]
        out = _encode(answer)
        stdout.write(struct.pack(">I", len(out)) + out)
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
