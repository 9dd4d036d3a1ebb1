"""The computer player, off the event loop.

Moves are chosen in worker processes (``server/computer/thinker.py``; the search is
CPU-bound Python, and a thread would hold the GIL against the event loop).
The event loop talks to each worker over its standard input and output with
length-prefixed msgpack, through asyncio's own pipe transports: no helper
threads in the node and no pickling, so a node whose computer seats think
nonstop still spends its time on sockets. (A ``ProcessPoolExecutor`` costs
two helper threads that contend for the GIL and about 0.3 ms of node CPU per
move.)

Seats and hints have separate workers, so a person asking for a hint never
waits behind the computer seats' moves; each lane serves its askers round
robin with bounded queues (``_Lane``), and a room has one hint in the works
at a time (``Computer.hint``). The caller applies the answer with the same compare-and-set as
a person's move, naming the version it thought about: if the game changed
meanwhile (undo, resign, reclaim) the answer is stale and is dropped.

Workers run in the idle scheduling class: they use the CPU nothing else
wants. Searches stop on a node budget or, on a starved machine, on their wall
clock cap (``engine/ai.py``), so a move or hint still arrives.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import struct
import sys
import time
from typing import Any

import msgspec

from server.computer.thinker import HINT
from server.ops import metrics

__all__ = ["HINT", "Busy", "Computer", "WorkerFailed"]

log = logging.getLogger("nyumba.computer")

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


class WorkerFailed(Exception):
    """The worker died or refused the request."""


class _Worker:
    """One ``server.computer.thinker`` process and its answers."""

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
            "server.computer.thinker",
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


class Busy(Exception):
    """Too much computer work is waiting (or this asker has its share): try again later."""


class _Lane:
    """Workers for one kind of work, each thinking about one request at a time.

    Requests wait in one queue per owner (a client address, or a room), served
    round robin: an owner with thirty rooms thinking gets one turn in each
    round like an owner with one, so a victim's computer waits for at most one
    answer per other owner, not for all of theirs (measured on main before:
    30 computer rooms of one address took another room's computer reply from
    0.11-0.17 s to 4.4-8.3 s). At most ``per_owner`` requests of one owner and
    ``limit`` in all wait; beyond, ``Busy``.
    """

    def __init__(self, workers: int, per_owner: int = 4, limit: int = 256, name: str = "seats"):
        self.name = name  # "seats", "hints" or "analysis", for the metrics
        self.workers = [_Worker() for _ in range(max(1, workers))]
        self.free = list(self.workers)
        self.per_owner = per_owner
        self.limit = limit
        self.queues: collections.OrderedDict[Any, collections.deque[asyncio.Future]] = (
            collections.OrderedDict()
        )
        self.waiting = 0
        self.running: collections.Counter[Any] = collections.Counter()  # owner -> in workers
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

    async def _take(self, owner: Any) -> _Worker:
        if self.free and not self.waiting:
            return self.free.pop()
        queue = self.queues.get(owner)
        if self.waiting >= self.limit or (queue is not None and len(queue) >= self.per_owner):
            raise Busy()
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        if queue is None:
            queue = self.queues[owner] = collections.deque()
        queue.append(fut)
        self.waiting += 1
        try:
            return await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._give(fut.result())  # handed a worker just as it was cancelled
            elif fut in queue:
                queue.remove(fut)
                self.waiting -= 1
                if not queue and self.queues.get(owner) is queue:
                    del self.queues[owner]
            raise

    def _give(self, worker: _Worker) -> None:
        """A worker is free: to the waiting owner with the fewest requests being
        answered (the one whose request just ended still counts), the longest
        waiting first among equals; or back to the pool."""
        while self.queues:
            owner = min(self.queues, key=lambda o: self.running[o])  # first among equals
            queue = self.queues[owner]
            fut = queue.popleft()
            self.waiting -= 1
            if queue:
                self.queues.move_to_end(owner)  # its next request waits for the others
            else:
                del self.queues[owner]
            if not fut.done():
                fut.set_result(worker)
                return
        self.free.append(worker)

    async def run(self, owner: Any, *request: Any) -> str:
        started = time.perf_counter()
        metrics.COMPUTER_QUEUE.inc()
        try:
            worker = await self._take(owner)
        except BaseException:
            metrics.COMPUTER_QUEUE.dec()
            raise
        self.running[owner] += 1
        try:
            if self._warming is not None:
                await self._warming
                self._warming = None
            return await worker.ask(*request)
        finally:
            self._give(worker)
            self.running[owner] -= 1
            if not self.running[owner]:
                del self.running[owner]
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
        self._analysis: _Lane | None = None
        # room -> (version, the answer on its way): one hint per room at a time; the
        # room's sockets asking about the same position share it.
        self._pending_hints: dict[str, tuple[int, asyncio.Future]] = {}

    def _lane(self, hint: bool) -> _Lane:
        if hint:
            if self._hints is None:
                self._hints = _Lane(1, per_owner=2, limit=32, name="hints")
            return self._hints
        if self._seats is None:
            self._seats = _Lane(self.workers, per_owner=4, limit=256)
        return self._seats

    async def choose(
        self,
        game_name: str,
        options: dict[str, Any],
        state: bytes,
        level: str,
        seed: int,
        owner: Any = None,
    ) -> str:
        """The computer's move (notation) for ``state``; ``level`` HINT for a hint.
        ``owner`` (a client address, a room) is whose share of the workers it uses;
        ``Busy`` when too much waits."""
        return await self._lane(level == HINT).run(
            owner, game_name, dict(options), state, level, seed
        )

    async def hint(
        self,
        room: str,
        version: int,
        game_name: str,
        options: dict[str, Any],
        state: bytes,
        seed: int,
        owner: Any = None,
    ) -> str:
        """A hint for ``room`` at ``version``: shared by every asker of the same
        position; ``Busy`` while the room waits for a hint about another one."""
        pending = self._pending_hints.get(room)
        if pending is not None:
            if pending[0] != version:
                raise Busy()
            return await asyncio.shield(pending[1])
        fut = asyncio.ensure_future(self.choose(game_name, options, state, HINT, seed, owner))
        self._pending_hints[room] = (version, fut)
        fut.add_done_callback(lambda f: self._forget_hint(room, f))
        try:
            return await asyncio.shield(fut)
        finally:
            # A failed task keeps its exception, whose traceback holds this frame, which
            # holds the task: a cycle (with the asker's connection) until a full collection.
            del fut

    def _forget_hint(self, room: str, fut: asyncio.Future) -> None:
        if self._pending_hints.get(room, (0, None))[1] is fut:
            del self._pending_hints[room]
        if not fut.cancelled():
            fut.exception()  # retrieved: every asker has its own copy

    async def analyse(self, owner: Any, *request: Any) -> Any:
        """One job of a post-game analysis (``server/computer/analysis.py``, ``owner`` its key) on
        a lane of its own: one thinker for the whole server (under ``--workers``, the
        supervisor's, shared by every worker), each analysis one job in the queue at a time."""
        if self._analysis is None:
            # One job waits per running analysis: 32 a node (``Analyses.max_jobs``), and
            # under --workers the supervisor's lane serves every worker's.
            self._analysis = _Lane(1, per_owner=1, limit=1024, name="analysis")
        return await self._analysis.run(owner, *request)

    def warm(self, seats: bool, hints: bool) -> None:
        """A room that will need the computer was joined: get its workers ready."""
        if seats:
            self._lane(False).warm()
        if hints:
            self._lane(True).warm()

    def close(self) -> None:
        for lane in (self._seats, self._hints, self._analysis):
            if lane is not None:
                lane.close()
