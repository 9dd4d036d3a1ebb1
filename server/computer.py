"""The computer player, off the event loop.

Moves are chosen in worker processes (``server/thinker.py``; the search is
CPU-bound Python, and a thread would hold the GIL against the event loop).
The event loop talks to each worker over its standard input and output with
length-prefixed msgpack, through asyncio's own pipe transports: no helper
threads in the node and no pickling, so a node whose computer seats think
nonstop still spends its time on sockets. (A ``ProcessPoolExecutor`` costs
two helper threads that contend for the GIL and about 0.3 ms of node CPU per
move.)

Seats and hints have separate workers, so a person asking for a hint never
waits behind the computer seats' moves; a semaphore per lane bounds the
work queued. The caller applies the answer with the same compare-and-set as
a person's move, naming the version it thought about: if the game changed
meanwhile (undo, resign, reclaim) the answer is stale and is dropped.

Workers run in the idle scheduling class: they use the CPU nothing else
wants. Searches stop on a node budget or, on a starved machine, on their wall
clock cap (``engine/ai.py``), so a move or hint still arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import struct
import sys
import time
from typing import Any

import msgspec

from server import metrics
from server.thinker import HINT

__all__ = ["HINT", "Computer", "WorkerFailed"]

log = logging.getLogger("nyumba.computer")

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


class WorkerFailed(Exception):
    """The worker died or refused the request."""


class _Worker:
    """One ``server.thinker`` process and its answers."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.waiting: dict[int, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None
        self.ids = itertools.count()
        self.ended = True  # no process yet, or it has ended

    async def start(self) -> None:
        self.ended = False
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.thinker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        self.reader = asyncio.get_running_loop().create_task(self._read(self.proc))

    async def _read(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        try:
            while True:
                head = await proc.stdout.readexactly(4)
                body = await proc.stdout.readexactly(struct.unpack(">I", head)[0])
                request_id, move, error = _decode(body)
                fut = self.waiting.pop(request_id, None)
                if fut is None or fut.done():
                    continue
                if error is None:
                    fut.set_result(move)
                else:
                    fut.set_exception(WorkerFailed(error))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.ended = True
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            for fut in self.waiting.values():
                if not fut.done():
                    fut.set_exception(WorkerFailed("the computer player's process ended"))
            self.waiting.clear()

    async def ask(
        self, game: str, options: dict[str, Any], state: bytes, level: str, seed: int
    ) -> str:
        if self.ended:
            await self.start()
        assert self.proc is not None and self.proc.stdin is not None
        request_id = next(self.ids)
        fut = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = fut
        body = _encode([request_id, game, options, state, level, seed])
        self.proc.stdin.write(struct.pack(">I", len(body)) + body)
        return await fut

    def close(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(Exception):
                self.proc.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        if self.reader is not None:
            self.reader.cancel()


class _Lane:
    """Workers for one kind of work, each thinking about one request at a time."""

    def __init__(self, workers: int, name: str = "seats"):
        self.name = name  # "seats" or "hints", for the metrics
        self.workers = [_Worker() for _ in range(max(1, workers))]
        self.free = list(self.workers)
        self.slots = asyncio.Semaphore(len(self.workers))
        self._warming: asyncio.Task | None = None

    def warm(self) -> None:
        """Start the workers now (about a second each), not on the first move."""
        if self._warming is None and all(w.ended for w in self.workers):
            self._warming = asyncio.get_running_loop().create_task(self._start_all())

    async def _start_all(self) -> None:
        for w in self.workers:
            try:
                await w.start()
            except OSError as exc:  # the first request tries again
                log.warning("could not start a computer player: %s", exc)

    async def run(self, *request: Any) -> str:
        started = time.perf_counter()
        metrics.COMPUTER_QUEUE.inc()
        try:
            async with self.slots:
                if self._warming is not None:
                    await self._warming
                    self._warming = None
                worker = self.free.pop()
                try:
                    return await worker.ask(*request)
                finally:
                    self.free.append(worker)
        finally:
            metrics.COMPUTER_QUEUE.dec()
            metrics.COMPUTER_SECONDS.labels(self.name).observe(time.perf_counter() - started)

    def close(self) -> None:
        if self._warming is not None:
            self._warming.cancel()
        for w in self.workers:
            w.close()


class Computer:
    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)
        self._seats: _Lane | None = None
        self._hints: _Lane | None = None

    def _lane(self, hint: bool) -> _Lane:
        if hint:
            if self._hints is None:
                self._hints = _Lane(1, "hints")
            return self._hints
        if self._seats is None:
            self._seats = _Lane(self.workers)
        return self._seats

    async def choose(
        self, game_name: str, options: dict[str, Any], state: bytes, level: str, seed: int
    ) -> str:
        """The computer's move (notation) for ``state``; ``level`` HINT for a hint."""
        return await self._lane(level == HINT).run(game_name, dict(options), state, level, seed)

    def warm(self, seats: bool, hints: bool) -> None:
        """A room that will need the computer was joined: get its workers ready."""
        if seats:
            self._lane(False).warm()
        if hints:
            self._lane(True).warm()

    def close(self) -> None:
        for lane in (self._seats, self._hints):
            if lane is not None:
                lane.close()
