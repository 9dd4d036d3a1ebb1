"""The computer player, off the event loop.

Moves are chosen in a small process pool (the search is CPU-bound Python; a
thread would hold the GIL against the event loop), with concurrency bounded
by a semaphore so a crowd of computer seats queues instead of starving the
node. The caller applies the answer with the same compare-and-set as a
person's move, naming the version it thought about: if the game changed
meanwhile (undo, resign, reclaim) the answer is stale and is dropped.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import msgspec


def _choose(game_name: str, options: tuple[tuple[str, Any], ...], state: bytes, level: str,
            seed: int) -> str:
    import engine
    from engine import ai

    game = engine.load(game_name, **dict(options))
    value = msgspec.msgpack.decode(state, type=game.state_type)
    if level == HINT:
        hint = getattr(ai, "hint", None)
        move = hint(game, value, seed) if hint else ai.choose(game, value, "advanced", seed)
    else:
        move = ai.choose(game, value, level, seed)
    return game.notation(move)


HINT = "hint"  # not a level: the best move the hint budget finds


def _lower_priority() -> None:
    """Workers think at a lower CPU priority than the event loop they serve."""
    import os

    try:
        os.nice(10)
    except OSError:
        pass


class Computer:
    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)
        self._pool: ProcessPoolExecutor | None = None
        self._slots = asyncio.Semaphore(self.workers)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: never fork a process that runs an event loop and sockets
            ctx = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                             initializer=_lower_priority)
        return self._pool

    async def choose(self, game_name: str, options: dict[str, Any], state: bytes, level: str,
                     seed: int) -> str:
        """The computer's move (notation) for ``state``."""
        async with self._slots:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self._executor(), _choose, game_name, tuple(sorted(options.items())), state,
                level, seed,
            )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
