"""Health: is the process alive, is it ready for traffic, and store outages as episodes.

    GET /livez    200 while the process's event loop answers; never asks the store, so a store
                  outage does not make an orchestrator restart every node
    GET /readyz   200 when the store answers a PING within ``READY_DEADLINE_S`` and the node
                  is not draining; else 503 with a reason (take the node out of rotation).
                  The body says whether the archive's database answers (``archive``: "ok" or
                  why not), but a database outage leaves the node ready: play never needs
                  the archive (finished games wait in their rooms), and turning every node
                  out of rotation for it would stop the games it must not stop
    GET /healthz  (server/web/app.py) the same PING through ``store_answers``, with the node,
                  worker, pid and version (for people and the Docker HEALTHCHECK)

A store outage is an *episode*: the first failure logs one warning (``store down``), a
probe then pings every ``PROBE_EVERY_S`` and logs one line when the store is back, with
how long it was gone. Failures in between are counted in the metrics, not logged, so a
stalled store costs one log line rather than one per request.

``draining`` is set on SIGTERM (``server/run/cli.py``) before uvicorn closes any socket, so
``/readyz`` turns 503 while the node's connections are still open.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.ops import metrics

log = logging.getLogger("nyumba.health")

READY_DEADLINE_S = 1.0
PROBE_EVERY_S = 0.5


class StoreEpisodes:
    """Tracks whether the store is down; logs the start and end of each outage once."""

    def __init__(self) -> None:
        self.down_since: float | None = None
        self._probe: asyncio.Task[None] | None = None
        self._ping: Callable[[], Awaitable[Any]] | None = None

    def watch(self, ping: Callable[[], Awaitable[Any]]) -> None:
        """The store's ping, used to notice the end of an outage."""
        self._ping = ping

    def failed(self, exc: BaseException) -> bool:
        """A store call failed. True for the first failure of an episode (it is logged)."""
        metrics.STORE_ERRORS.labels(type(exc).__name__).inc()
        if self.down_since is not None:
            return False
        self.down_since = time.monotonic()
        metrics.STORE_UP.set(0)
        metrics.readiness(store=False)
        log.warning("store down: %s: %s", type(exc).__name__, exc)
        if self._ping is not None:
            try:
                self._probe = asyncio.get_running_loop().create_task(self._until_back())
            except RuntimeError:  # no loop (a synchronous caller): the next success ends it
                pass
        return True

    def ok(self) -> None:
        """A store call succeeded: the episode, if any, is over."""
        if self.down_since is None:
            return
        gone = time.monotonic() - self.down_since
        self.down_since = None
        metrics.STORE_UP.set(1)
        metrics.readiness(store=True)
        log.warning("store back after %.1f s", gone)

    async def _until_back(self) -> None:
        assert self._ping is not None
        while self.down_since is not None:
            await asyncio.sleep(PROBE_EVERY_S)
            try:
                await asyncio.wait_for(self._ping(), READY_DEADLINE_S)
            except Exception:
                continue
            self.ok()

    def close(self) -> None:
        if self._probe is not None:
            self._probe.cancel()


STORE = StoreEpisodes()  # one node per process: its store's outages, wherever they show


class Health:
    """Per app: whether the node is draining (set by the CLI on SIGTERM; ``nyumba_ready``)."""

    _draining = False

    @property
    def draining(self) -> bool:
        return self._draining

    @draining.setter
    def draining(self, value: bool) -> None:
        self._draining = value
        # Set from a signal handler (server/run/cli.py): the gauge's lock may be held by the
        # code the signal interrupted, so another thread waits for it instead.
        threading.Thread(target=metrics.readiness, kwargs={"draining": value}).start()


async def store_answers(ping: Callable[[], Awaitable[Any]]) -> str | None:
    """None when the store answered within ``READY_DEADLINE_S``, else why not."""
    try:
        await asyncio.wait_for(ping(), READY_DEADLINE_S)
    except TimeoutError:
        why = f"the store did not answer within {READY_DEADLINE_S:g} s"
        STORE.failed(TimeoutError(why))
        return why
    except Exception as exc:
        STORE.failed(exc)
        return f"the store does not answer: {exc}"
    STORE.ok()
    return None


async def livez(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def readyz(request: Request) -> Response:
    if request.app.state.health.draining:
        return _problem(503, "draining", "This node is shutting down.")
    why = await store_answers(request.app.state.node.store.ping)
    if why is not None:
        return _problem(503, "store-down", why)
    archive = getattr(request.app.state, "archive", None)
    if archive is None:
        return JSONResponse({"ok": True})
    return JSONResponse({"ok": True, "archive": await archive.ping() or "ok"})


def _problem(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)
