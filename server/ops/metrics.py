"""Prometheus metrics (``prometheus-client``), served at ``GET /metrics``.

Counters and histograms are module-level, incremented where things happen:

    nyumba_intents_total{kind,result}     every client message, by kind and result code
                                          ("ok", or the error code it was answered with)
    nyumba_intent_seconds{kind}           time to handle one, store round trips included
    nyumba_joins_total{result}            joins, by result (part of the above, kept apart
                                          for dashboards)
    nyumba_cas_total{result}              compare-and-sets: written / conflict (re-judged
                                          and retried) / gone
    nyumba_store_command_seconds          one multiplexed batch's round trip (server/store/resp.py)
    nyumba_store_errors_total{type}       store calls that failed, by exception type
    nyumba_store_up                       0 during a store outage (server/ops/health.py)
    nyumba_archive_up                     0 during an outage of the archive's database
    nyumba_archived_games_total{result}   finished games written (written / known: another
                                          node or an earlier try wrote it / failed)
    nyumba_archive_waiting                finished games this node holds for the archive
    nyumba_computer_queue                 computer and hint requests waiting or thinking
    nyumba_computer_think_seconds{lane}   one request's answer time
    nyumba_gc_pause_seconds{generation}   every garbage collection, timed by gc.callbacks
    nyumba_pubsub_lag_seconds             publish to receipt, of a probe this node sends to its
                                          own channel every ``PROBE_EVERY_S`` (the same path
                                          and connection as the rooms' notices)
    nyumba_rooms_open, nyumba_sockets     rooms with a connection here; open WebSockets
    nyumba_arrivals_refused_total{kind}   WebSocket opens, joins and room visitors over their
                                          budget per minute (server/live/arrivals.py)
    nyumba_gc_objects{generation}         objects the collector tracks in the young (0) and
                                          middle (1) generations, counted at scrape time: the
                                          middle one holds what outlived a young pass since
                                          the last full one (server/ops/collector.py), so garbage
                                          in reference cycles shows as its growth
    nyumba_build_info{version}            always 1

plus prometheus-client's own process and Python collectors. One node process per
registry: with several processes per host, scrape each node's port.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import struct
import time
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.requests import Request
from starlette.responses import Response

from server import __version__

# most answers take a millisecond or less; the tail is what the buckets must show
_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

INTENTS = Counter(
    "nyumba_intents", "Client messages handled, by kind and result", ["kind", "result"]
)
INTENT_SECONDS = Histogram(
    "nyumba_intent_seconds", "Time to handle one client message", ["kind"], buckets=_FAST
)
JOINS = Counter("nyumba_joins", "Joins, by result", ["result"])
CAS = Counter("nyumba_cas", "Compare-and-sets on rooms, by result", ["result"])
RESYNCS = Counter(
    "nyumba_resyncs", "Rooms resent to their sockets because the store went back in time"
)
STORE_SECONDS = Histogram(
    "nyumba_store_command_seconds", "Round trip of one batch of store commands", buckets=_FAST
)
STORE_ERRORS = Counter("nyumba_store_errors", "Store calls that failed, by type", ["type"])
STORE_UP = Gauge("nyumba_store_up", "1 while the store answers, 0 during an outage")
STORE_UP.set(1)
ARCHIVE_UP = Gauge(
    "nyumba_archive_up", "1 while the archive's database answers, 0 during an outage"
)
ARCHIVE_UP.set(1)
ARCHIVED = Counter(
    "nyumba_archived_games", "Finished games written to the archive, by result", ["result"]
)
ARCHIVE_WAITING = Gauge("nyumba_archive_waiting", "Finished games this node holds for the archive")
COMPUTER_QUEUE = Gauge("nyumba_computer_queue", "Computer requests waiting or being thought")
COMPUTER_SECONDS = Histogram(
    "nyumba_computer_think_seconds",
    "Time to answer one computer request",
    ["lane"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
)
GC_PAUSE = Histogram(
    "nyumba_gc_pause_seconds",
    "Garbage collection pauses, by generation",
    ["generation"],
    buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0),
)
PUBSUB_LAG = Histogram(
    "nyumba_pubsub_lag_seconds",
    "Publish to receipt of a probe on this node's own channel",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
)
ROOMS_OPEN = Gauge("nyumba_rooms_open", "Rooms with a connection on this node")
SOCKETS = Gauge("nyumba_sockets", "Open WebSockets on this node")
ARRIVALS_REFUSED = Counter(
    "nyumba_arrivals_refused", "Opens, joins and visitors over their budget per minute", ["kind"]
)
BUILD = Gauge("nyumba_build_info", "The running version", ["version"])
BUILD.labels(__version__).set(1)
GC_OBJECTS = Gauge(
    "nyumba_gc_objects", "Objects the collector tracks, young (0) and middle (1)", ["generation"]
)


def _tracked(generation: int) -> Callable[[], float]:
    return lambda: float(len(gc.get_objects(generation)))


for _generation in (0, 1):  # not the old one: walking it costs ~8 ms per 600,000 objects
    GC_OBJECTS.labels(str(_generation)).set_function(_tracked(_generation))


def _children(metric: Any) -> Callable[..., Any]:
    """``metric.labels(*values)``, each child looked up once: ``labels`` validates and locks
    on every call (6.1 us for one message's counter and histogram; 2.2 us with the children
    kept: about 1 % of a move's server CPU)."""
    cache: dict[tuple[str, ...], Any] = {}

    def child(*values: str) -> Any:
        found = cache.get(values)
        if found is None:
            found = cache[values] = metric.labels(*values)
        return found

    return child


intents, intent_seconds, joins = _children(INTENTS), _children(INTENT_SECONDS), _children(JOINS)
cas_results, gc_pauses = _children(CAS), _children(GC_PAUSE)


def intent(kind: str, result: str, started: float) -> None:
    """One client message handled (``started``: its ``time.perf_counter()``)."""
    intents(kind, result).inc()
    intent_seconds(kind).observe(time.perf_counter() - started)
    if kind == "join":
        joins(result).inc()


def rooms_from(count: Callable[[], int]) -> None:
    """The open-rooms gauge reads ``count()`` at scrape time."""
    ROOMS_OPEN.set_function(lambda: float(count()))


_gc_started = 0.0


def _gc_callback(phase: str, info: dict[str, Any]) -> None:
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        gc_pauses(str(info["generation"])).observe(time.perf_counter() - _gc_started)


if _gc_callback not in gc.callbacks:
    gc.callbacks.append(_gc_callback)


PROBE_EVERY_S = 10.0


async def probe_pubsub(publish: Callable[[bytes], Awaitable[Any]]) -> None:
    """Forever: publish this node's clock to its own channel (``publish``), so the listener
    can time the round trip (``pubsub_probe_received``). Store failures are the health
    module's business: a probe lost to one is simply not counted."""
    while True:
        with contextlib.suppress(Exception):
            await publish(struct.pack(">d", time.time()))
        await asyncio.sleep(PROBE_EVERY_S)


def pubsub_probe_received(data: bytes) -> None:
    if len(data) == 8:
        PUBSUB_LAG.observe(max(0.0, time.time() - struct.unpack(">d", data)[0]))


async def endpoint(request: Request) -> Response:
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
