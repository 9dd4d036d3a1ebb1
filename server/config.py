"""Settings, from flags or the environment (flags win)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec


def cores() -> int:
    """The cores this process may run on (a cpuset or taskset counts, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str | None = None  # None: start the embedded Valkey
    data_dir: Path = Path("data")
    appendfsync: str = (
        "everysec"  # the embedded store's; "always": no acked move lost on power loss
    )
    key_prefix: str = "nyumba:"
    room_ttl_ms: int = 24 * 3600 * 1000  # a room lives at most this long after creation
    idle_ttl_ms: int = 30 * 60 * 1000  # ... and this long after the last person left
    absent_ms: int = 2 * 60 * 1000  # a seat absent this long may be handed to the computer
    presence_ttl_ms: int = 15_000  # a connection's presence lasts this long unless refreshed
    tick_ms: int = 5_000  # presence refresh and housekeeping period
    ack_replicas: int = 0  # an ack waits until this many replicas have the write (WAIT)
    ack_timeout_ms: int = 1000  # ... at most this long; then the intent is answered "busy"
    computer_workers: int = 1
    computer_lease_ms: int = 15_000
    gc_full_s: int = 1800  # seconds between the cycle collector's full passes (server/collector.py)
    client_dir: Path = Path(__file__).resolve().parent.parent / "client"
    # limits (hardening)
    max_frame: int = 8 * 1024  # bytes in one WebSocket message
    rate_messages: int = 100  # messages per socket per rate window (pings apart) ...
    rate_pings: int = 20  # ... pings per socket per window (browsers ping every 3 s) ...
    rate_messages_per_address: int = 4_000  # ... everything from one address per window ...
    rate_window_ms: int = 20_000  # ... over any: close 1008
    rooms_per_minute: int = 30  # rooms one client address may create per minute
    sockets_per_room: int = 64  # connections in one room, all nodes together
    allowed_origins: tuple[str, ...] = ()  # empty: the page's own origin (Origin host == Host)
    forwarded_allow_ips: str = "127.0.0.1"  # proxies whose X-Forwarded-For is believed
    sockets_per_address: int = 100  # WebSockets one client address may hold, all nodes together
    join_deadline_ms: int = 10_000  # a new WebSocket must join a room within this
    replay_workers: int = 1  # processes replaying records, records and undos (server/offload.py)
    workers: int = 1  # node processes on the port (server/workers.py); NYUMBA_WORKERS=auto: cores
    # Set by the supervisor in each worker it starts (server/workers.py), not by people:
    worker: int | None = None  # this worker's index
    listen_fd: int | None = None  # the listening socket the supervisor bound
    computer_fd: int | None = None  # a socket to the supervisor's shared computer

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides) -> Settings:
        env = dict(os.environ if env is None else env)
        values: dict = {}
        text = {
            "host": "HOST",
            "redis_url": "REDIS_URL",
            "key_prefix": "NYUMBA_KEY_PREFIX",
            "appendfsync": "NYUMBA_APPENDFSYNC",
        }
        numbers = {
            "port": "PORT",
            "room_ttl_ms": "NYUMBA_ROOM_TTL_MS",
            "idle_ttl_ms": "NYUMBA_IDLE_TTL_MS",
            "absent_ms": "NYUMBA_ABSENT_MS",
            "presence_ttl_ms": "NYUMBA_PRESENCE_TTL_MS",
            "tick_ms": "NYUMBA_TICK_MS",
            "ack_replicas": "NYUMBA_ACK_REPLICAS",
            "ack_timeout_ms": "NYUMBA_ACK_TIMEOUT_MS",
            "computer_workers": "NYUMBA_COMPUTER_WORKERS",
            "computer_lease_ms": "NYUMBA_COMPUTER_LEASE_MS",
            "gc_full_s": "NYUMBA_GC_FULL_S",
            "max_frame": "NYUMBA_MAX_FRAME",
            "rate_messages": "NYUMBA_RATE_MESSAGES",
            "rate_window_ms": "NYUMBA_RATE_WINDOW_MS",
            "rate_pings": "NYUMBA_RATE_PINGS",
            "rate_messages_per_address": "NYUMBA_RATE_MESSAGES_PER_ADDRESS",
            "rooms_per_minute": "NYUMBA_ROOMS_PER_MINUTE",
            "sockets_per_room": "NYUMBA_SOCKETS_PER_ROOM",
            "replay_workers": "NYUMBA_REPLAY_WORKERS",
            "sockets_per_address": "NYUMBA_SOCKETS_PER_ADDRESS",
            "join_deadline_ms": "NYUMBA_JOIN_DEADLINE_MS",
            "worker": "NYUMBA_WORKER",
            "listen_fd": "NYUMBA_LISTEN_FD",
            "computer_fd": "NYUMBA_COMPUTER_FD",
        }
        for field, var in text.items():
            if env.get(var):
                values[field] = env[var]
        for field, var in numbers.items():
            if env.get(var):
                values[field] = int(env[var])
        if env.get("NYUMBA_WORKERS"):
            values["workers"] = (
                cores() if env["NYUMBA_WORKERS"] == "auto" else int(env["NYUMBA_WORKERS"])
            )
        if env.get("NYUMBA_DATA_DIR"):
            values["data_dir"] = Path(env["NYUMBA_DATA_DIR"])
        if env.get("NYUMBA_ALLOWED_ORIGINS"):
            values["allowed_origins"] = tuple(
                o.strip().rstrip("/") for o in env["NYUMBA_ALLOWED_ORIGINS"].split(",") if o.strip()
            )
        if env.get("NYUMBA_FORWARDED_ALLOW_IPS"):
            values["forwarded_allow_ips"] = env["NYUMBA_FORWARDED_ALLOW_IPS"]
        if env.get("NYUMBA_CLIENT_DIR"):
            values["client_dir"] = Path(env["NYUMBA_CLIENT_DIR"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("appendfsync", "everysec") not in ("always", "everysec", "no"):
            raise ValueError("NYUMBA_APPENDFSYNC is one of always, everysec, no")
        return cls(**values)
