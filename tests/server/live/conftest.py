"""Fixtures of tests/server/live/: nodes for the lobby's tests (``lobby_nodes``: a callable that
starts N nodes on one shared store, each with the environment given, all stopped after the test;
its ``store`` and ``prefix`` are the store's address and the nodes' key prefix)."""

from __future__ import annotations

import random

import pytest
from serverproc import ServerProcess


@pytest.fixture
def lobby_nodes(shared_store, tmp_path, key_prefix):
    started: list[ServerProcess] = []
    prefix = key_prefix + f"lobby{random.randrange(1 << 30)}:"

    def start(n: int = 2, **env: str) -> list[ServerProcess]:
        for _ in range(n):
            # Every test socket comes from 127.0.0.1: the lobby's caps and cooldowns per address
            # are off unless a test sets them (tests/server/live/test_lobby_fairness.py).
            settings = {
                "NYUMBA_KEY_PREFIX": prefix,
                "NYUMBA_SEEKS_PER_ADDRESS": "100000",
                "NYUMBA_PAIRINGS_PER_ADDRESS": "100000",
                "NYUMBA_SEEK_COOLDOWNS_MS": "0",
            }
            settings.update(env)
            started.append(
                ServerProcess(
                    redis_url=shared_store,
                    data_dir=tmp_path / f"node{len(started)}",
                    env=settings,
                ).start()
            )
        return started

    start.store, start.prefix = shared_store, prefix  # type: ignore[attr-defined]
    yield start
    for s in started:
        s.stop(kill=True)
