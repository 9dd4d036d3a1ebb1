"""Post-game analysis for any record, on the computer's worker processes.

``POST /api/analysis`` with a game record (a room's, from ``GET /api/rooms/{room}/record``,
or an uploaded one) starts the analysis of ``engine.analysis`` or says how far it is;
``GET /api/analysis/{key}`` asks again; ``DELETE`` cancels. Every answer is an
``AnalysisStatus`` (``server/protocol.py``, documented in ``PROTOCOL.md``).

Where the work runs: a ``server.thinker`` process (the computer player's program, in the idle
scheduling class and resting every few milliseconds, ``Pacer``) on the computer's analysis
lane (``Computer.analyse``: one for the server; under ``--workers`` the supervisor's, shared by
every worker), never the event loop. A job is one position (``plan``, then
``value`` for each position, then ``line`` for each labelled ply), so the node reports
progress after each, notices a cancel between them, and several analyses share the lane
round robin. The event loop only adds the answers up (``engine.analysis.assemble``:
arithmetic over one entry per ply).

Bounded: at most ``max_jobs`` analyses in a node and ``per_address`` for one client address;
beyond, ``Busy`` (HTTP 503 ``busy`` with Retry-After). An analysis nobody has asked about for
``abandon_s`` is cancelled: the page that wanted it has gone.

Shared through the store, so any node answers and a second viewer does not pay again:

    <prefix>analysis:{key}            the finished analysis (JSON), kept ``keep_s``
    <prefix>analysis:{key}:progress   AnalysisStatus while running, or cancelled/failed (60 s)
    <prefix>analysis:{key}:cancel     set by a DELETE on any node; the running node stops

``key`` is ``engine.analysis.key(record bytes)``: the record and the analysis version.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engine import analysis as A
from server import httpguard
from server import protocol as P
from server.computer import Busy, WorkerFailed
from server.httpguard import problem
from server.thinker import ANALYSIS

log = logging.getLogger("nyumba.analysis")

__all__ = ["Analyses", "BadRecord", "Busy"]


class BadRecord(Exception):
    """The record does not load (the sentence says why)."""


class _Job:
    def __init__(self, key: str, data: bytes, address: str, total: int) -> None:
        self.key, self.data, self.address, self.total = key, data, address, total
        self.done = 0
        self.seen = time.monotonic()
        self.cancelled = False
        self.task: asyncio.Task[None] | None = None
        self.told = 0.0  # when progress was last written and a cancel looked for


class Analyses:
    def __init__(
        self,
        redis: Any,
        prefix: str,
        think: Callable[..., Awaitable[Any]],
        *,
        max_jobs: int = 4,
        per_address: int = 1,
        abandon_s: float = 20.0,
        keep_s: int = 24 * 3600,
    ) -> None:
        self.redis, self.prefix = redis, prefix
        self.think = think  # Computer.analyse (or the supervisor's, through its link)
        self.max_jobs, self.per_address = max_jobs, per_address
        self.abandon_s, self.keep_s = abandon_s, keep_s
        self.jobs: dict[str, _Job] = {}
        self.by_address: collections.Counter[str] = collections.Counter()
        self.planning = 0

    def _k(self, key: str, part: str = "") -> str:
        return f"{self.prefix}analysis:{{{key}}}{part}"

    # -- answers ------------------------------------------------------------------------------

    async def request(self, address: str, data: bytes) -> P.AnalysisStatus:
        """Start the analysis of a record, or say where it stands. ``Busy``, ``BadRecord``."""
        key = A.key(data)
        known = await self.status(key)
        if known is not None and known.status in ("running", "done"):
            return known
        if (
            len(self.jobs) + self.planning >= self.max_jobs
            or self.by_address[address] >= self.per_address
        ):
            raise Busy()
        self.planning += 1
        self.by_address[address] += 1
        started = False
        try:
            answer = await self._ask(key, "plan", data, 0, None)
            ok, *rest = msgspec.msgpack.decode(answer)
            if not ok:
                raise BadRecord(rest[0])
            family, plies, game = rest
            if key in self.jobs:  # asked twice at once: the first one runs it
                return self._running(self.jobs[key])
            job = _Job(key, data, address, plies + 1)
            self.jobs[key] = job
            job.task = asyncio.get_running_loop().create_task(self._run(job, family, game))
            started = True
            return self._running(job)
        finally:
            self.planning -= 1
            if not started:
                self._release(address)

    async def status(self, key: str) -> P.AnalysisStatus | None:
        """Where the analysis ``key`` stands (asking counts as still wanting it), or None."""
        job = self.jobs.get(key)
        if job is not None:
            job.seen = time.monotonic()
            return self._running(job)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(self._k(key))
            pipe.get(self._k(key, ":progress"))
            done, progress = await pipe.execute()
        if done is not None:
            return P.AnalysisStatus(
                key, "done", analysis=msgspec.json.decode(done, type=A.Analysis)
            )
        if progress is not None:
            return msgspec.json.decode(progress, type=P.AnalysisStatus)
        return None

    async def cancel(self, key: str) -> P.AnalysisStatus:
        job = self.jobs.get(key)
        if job is not None:
            job.cancelled = True
        else:
            await self.redis.set(self._k(key, ":cancel"), b"1", ex=60)
        return P.AnalysisStatus(key, "cancelled", message=CANCELLED)

    def _running(self, job: _Job) -> P.AnalysisStatus:
        return P.AnalysisStatus(job.key, "running", done=job.done, total=job.total)

    # -- the work -----------------------------------------------------------------------------

    async def _ask(self, key: str, kind: str, data: bytes, index: int, first: str | None) -> bytes:
        # the thinker's request shape: [id, game, options, state, level, seed]
        answer: Any = await self.think(key, "", {"first": first}, data, ANALYSIS + kind, index)
        return bytes(answer)

    async def _run(self, job: _Job, family: str, game: str) -> None:
        end = "failed"
        message = FAILED
        try:
            values: list[A.Value] = []
            for i in range(job.total):
                if await self._stopping(job):
                    end, message = "cancelled", CANCELLED
                    return
                raw = await self._ask(job.key, "value", job.data, i, None)
                values.append(msgspec.msgpack.decode(raw, type=A.Value))
                job.done = i + 1
                await self._progress(job)
            first = A.assemble(game, family, values, {})
            wanted = A.wanted_lines(first)
            job.total += len(wanted)
            lines: dict[int, list[A.LineMove]] = {}
            for index, move in wanted:
                if await self._stopping(job):
                    end, message = "cancelled", CANCELLED
                    return
                raw = await self._ask(job.key, "line", job.data, index, move)
                lines[index + 1] = msgspec.msgpack.decode(raw, type=list[A.LineMove])
                job.done += 1
                await self._progress(job)
            result = A.encode(A.assemble(game, family, values, lines))
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(self._k(job.key), result, ex=self.keep_s)
                pipe.delete(self._k(job.key, ":progress"))
                await pipe.execute()
            end = "done"
        except Busy:
            message = BUSY
        except (WorkerFailed, msgspec.DecodeError) as exc:
            log.warning("analysis %s failed: %s", job.key, exc)
        except asyncio.CancelledError:
            end, message = "cancelled", CANCELLED
            raise
        except Exception:
            log.exception("analysis %s failed", job.key)
        finally:
            self.jobs.pop(job.key, None)
            self._release(job.address)
            if end != "done":
                with contextlib.suppress(Exception):
                    status = P.AnalysisStatus(job.key, end, job.done, job.total, message=message)  # type: ignore[arg-type]
                    await self.redis.set(
                        self._k(job.key, ":progress"), P.encode_http(status), ex=60
                    )

    async def _stopping(self, job: _Job) -> bool:
        if job.cancelled or time.monotonic() - job.seen > self.abandon_s:
            return True
        if time.monotonic() - job.told < TELL_EVERY_S:
            return False
        return bool(await self.redis.exists(self._k(job.key, ":cancel")))

    async def _progress(self, job: _Job) -> None:
        """Progress for other nodes' polls (it lapses if this node dies), and with it the look
        for a cancel from another node, at most every ``TELL_EVERY_S``: one position's job
        takes a few milliseconds, and two store round trips each cost the event loop more
        than the job's answer did."""
        if time.monotonic() - job.told < TELL_EVERY_S:
            return
        job.told = time.monotonic()
        await self.redis.set(
            self._k(job.key, ":progress"), P.encode_http(self._running(job)), ex=30
        )

    def _release(self, address: str) -> None:
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]

    def close(self) -> None:
        for job in list(self.jobs.values()):
            if job.task is not None:
                job.task.cancel()


