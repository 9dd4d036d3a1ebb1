"""Post-game analysis for any record, on the computer's worker processes.

``POST /api/analysis`` (``server/web/analysis.py``) with a game record (a room's, from ``GET /api/rooms/{room}/record``,
or an uploaded one) starts the analysis of ``engine.analysis`` or says how far it is;
``GET /api/analysis/{key}`` asks again; ``DELETE`` cancels. Every answer is an
``AnalysisStatus`` (``server/rooms/protocol.py``, documented in ``PROTOCOL.md``).

Where the work runs: a ``server.computer.thinker`` process (the computer player's program, in the idle
scheduling class and resting every few milliseconds, ``Pacer``) on the computer's analysis
lane (``Computer.analyse``: one for the server; under ``--workers`` the supervisor's, shared by
every worker), never the event loop. A job is one position (``plan``, then
``value`` for each position, then ``line`` for each labelled ply), so the node reports
progress after each, notices a cancel between them, and the running analyses share the lane
round robin: each waits for at most one job of every other before its next. The event loop
only adds the answers up (``engine.analysis.assemble``: arithmetic over one entry per ply).

Fair per address. A node runs at most ``per_address`` analyses (1) for one client address and
``max_jobs`` (32) in all, and admits a new address while it has room: one more analysis on the
lane slows the others (a turn each per round) rather than shutting the newcomer out. With four
addresses each holding a long Oware analysis, a fifth address's is answered ``running`` in
0.3-0.8 s and has its first position 0.7-2.9 s after asking (the plan, then that position, each
waiting one round of the others' jobs; six runs on two shared cores; before, it was refused for
as long as the four held on: ``tests/server/computer/test_analysis_share.py``). Beyond either
bound: ``Busy`` (HTTP 503 ``busy``, Retry-After; the address's own bound, ``AddressBusy``: 429). An attacker with ``max_jobs`` addresses can
fill a node, and everyone else hears ``busy`` until one of those ends (an analysis is finite,
and one nobody asks about for ``abandon_s`` is dropped); the server itself is safe at any
count: all analyses share the one idle-class thinker, so more of them divide it rather than
add CPU, the event loop's work follows the jobs done, and memory holds at most ``max_jobs``
records of 64 KiB. The bound keeps each analysis moving: at 32, each has a 32nd of the lane.

Owned by those who asked. A POST answered ``running`` (an analysis it started or joined)
carries a ``cancel_token`` only that asker sees; ``DELETE`` needs it (``Authorization:
Bearer``) and withdraws that asker's wish alone; the work stops when nobody who asked still
wants it, or nobody has asked about it for ``abandon_s``. Without a token of the running
analysis a DELETE is refused (403 ``not-owner``) and changes nothing: the key is the hash of a
record anyone in the room can fetch. One wish per address (asking again replaces its token),
at most ``MAX_ASKERS`` per analysis. Askers of one record share one computation, counted
against the starter's share until it ends (a stranger who joins cannot hold that share past
the analysis's own work).

Shared through the store, so any node answers and a second viewer does not pay again:

    <prefix>analysis:{key}            the finished analysis (JSON), kept ``keep_s``
    <prefix>analysis:{key}:progress   AnalysisStatus while running, or cancelled/failed (60 s)
    <prefix>analysis:{key}:askers     while running: client address -> sha256 of its token

``key`` is ``engine.analysis.key(record bytes)``: the record and the analysis version.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec

from engine import analysis as A
from server.computer.pool import Busy, WorkerFailed
from server.computer.thinker import ANALYSIS
from server.rooms import protocol as P
from server.rooms.httpanswers import encode_http
from server.rooms.room import hash_token, new_token

log = logging.getLogger("nyumba.analysis")

__all__ = ["AddressBusy", "Analyses", "BadRecord", "Busy", "NotOwner"]


class AddressBusy(Busy):
    """This address already has as many analyses running here as it may."""


# KEYS: the askers (address -> token hash). ARGV: address, token hash, cap, seconds to keep.
# 1 recorded (an address asking again replaces its token), 0 when the analysis has its cap.
_ASK = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS: the askers, the progress, the finished analysis. ARGV: a token's hash, the cancelled
# status, its seconds. The askers left after that token's wish is withdrawn (at 0 the progress
# says cancelled at once, for every node's GET), -1 when no asker holds it, -2 when the
# analysis has finished meanwhile (nothing changes).
_WITHDRAW = """
if redis.call('EXISTS', KEYS[3]) == 1 then
  return -2
end
local askers = redis.call('HGETALL', KEYS[1])
for i = 1, #askers, 2 do
  if askers[i + 1] == ARGV[1] then
    redis.call('HDEL', KEYS[1], askers[i])
    local left = redis.call('HLEN', KEYS[1])
    if left == 0 then
      redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
    end
    return left
  end
