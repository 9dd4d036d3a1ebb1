"""Shared fixtures: real server processes on real stores.

Stores: the embedded Valkey that ``nyumba serve`` starts by itself (always),
and the Redis at ``REDIS_URL`` when one is set. Every test session uses its
own key prefix on a shared Redis and never flushes anything.
"""

from __future__ import annotations

import os
import uuid

import pytest
from serverproc import ServerProcess, make_server  # noqa: F401  (fixtures below use them)


def _stores() -> list[str]:
    stores = ["embedded"]
    if os.environ.get("REDIS_URL"):
        stores.append("redis")
    return stores


@pytest.fixture(scope="session")
def key_prefix() -> str:
    return f"nyumba-test-{uuid.uuid4().hex[:8]}:"


@pytest.fixture(scope="session", params=_stores())
def store_kind(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def shared_store(store_kind, tmp_path_factory):
    """One store for the nodes a module starts: the embedded Valkey of its own, or the Redis at
    REDIS_URL (each test keeps to its own key prefix)."""
    if store_kind == "redis":
        yield os.environ["REDIS_URL"]
        return
    from server.run.cli import embedded_valkey

    with embedded_valkey(tmp_path_factory.mktemp("shared-valkey")) as url:
        yield url


@pytest.fixture(scope="session")
def server(store_kind, tmp_path_factory, key_prefix):
    """A server with short timers (absence 1.5 s, tick 0.3 s) on each store."""
    srv = make_server(
        store_kind,
        tmp_path_factory.mktemp(f"srv-{store_kind}"),
        key_prefix,
        NYUMBA_ABSENT_MS="1500",
        NYUMBA_TICK_MS="300",
        NYUMBA_PRESENCE_TTL_MS="1000",
    )
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def live_server(server) -> str:
    """The base URL of a running server (for the browser tests)."""
    return server.url