# -- HTTP ---------------------------------------------------------------------------------------

MAX_RECORD = 64 * 1024  # as POST /api/replay
KEY = r"^[0-9a-f]{32}$"


def routes(analyses: Callable[[], Analyses], allowed_origins: Any) -> list[Route]:
    """``POST /api/analysis``, ``GET`` and ``DELETE /api/analysis/{key}``."""

    def answer(status: P.AnalysisStatus) -> Response:
        code = 202 if status.status == "running" else 200
        return Response(P.encode_http(status), code, media_type="application/json")

    def busy() -> Response:
        return problem(503, "busy", BUSY, headers={"retry-after": str(RETRY_S)})

    async def post(request: Request) -> Response:
        if httpguard.cross_site(request, allowed_origins):
            return problem(403, "cross-site", "Analyses are asked for from nyumba's own pages.")
        body = await httpguard.read_body(request, MAX_RECORD)
        address = request.client.host if request.client else "unknown"
        try:
            return answer(await analyses().request(address, body))
        except Busy:
            return busy()
        except BadRecord as exc:
            return problem(400, "bad-record", str(exc))
        except WorkerFailed as exc:
            return problem(503, "busy", f"The analysis could not start ({exc}); try again.")

    async def one(request: Request) -> Response:
        key = request.path_params["key"]
        if not re.match(KEY, key):
            return problem(404, "no-analysis", NONE)
        if request.method == "DELETE":
            if httpguard.cross_site(request, allowed_origins):
                return problem(403, "cross-site", "Analyses are cancelled from nyumba's own pages.")
            return answer(await analyses().cancel(key))
        status = await analyses().status(key)
        if status is None:
            return problem(404, "no-analysis", NONE)
        return answer(status)

    return [
        Route("/api/analysis", post, methods=["POST"]),
        Route("/api/analysis/{key}", one, methods=["GET", "DELETE"]),
    ]


RETRY_S = 10
TELL_EVERY_S = 0.5  # progress written (and a cancel looked for) at most this often
NONE = "No analysis of that record is running or kept here; ask for one with POST /api/analysis."
CANCELLED = "The analysis was cancelled; ask again to start it anew."
FAILED = "The analysis failed; ask again to retry."
BUSY = "The computer is busy analysing other games; try again in a minute."
