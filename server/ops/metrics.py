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

Game statistics, counted by the node whose compare-and-set started or finished a game, so
each game once across nodes (``count``; the decisions are ``server/rooms/tally.py``'s):

    nyumba_games_started_total{game,mode,level}          every game: a computer or local room
                                                          at creation, a friend room when the
                                                          friend takes the seat, every rematch
    nyumba_games_finished_total{game,mode,level,winner}  games played to an end
    nyumba_game_endings_total{game,mode,ending}          by the rules, or adjudicated
    nyumba_game_moves{game,mode}, nyumba_game_seconds{game,mode}
                                                          a finished game's plies and length
    nyumba_friend_invites_total{game,state}              friend rooms opened, and taken by the
                                                          friend (opened - taken: never joined)
    nyumba_reconnections_total{game,mode}                a seat's page joining again on a new
                                                          socket (server/live/handlers.py)
    nyumba_handovers_total{game}, nyumba_reclaims_total{game}
    nyumba_lobby_pairings_total{game}                    (the lobby's hook: ``lobby_paired``)
    nyumba_arenas_created_total{by}                      arenas made by a player or the schedule
    nyumba_arenas{status}                                arenas not finished now, by status:
                                                          upcoming, running (pairing), ending
                                                          (games left) (server/live/arenarounds.py)
    nyumba_arena_games_started_total{game}, nyumba_arena_games_finished_total{game,result}
                                                          arena pairings, and their games scored
                                                          (result: decisive, draw, aborted)
    nyumba_arena_pairing_wait_seconds                    an arena player's wait: their
                                                          ``arena-join`` to their ``arena-paired``

What only the page sees, as the page reports it (``server/web/reports.py``; the player may
turn it off):

    nyumba_page_reports_total{kind,reason}     friend links that could not connect, sockets
                                               that kept failing, device reports
    nyumba_page_devices_total{trait,value}     device reports, one count per trait (phone,
                                               memory, cores, browser, os)
    nyumba_page_reports_refused_total{why}     too large, malformed, over the rate, cross-site
    nyumba_ready                               1 while /readyz would answer 200

Every label is a closed list; nothing names a room, a person or an address.

One view of a machine under ``--workers``: the supervisor gives its workers (and itself) one
``PROMETHEUS_MULTIPROC_DIR`` (``server/run/multiproc.py``); each process writes its values
there and ``/metrics`` sums them all (prometheus-client's multiprocess mode), so one scrape of
the port is the whole machine. Gauges say how they sum (``multiprocess_mode``): sockets, rooms
and the computer's queue add up over the live processes; the store and readiness take the
lowest; ``nyumba_gc_objects`` is each worker's own (a ``pid`` label), set when it answers a
scrape and every ``PROBE_EVERY_S``. In that mode the per-process collectors (``process_*``,
``python_gc_*``) are not exported: the library cannot sum them. A single node exports them as
before.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import struct
import time
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from starlette.requests import Request
from starlette.responses import Response

from server import __version__
from server.rooms import tally

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
STORE_UP = Gauge(
    "nyumba_store_up", "1 while the store answers, 0 during an outage", multiprocess_mode="livemin"
)
STORE_UP.set(1)
READY = Gauge(
    "nyumba_ready", "1 while the node takes traffic (/readyz 200)", multiprocess_mode="livemin"
)
READY.set(1)
ARCHIVE_UP = Gauge(
    "nyumba_archive_up",
    "1 while the archive's database answers, 0 during an outage",
    multiprocess_mode="livemin",
)
ARCHIVE_UP.set(1)
ARCHIVED = Counter(
    "nyumba_archived_games", "Finished games written to the archive, by result", ["result"]
)
ARCHIVE_WAITING = Gauge(
    "nyumba_archive_waiting",
    "Finished games this node holds for the archive",
    multiprocess_mode="livesum",
)
COMPUTER_QUEUE = Gauge(
    "nyumba_computer_queue",
    "Computer requests waiting or being thought",
    multiprocess_mode="livesum",
)
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
ROOMS_OPEN = Gauge(
    "nyumba_rooms_open", "Rooms with a connection on this node", multiprocess_mode="livesum"
)
SOCKETS = Gauge("nyumba_sockets", "Open WebSockets on this node", multiprocess_mode="livesum")
ARRIVALS_REFUSED = Counter(
    "nyumba_arrivals_refused", "Opens, joins and visitors over their budget per minute", ["kind"]
)
BUILD = Gauge("nyumba_build_info", "The running version", ["version"], multiprocess_mode="max")
BUILD.labels(__version__).set(1)
GC_OBJECTS = Gauge(
    "nyumba_gc_objects",
    "Objects the collector tracks, young (0) and middle (1)",
    ["generation"],
    multiprocess_mode="liveall",  # per process (a pid label): each worker's own heap
)
_MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def _tracked(generation: int) -> Callable[[], float]:
    return lambda: float(len(gc.get_objects(generation)))


def _count_gc_objects() -> None:
    """Under ``--workers`` a value is read from the files, not asked at scrape time: each
    process sets its own when it answers a scrape and every ``PROBE_EVERY_S``."""
    for generation in (0, 1):
        GC_OBJECTS.labels(str(generation)).set(_tracked(generation)())


if not _MULTIPROCESS:
    for _generation in (0, 1):  # not the old one: walking it costs ~8 ms per 600,000 objects
        GC_OBJECTS.labels(str(_generation)).set_function(_tracked(_generation))

GAMES_STARTED = Counter(
    "nyumba_games_started", "Games started, by game, mode and level", ["game", "mode", "level"]
)
GAMES_FINISHED = Counter(
    "nyumba_games_finished",
    "Games played to an end, by game, mode, level and winner",
    ["game", "mode", "level", "winner"],
)
GAME_ENDINGS = Counter(
    "nyumba_game_endings",
    "How finished games ended: by the rules, or adjudicated",
    ["game", "mode", "ending"],
)
GAME_MOVES = Histogram(
    "nyumba_game_moves",
    "Moves (plies) in a finished game",
    ["game", "mode"],
    buckets=(10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000),
)
GAME_SECONDS = Histogram(
    "nyumba_game_seconds",
    "A finished game's length, from its start to its end",
    ["game", "mode"],
    buckets=(30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 7200, 14400, 86400),
)
FRIEND_INVITES = Counter(
    "nyumba_friend_invites", "Friend rooms opened, and taken by the friend", ["game", "state"]
)
RECONNECTIONS = Counter(
    "nyumba_reconnections", "A seat's page joining again on a new socket", ["game", "mode"]
)
HANDOVERS = Counter("nyumba_handovers", "Absent players' seats handed to the computer", ["game"])
RECLAIMS = Counter("nyumba_reclaims", "Seats taken back from the computer", ["game"])
LOBBY_PAIRINGS = Counter("nyumba_lobby_pairings", "Players paired by the lobby", ["game"])
ARENAS_CREATED = Counter("nyumba_arenas_created", "Arenas created, by whom", ["by"])
ARENAS = Gauge(
    "nyumba_arenas",
    "Arenas not finished now, by status (upcoming, running, ending)",
    ["status"],
    multiprocess_mode="max",
)
ARENA_GAMES_STARTED = Counter("nyumba_arena_games_started", "Arena games paired", ["game"])
ARENA_GAMES_FINISHED = Counter(
    "nyumba_arena_games_finished", "Arena games scored, by result", ["game", "result"]
)
ARENA_PAIRING_WAIT = Histogram(
    "nyumba_arena_pairing_wait_seconds",
    "An arena player's wait, from the arena-join that made them wait to their pairing",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0),
)

PAGE_REPORTS = Counter(
    "nyumba_page_reports", "Reports the pages sent, by kind and reason", ["kind", "reason"]
)
PAGE_DEVICES = Counter(
    "nyumba_page_devices", "Device reports, one count per trait", ["trait", "value"]
)
REPORTS_REFUSED = Counter("nyumba_page_reports_refused", "Page reports refused, by why", ["why"])


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


def count(events: list[tally.Event]) -> None:
    """Count what a stored change or a new room did to the game statistics."""
    for event in events:
        match event:
            case tally.Started(g):
                GAMES_STARTED.labels(*g).inc()
            case tally.Finished(g, winner, ending, plies, seconds):
                GAMES_FINISHED.labels(*g, winner).inc()
                GAME_ENDINGS.labels(g.game, g.mode, ending).inc()
                GAME_MOVES.labels(g.game, g.mode).observe(plies)
                if seconds is not None:
                    GAME_SECONDS.labels(g.game, g.mode).observe(max(0.0, seconds))
            case tally.InviteOpened(game):
                FRIEND_INVITES.labels(game, "opened").inc()
            case tally.InviteTaken(game):
                FRIEND_INVITES.labels(game, "taken").inc()
            case tally.HandedOver(g):
                HANDOVERS.labels(g.game).inc()
            case tally.Reclaimed(g):
                RECLAIMS.labels(g.game).inc()


def lobby_paired(game: str) -> None:
    """The lobby's hook: two players paired into a room of ``game``."""
    LOBBY_PAIRINGS.labels(game).inc()


_ready = {"store": True, "draining": False}


def readiness(**parts: bool) -> None:
    """The store answers (``store``), the node is not draining (``draining``): ``nyumba_ready``."""
    _ready.update(parts)
    READY.set(1 if _ready["store"] and not _ready["draining"] else 0)


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
        if _MULTIPROCESS:
            _count_gc_objects()
        await asyncio.sleep(PROBE_EVERY_S)


def pubsub_probe_received(data: bytes) -> None:
    if len(data) == 8:
        PUBSUB_LAG.observe(max(0.0, time.time() - struct.unpack(">d", data)[0]))


_scraped: CollectorRegistry | None = None


def _registry() -> CollectorRegistry:
    """This process's registry; under ``--workers`` one that sums every process's files."""
    global _scraped
    if _scraped is None:
        if not _MULTIPROCESS:
            _scraped = REGISTRY
        else:
            _scraped = CollectorRegistry()
            multiprocess.MultiProcessCollector(_scraped, os.environ["PROMETHEUS_MULTIPROC_DIR"])
    return _scraped


async def endpoint(request: Request) -> Response:
    if _MULTIPROCESS:
        _count_gc_objects()
    return Response(generate_latest(_registry()), media_type=CONTENT_TYPE_LATEST)