end
return -1
"""

# KEYS: the progress, the askers. ARGV: the running status, its seconds, the askers' seconds.
# The askers left; at 0 (the last wish was withdrawn, perhaps on another node) the progress
# is left as the DELETE wrote it, never running again.
_TELL = """
local left = redis.call('HLEN', KEYS[2])
if left == 0 then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return left
"""


class BadRecord(Exception):
    """The record does not load (the sentence says why)."""


class NotOwner(Exception):
    """A DELETE of a running analysis without the token of one who asked for it."""


class Shelf(Protocol):
    """Where finished analyses are kept for good (the archive: ``server/web/archive.py``)."""

    async def get(self, key: str) -> bytes | None: ...

    async def put(self, key: str, data: bytes) -> None: ...


class _Job:
    def __init__(self, key: str, data: bytes, address: str, total: int) -> None:
        self.key, self.data, self.total = key, data, total
        self.address = address  # whose share it counts against: the starter's
        self.done = 0
        self.seen = time.monotonic()
        self.cancelled = False  # nobody who asked wants it any more
        self.released = False  # its share of its address given back (_release)
        self.task: asyncio.Task[None] | None = None
        self.told = 0.0  # when progress was last written and the askers counted


class Analyses:
    def __init__(
        self,
        redis: Any,
        prefix: str,
        think: Callable[..., Awaitable[Any]],
        *,
        max_jobs: int = 32,
        per_address: int = 1,
        abandon_s: float = 20.0,
        keep_s: int = 24 * 3600,
        archive: Shelf | None = None,
    ) -> None:
        self.redis, self.prefix = redis, prefix
        self.think = think  # Computer.analyse (or the supervisor's, through its link)
        self.max_jobs, self.per_address = max_jobs, per_address
        self.abandon_s, self.keep_s = abandon_s, keep_s
        self.archive = archive  # finished analyses kept past the store's keep_s
        self.jobs: dict[str, _Job] = {}
        self.by_address: collections.Counter[str] = collections.Counter()
        self.planning = 0
        self._ask_script = redis.register_script(_ASK)
        self._withdraw_script = redis.register_script(_WITHDRAW)
        self._tell_script = redis.register_script(_TELL)

    def _k(self, key: str, part: str = "") -> str:
        return f"{self.prefix}analysis:{{{key}}}{part}"

    # -- answers ------------------------------------------------------------------------------

    async def request(self, address: str, data: bytes) -> P.AnalysisStatus:
        """Start the analysis of a record, or say where it stands; a running one's answer
        carries the asker's ``cancel_token``. ``Busy``, ``BadRecord``."""
        key = A.key(data)
        known = await self.status(key)
        if known is not None and known.status == "done":
            return known
        if known is not None and known.status == "running":
            return await self._join(known, address)
        if len(self.jobs) + self.planning >= self.max_jobs:
            raise Busy(BUSY)
        if self.by_address[address] >= self.per_address:
            raise AddressBusy(YOURS)
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
                return await self._join(self._running(self.jobs[key]), address)
            job = _Job(key, data, address, plies + 1)
            self.jobs[key] = job  # before the await: one asking meanwhile joins it
            try:
                joined = await self._join(self._running(job), address)
            except BaseException:
                del self.jobs[key]
                raise
            job.task = asyncio.get_running_loop().create_task(self._run(job, family, game))
            started = True
            return joined
        finally:
            self.planning -= 1
            if not started:
                self._release(address)

    async def _join(self, status: P.AnalysisStatus, address: str) -> P.AnalysisStatus:
        """Record ``address``'s wish for a running analysis: its answer with a new token."""
        token = new_token()
        keys = [self._k(status.key, ":askers")]
        args = [address, hash_token(token), MAX_ASKERS, ASKERS_KEEP_S]
        if not await self._ask_script(keys=keys, args=args):
            return status  # as many askers as it takes: this one may follow it, not cancel it
        return msgspec.structs.replace(status, cancel_token=token)

    async def status(self, key: str, asking: bool = True) -> P.AnalysisStatus | None:
        """Where the analysis ``key`` stands, or None; ``asking`` counts as still wanting it."""
        job = self.jobs.get(key)
        if job is not None:
            if asking:
                job.seen = time.monotonic()
            return self._running(job)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(self._k(key))
            pipe.get(self._k(key, ":progress"))
            done, progress = await pipe.execute()
        if done is None and progress is None and self.archive is not None:
            done = await self.archive.get(key)
        if done is not None:
            analysis = msgspec.json.decode(done, type=A.Analysis)
            jobs = len(analysis.values) + len(A.wanted_lines(analysis))
            return P.AnalysisStatus(key, "done", jobs, jobs, analysis=analysis)
        if progress is not None:
            return msgspec.json.decode(progress, type=P.AnalysisStatus)
        return None

    async def cancel(self, key: str, token: str | None) -> P.AnalysisStatus | None:
        """Withdraw the wish of the asker holding ``token``; the work stops when nobody who
        asked still wants it. The answer is what a GET answers from then on: ``cancelled``
        (the last wish), ``running`` with a sentence (others still want it), or, for an
        analysis not running any more, where it stands (or None), token or not. A running
        analysis without that token: ``NotOwner``, nothing changes."""
        known = await self.status(key, asking=False)
        if known is None or known.status != "running":
            return known
        if token:
            gone = msgspec.structs.replace(known, status="cancelled", message=CANCELLED)
            keys = [self._k(key, ":askers"), self._k(key, ":progress"), self._k(key)]
            args = [hash_token(token), encode_http(gone), ENDED_KEEP_S]
            left = await self._withdraw_script(keys=keys, args=args)
            if left == -2:  # finished meanwhile
                return await self.status(key, asking=False)
            if left == 0:
                job = self.jobs.pop(key, None)  # ours: stopped at once (another node's: _tell)
                if job is not None:
                    job.cancelled = True
                    self._release_job(job)  # the address may ask again at once
                return gone
            if left > 0:
                return msgspec.structs.replace(known, message=LEFT)
        raise NotOwner()

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
            if job.cancelled:  # the last wish was withdrawn during the last job
                end, message = "cancelled", CANCELLED
                return
            result = A.encode(A.assemble(game, family, values, lines))
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(self._k(job.key), result, ex=self.keep_s)
                pipe.delete(self._k(job.key, ":progress"), self._k(job.key, ":askers"))
                await pipe.execute()
            end = "done"
            if self.archive is not None:
                await self.archive.put(job.key, result)
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
            if self.jobs.get(job.key) is job:
                del self.jobs[job.key]
            self._release_job(job)
            # Asked for anew since it was cancelled: the new analysis's keys are not ours.
            if end != "done" and job.key not in self.jobs:
                with contextlib.suppress(Exception):
                    status = P.AnalysisStatus(job.key, end, job.done, job.total, message=message)  # type: ignore[arg-type]
                    async with self.redis.pipeline(transaction=False) as pipe:
                        pipe.set(
                            self._k(job.key, ":progress"), encode_http(status), ex=ENDED_KEEP_S
                        )
                        pipe.delete(self._k(job.key, ":askers"))
                        await pipe.execute()

    async def _stopping(self, job: _Job) -> bool:
        """Before each job: stop when nobody who asked wants it any more, or nobody has
        asked about it for ``abandon_s``."""
        if not job.cancelled and time.monotonic() - job.told >= TELL_EVERY_S:
            await self._tell(job)
        return job.cancelled or time.monotonic() - job.seen > self.abandon_s

    async def _tell(self, job: _Job) -> None:
        """Progress for other nodes' polls (it lapses if this node dies), and with it a count
        of the askers (a DELETE on another node may have withdrawn the last wish), at most
        every ``TELL_EVERY_S``: one position's job takes a few milliseconds, and a store round
        trip costs the event loop more than the job's answer did."""
        job.told = time.monotonic()
        keys = [self._k(job.key, ":progress"), self._k(job.key, ":askers")]
        args = [encode_http(self._running(job)), 30, ASKERS_KEEP_S]
        if not await self._tell_script(keys=keys, args=args):
            job.cancelled = True

    def _release_job(self, job: _Job) -> None:
        """Give back the share of a job's address, once."""
        if not job.released:
            job.released = True
            self._release(job.address)

    def _release(self, address: str) -> None:
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]

    def close(self) -> None:
        for job in list(self.jobs.values()):
            if job.task is not None:
                job.task.cancel()


RETRY_S = 10
TELL_EVERY_S = 0.5  # progress written (and the askers counted) at most this often
MAX_ASKERS = 32  # addresses whose wish one analysis records
ASKERS_KEEP_S = 300  # renewed while it runs; lapses after a node that died with it
ENDED_KEEP_S = 60  # how long a cancelled or failed analysis is told as such
NONE = "No analysis of that record is running or kept here; ask for one with POST /api/analysis."
CANCELLED = "The analysis was cancelled; ask again to start it anew."
LEFT = "Cancelled for you; others who asked for this analysis still want it, so it runs on."
NOT_OWNER = (
    "Only who asked for this analysis may cancel it: send the cancel_token its POST answered "
    "with, as Authorization: Bearer <token>."
)
FAILED = "The analysis failed; ask again to retry."
BUSY = "The computer is busy analysing other games; try again in a minute."
YOURS = "An analysis you asked for is still running here; wait for it, or cancel it, first."
