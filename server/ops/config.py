"""Settings, from flags or the environment (flags win), validated in one place.

Every setting is one field of ``Settings``; its annotation carries the bounds
(``msgspec.Meta``) and, in ``extra``, the environment variable and a line of
help. ``server.ops.variables.from_env`` converts each given value with ``msgspec.convert`` against
that annotation, so a bad value is refused before anything starts, with one
line naming the variable, the value and what is allowed (``BadSetting``; the
CLI prints it and exits 2). The README's table and ``nyumba serve --help``
list the same variables (``server/ops/variables.py``); a test holds them to it.

To add a setting: one field here, its help in ``_HELP``, one row in the README's table.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

_HERE = Path(__file__).resolve().parent.parent  # server/


def cores() -> int:
    """The cores this process may run on (a cpuset or taskset counts, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_client_dir() -> Path:
    """The client's files: the copy packed into the wheel (``server/client``), or else the
    checkout's ``client/`` next to ``server/`` (``pip install -e .`` serves the working tree)."""
    packed = _HERE / "client"
    if (packed / "index.html").is_file():
        return packed
    return _HERE.parent / "client"


# What each variable does, as the README table and `nyumba serve --help` say it.
_HELP = {
    "HOST": "interface to listen on",
    "PORT": "port to listen on",
    "REDIS_URL": "the store; every node of a deployment names the same one (none: embedded Valkey)",
    "NYUMBA_DATA_DIR": "the embedded Valkey's append-only data, and the embedded archive (SQLite)",
    "DATABASE_URL": "the archive of finished games and players; every node of a deployment names the same one (none: SQLite in the data directory)",
    "NYUMBA_APPENDFSYNC": "the embedded store's appendfsync; always: no acked move lost on power loss",
    "NYUMBA_KEY_PREFIX": "prefix of every key and channel",
    "NYUMBA_ROOM_TTL_MS": "a room's life after creation, at most",
    "NYUMBA_IDLE_TTL_MS": "a room's life after the last connection left",
    "NYUMBA_ABSENT_MS": "absence after which the opponent may hand a seat to the computer, or claim a rated game",
    "NYUMBA_RATED_PAIR_DAILY": "rated games between the same two players in 24 hours; later ones are played unrated",
    "NYUMBA_RATED_SAME_ADDRESS": "rate games whose two players connect from one address (a club behind one NAT); off: such games are unrated",
    "NYUMBA_PRESENCE_TTL_MS": "a connection's presence lasts this long unless refreshed",
    "NYUMBA_TICK_MS": "presence refresh and housekeeping period",
    "NYUMBA_ACK_REPLICAS": "an ack waits until this many replicas have the write (WAIT)",
    "NYUMBA_ACK_TIMEOUT_MS": "... at most this long; then the intent is answered busy",
    "NYUMBA_LOCAL_FANOUT": "1: a node sends its own writes to its sockets itself and the store "
    "publishes them only when another node listens to the room (0, the default: every write is "
    "published)",
    "NYUMBA_COMPUTER_WORKERS": "processes thinking for computer seats (hints have one of their own)",
    "NYUMBA_COMPUTER_LEASE_MS": "how long one node holds a room's computer seat",
    "NYUMBA_GC_FULL_S": "seconds between full garbage collections (server/ops/collector.py)",
    "NYUMBA_CLIENT_DIR": "the browser client's files",
    "NYUMBA_MAX_FRAME": "bytes in one WebSocket message",
    "NYUMBA_RATE_MESSAGES": "messages per socket per rate window; over it: close",
    "NYUMBA_RATE_PINGS": "pings per socket per rate window (browsers: one in 3 s)",
    "NYUMBA_RATE_MESSAGES_PER_ADDRESS": "everything from one address per rate window, its sockets together",
    "NYUMBA_RATE_WINDOW_MS": "the rate window",
    "NYUMBA_ROOMS_PER_MINUTE": "rooms one client address may create per minute",
    "NYUMBA_IDENTITIES_PER_MINUTE": "new players and passkey challenges one client address may make per minute, all nodes together",
    "NYUMBA_SOCKETS_PER_ROOM": "connections in one room, all nodes together",
    "NYUMBA_ALLOWED_ORIGINS": "origins whose pages may open the WebSocket (none: the page's own origin only)",
    "NYUMBA_PUBLIC_URL": "the address players open (scheme://host[:port]; none: http://localhost:PORT): passkeys belong to its host, and are made and used only from it",
    "NYUMBA_FORWARDED_ALLOW_IPS": "proxies whose X-Forwarded-For and -Proto are believed (client address, quotas)",
    "NYUMBA_SOCKETS_PER_ADDRESS": "WebSockets one client address may hold, all nodes together",
    "NYUMBA_JOIN_DEADLINE_MS": "a new WebSocket must join a room within this, and a player paired in the lobby their room",
    "NYUMBA_OPENS_PER_MINUTE": "WebSockets one client address may open per minute, all nodes together",
    "NYUMBA_JOINS_PER_MINUTE": "joins one client address may send per minute, all nodes together",
    "NYUMBA_ROOM_VISITORS_PER_MINUTE": "visitors (joins without a seat token) one room may take per minute, all nodes together",
    "NYUMBA_REPLAY_WORKERS": "processes replaying records, records and undos (server/computer/replays.py), and writing finished games to the archive",
    "NYUMBA_WORKERS": "node processes on the port (server/run/workers.py)",
    "NYUMBA_WORKER": "this worker's index",
    "NYUMBA_LISTEN_FD": "the supervisor's listening socket",
    "NYUMBA_COMPUTER_FD": "a socket to the shared computer",
    "NYUMBA_STORE_TIMEOUT_MS": "a store command's deadline; past it the store counts as down (503 store-down)",
    "NYUMBA_STORE_CONNECT_TIMEOUT_MS": "deadline to connect to the store",
    "NYUMBA_ARCHIVE_RETRY_MS": "a finished game the archive has not taken is tried again after this, by any node",
    "NYUMBA_DRAIN_MS": "after SIGTERM, how long /readyz answers 503 before sockets close",
    "NYUMBA_WS_PING_MS": "WebSocket keepalive: a ping this often, closed (1011) if unanswered as long again",
    "NYUMBA_LOG_LEVEL": "least severe log level written",
    "NYUMBA_LOG_FORMAT": "log lines as text, or one JSON object a line",
    "NYUMBA_ACCESS_LOG": "a log line per HTTP request and WebSocket",
    "NYUMBA_SEEKS_PER_ADDRESS": "open seeks one client address may hold in the lobby, all nodes together",
    "NYUMBA_SEEKS_PER_NODE": "open seeks one node holds for its connections",
    "NYUMBA_QUICK_POOLS": "the start page's quick-pairing buttons: game[:option=value…]@initial_s+increment_s, comma-separated",
    "NYUMBA_SEEK_COOLDOWNS_MS": "a player or address paired in the lobby that misses the join deadline may not seek for this long: the 1st, 2nd, … miss within 24 h (the last for every further one)",
    "NYUMBA_PAIRINGS_PER_ADDRESS": "lobby pairings one client address may have waiting for its seat to be joined, all nodes together",
    "NYUMBA_ABORT_MS": "a clocked game is aborted if a side has not made its first move within this",
    "NYUMBA_REPORTS_PER_MINUTE": "reports one client address's pages may send per minute, per node (POST /api/reports)",
    "NYUMBA_ARENAS": "the operator's arenas: game clock hourly|daily@HH:MM duration [rated|casual] [berserk], separated by ; (e.g. kalah 3+2 hourly 30m)",
    "NYUMBA_ARENA_MIN_MS": "the shortest arena a player may create",
    "NYUMBA_ARENA_ABSENT_MS": "an arena player with no waiting socket and no game this long is paused",
    "NYUMBA_ARENA_REMATCH_MS": "two arena players who just played each other are paired again only after both waited this long",
    "NYUMBA_ARENA_CREATOR_GAMES": "rated archived games a player without a passkey needs to create an arena",
}


def _v(env: str, allowed: str | None = None, internal: bool = False) -> dict[str, Any]:
    """A field's variable and help; ``internal``: set by nyumba for its own processes."""
    extra: dict[str, Any] = {"env": env, "help": _HELP[env]}
    if allowed:
        extra["allowed"] = allowed
    if internal:
        extra["internal"] = True
    return extra


def _bounded(ge: float, le: float, env: str, allowed: str | None = None) -> Meta:
    """A number's bounds with its variable and help."""
    return Meta(ge=ge, le=le, extra=_v(env, allowed))


_URL = r"^(rediss?|unix|valkeys?)(\+[a-z]+)?://\S+$"
_POOL = r"[a-z0-9-]+(:[a-z_]+=[a-z0-9]+)*@[0-9]{1,5}\+[0-9]{1,3}"
_POOLS = rf"^{_POOL}(,{_POOL})*$"
_PUBLIC_URL = r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$"  # an origin: no path, no IPv6 literal
_DATABASE_URL = r"^(sqlite|postgres|postgresql)(\+[a-z0-9]+)?://\S+$"


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    host: Annotated[str, Meta(min_length=1, extra=_v("HOST"))] = "127.0.0.1"
    port: Annotated[int, _bounded(1, 65535, "PORT")] = 8000
    redis_url: Annotated[
        Annotated[str, Meta(pattern=_URL)] | None,
        Meta(
            extra=_v(
                "REDIS_URL",
                "a redis://, rediss:// or unix:// URL; a Cluster's seeds: redis://h:p,h:p…/0",
            ),
        ),
    ] = None
    data_dir: Annotated[Path, Meta(extra=_v("NYUMBA_DATA_DIR", "a directory"))] = Path("data")
    database_url: Annotated[
        Annotated[str, Meta(pattern=_DATABASE_URL)] | None,
        Meta(
            extra=_v(
                "DATABASE_URL",
                "a sqlite:///path or postgresql://user@host:port/db[?search_path=schema] URL",
            ),
        ),
    ] = None
    appendfsync: Annotated[
        Literal["always", "everysec", "no"], Meta(extra=_v("NYUMBA_APPENDFSYNC"))
    ] = "everysec"
    key_prefix: Annotated[
        str,
        Meta(
            pattern=r"^[^\s{}]{0,64}$",  # braces are Cluster hash tags
            extra=_v("NYUMBA_KEY_PREFIX"),
        ),
    ] = "nyumba:"
    room_ttl_ms: Annotated[int, _bounded(1000, 30 * 86_400_000, "NYUMBA_ROOM_TTL_MS")] = (
        24 * 3600 * 1000
    )
    idle_ttl_ms: Annotated[int, _bounded(500, 30 * 86_400_000, "NYUMBA_IDLE_TTL_MS")] = (
        30 * 60 * 1000
    )
    absent_ms: Annotated[int, _bounded(500, 86_400_000, "NYUMBA_ABSENT_MS")] = 2 * 60 * 1000
    rated_same_address: Annotated[bool, Meta(extra=_v("NYUMBA_RATED_SAME_ADDRESS"))] = False
    rated_pair_daily: Annotated[int, _bounded(1, 1000, "NYUMBA_RATED_PAIR_DAILY")] = 5
    presence_ttl_ms: Annotated[int, _bounded(200, 600_000, "NYUMBA_PRESENCE_TTL_MS")] = 15_000
    tick_ms: Annotated[int, _bounded(50, 60_000, "NYUMBA_TICK_MS")] = 5_000
    ack_replicas: Annotated[int, _bounded(0, 16, "NYUMBA_ACK_REPLICAS")] = 0
    ack_timeout_ms: Annotated[int, _bounded(1, 60_000, "NYUMBA_ACK_TIMEOUT_MS")] = 1000
    # A node sends its own write's notice to its sockets itself; the store publishes it only for
    # other nodes' (server/store/scripts.py ``_CAS``). Off (every notice goes through pub/sub):
    # it measured 0.92-1.17x main's server CPU a move (issue 49, tests/bench/peers/README.md).
    local_fanout: Annotated[bool, Meta(extra=_v("NYUMBA_LOCAL_FANOUT"))] = False
    computer_workers: Annotated[int, _bounded(1, 64, "NYUMBA_COMPUTER_WORKERS")] = 1
    computer_lease_ms: Annotated[int, _bounded(500, 600_000, "NYUMBA_COMPUTER_LEASE_MS")] = 15_000
    gc_full_s: Annotated[int, _bounded(1, 86_400, "NYUMBA_GC_FULL_S")] = 1800
    client_dir: Annotated[Path, Meta(extra=_v("NYUMBA_CLIENT_DIR", "a directory"))] = msgspec.field(
        default_factory=default_client_dir
    )
    # limits (hardening)
    max_frame: Annotated[int, _bounded(256, 1 << 20, "NYUMBA_MAX_FRAME")] = 8 * 1024
    rate_messages: Annotated[int, _bounded(1, 1_000_000_000, "NYUMBA_RATE_MESSAGES")] = 100
    rate_pings: Annotated[int, _bounded(1, 1_000_000_000, "NYUMBA_RATE_PINGS")] = 20
    rate_messages_per_address: Annotated[
        int, _bounded(1, 1_000_000_000, "NYUMBA_RATE_MESSAGES_PER_ADDRESS")
    ] = 4_000
    rate_window_ms: Annotated[int, _bounded(100, 3_600_000, "NYUMBA_RATE_WINDOW_MS")] = 20_000
    rooms_per_minute: Annotated[int, _bounded(1, 1_000_000_000, "NYUMBA_ROOMS_PER_MINUTE")] = 30
    # A school behind one address whose pupils all arrive in one minute gets its players; a
    # flood gets 2 a second, and what it never uses is gone a day later (docs/privacy.md).
    identities_per_minute: Annotated[
        int, _bounded(1, 1_000_000_000, "NYUMBA_IDENTITIES_PER_MINUTE")
    ] = 120
    sockets_per_room: Annotated[int, _bounded(2, 100_000, "NYUMBA_SOCKETS_PER_ROOM")] = 64
    allowed_origins: Annotated[
        tuple[str, ...],
        Meta(
            extra=_v(
                "NYUMBA_ALLOWED_ORIGINS", "comma-separated origins such as https://play.example"
            )
        ),
    ] = ()
    public_url: Annotated[
        Annotated[str, Meta(pattern=_PUBLIC_URL)] | None,
        Meta(
            extra=_v(
                "NYUMBA_PUBLIC_URL",
                "an origin such as https://play.example or http://localhost:8000 (no path)",
            )
        ),
    ] = None
    forwarded_allow_ips: Annotated[
        str,
        Meta(
            min_length=1,
            extra=_v("NYUMBA_FORWARDED_ALLOW_IPS", "comma-separated addresses or networks, or *"),
        ),
    ] = "127.0.0.1"
    sockets_per_address: Annotated[int, _bounded(1, 1_000_000, "NYUMBA_SOCKETS_PER_ADDRESS")] = 100
    join_deadline_ms: Annotated[int, _bounded(100, 600_000, "NYUMBA_JOIN_DEADLINE_MS")] = 10_000
    # The lobby and clocks (server/live/lobby.py, server/rooms/clock.py)
    seeks_per_address: Annotated[int, _bounded(1, 1_000_000, "NYUMBA_SEEKS_PER_ADDRESS")] = 8
    seeks_per_node: Annotated[int, _bounded(1, 10_000_000, "NYUMBA_SEEKS_PER_NODE")] = 20_000
    abort_ms: Annotated[int, _bounded(1000, 3_600_000, "NYUMBA_ABORT_MS")] = 30_000
    # server/rooms/cooldowns.py says why these numbers
    seek_cooldowns_ms: Annotated[
        str,
        Meta(
            pattern=r"^[0-9]{1,9}(,[0-9]{1,9}){0,15}$",
            extra=_v("NYUMBA_SEEK_COOLDOWNS_MS", "comma-separated milliseconds, 1 to 16 of them"),
        ),
    ] = "120000,300000,600000,1200000,2400000,3600000"
    pairings_per_address: Annotated[int, _bounded(1, 1_000_000, "NYUMBA_PAIRINGS_PER_ADDRESS")] = 1
    quick_pools: Annotated[
        str, Meta(pattern=_POOLS, extra=_v("NYUMBA_QUICK_POOLS", "such as kalah:seeds=4@180+2"))
    ] = "kalah:seeds=4@180+2,oware@300+3,bao-kiswahili@600+5"
    # Arrivals per minute (server/live/arrivals.py says why these are above what browsers do).
    opens_per_minute: Annotated[int, _bounded(1, 1_000_000_000, "NYUMBA_OPENS_PER_MINUTE")] = 200
    joins_per_minute: Annotated[int, _bounded(1, 1_000_000_000, "NYUMBA_JOINS_PER_MINUTE")] = 200
    room_visitors_per_minute: Annotated[
        int, _bounded(1, 1_000_000_000, "NYUMBA_ROOM_VISITORS_PER_MINUTE")
    ] = 128
    replay_workers: Annotated[int, _bounded(1, 64, "NYUMBA_REPLAY_WORKERS")] = 1
    workers: Annotated[
        int, _bounded(1, 256, "NYUMBA_WORKERS", "an integer from 1 to 256, or auto (one per core)")
    ] = 1
    # Set by the supervisor in each worker it starts (server/run/workers.py), not by people:
    worker: Annotated[int | None, Meta(extra=_v("NYUMBA_WORKER", internal=True))] = None
    listen_fd: Annotated[int | None, Meta(extra=_v("NYUMBA_LISTEN_FD", internal=True))] = None
    computer_fd: Annotated[int | None, Meta(extra=_v("NYUMBA_COMPUTER_FD", internal=True))] = None
    # operations
    store_timeout_ms: Annotated[int, _bounded(100, 60_000, "NYUMBA_STORE_TIMEOUT_MS")] = 2_000
    store_connect_timeout_ms: Annotated[
        int, _bounded(100, 60_000, "NYUMBA_STORE_CONNECT_TIMEOUT_MS")
    ] = 2_000
    drain_ms: Annotated[int, _bounded(0, 120_000, "NYUMBA_DRAIN_MS")] = 0
    archive_retry_ms: Annotated[int, _bounded(100, 3_600_000, "NYUMBA_ARCHIVE_RETRY_MS")] = 15_000
    ws_ping_ms: Annotated[int, _bounded(1000, 600_000, "NYUMBA_WS_PING_MS")] = 5_000
    log_level: Annotated[
        Literal["debug", "info", "warning", "error"], Meta(extra=_v("NYUMBA_LOG_LEVEL"))
    ] = "info"
    log_format: Annotated[Literal["text", "json"], Meta(extra=_v("NYUMBA_LOG_FORMAT"))] = "text"
    access_log: Annotated[bool, Meta(extra=_v("NYUMBA_ACCESS_LOG"))] = False
    reports_per_minute: Annotated[int, _bounded(1, 1_000_000_000, "NYUMBA_REPORTS_PER_MINUTE")] = 20
    # Arenas (server/live/arena.py; the rules in server/PROTOCOL.md, "Arenas")
    arenas: Annotated[
        str,
        Meta(
            pattern=r"^[^\n]{0,2000}$",
            extra=_v("NYUMBA_ARENAS", "entries such as kalah 3+2 hourly 30m, separated by ;"),
        ),
    ] = ""
    arena_min_ms: Annotated[int, _bounded(1000, 300 * 60_000, "NYUMBA_ARENA_MIN_MS")] = 60_000
    arena_absent_ms: Annotated[int, _bounded(1000, 3_600_000, "NYUMBA_ARENA_ABSENT_MS")] = 60_000
    arena_rematch_ms: Annotated[int, _bounded(0, 3_600_000, "NYUMBA_ARENA_REMATCH_MS")] = 5_000
    arena_creator_games: Annotated[int, _bounded(0, 100_000, "NYUMBA_ARENA_CREATOR_GAMES")] = 5

    @property
    def public_origin(self) -> str:
        """Where players open nyumba, without a trailing slash: ``NYUMBA_PUBLIC_URL``, or
        ``http://localhost:PORT`` — a name, not 127.0.0.1, because WebAuthn takes no IP address
        as a relying party, and a secure context without HTTPS, so passkeys work there."""
        origin = (self.public_url or f"http://localhost:{self.port}").rstrip("/").lower()
        for default in ("http://", ":80"), ("https://", ":443"):  # as a browser writes it
            if origin.startswith(default[0]) and origin.endswith(default[1]):
                origin = origin.removesuffix(default[1])
        return origin

    @property
    def relying_party(self) -> str:
        """The passkeys' relying party id: the public origin's host."""
        return self.public_origin.split("://", 1)[1].rsplit(":", 1)[0].lower()

    def doubts(self) -> list[str]:
        """Allowed but probably wrong: said in the log at start (tests rely on some)."""
        out = []
        if self.presence_ttl_ms <= self.tick_ms:
            out.append(
                f"NYUMBA_PRESENCE_TTL_MS={self.presence_ttl_ms} is not longer than "
                f"NYUMBA_TICK_MS={self.tick_ms}, which refreshes it: players will show as "
                f"absent between refreshes"
            )
        if all(part.isdigit() for part in self.relying_party.split(".")):
            out.append(
                f"NYUMBA_PUBLIC_URL={self.public_url} names an IP address: browsers refuse "
                f"passkeys there (WebAuthn wants a domain name); everything else works"
            )
        return out


class BadSetting(ValueError):
    """One line: the variable, its value, what is allowed."""
