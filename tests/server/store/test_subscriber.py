"""The pub/sub subscriber on one master (server/store/subscriber.py) against a
redis-server of the test's own: messages delivered, a restarted or silent
store left and rejoined with every channel subscribed again, and a
subscription that cannot be confirmed failing within the deadline."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from asynckit import run
from chaoskit import Store

from server.store import subscriber as S
from server.store.resp import Link


async def _until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


class Listener:
    def __init__(self, url: str):
        self.got: list[tuple[bytes, bytes]] = []
        self.resyncs = 0
        self.sub = S.Subscriber(Link(url, command_timeout=1.0, connect_timeout=1.0))
        self.sub.deliver = lambda channel, data: self.got.append((channel, data))
        self.sub.on_resubscribed = self._resynced

    def _resynced(self) -> None:
        self.resyncs += 1


async def _publish(url: str, channel: str, data: bytes) -> int:
    link = Link(url)
    try:
        return int(await link.execute("PUBLISH", channel, data))
    finally:
        link.close()


def test_messages_arrive_and_a_restarted_store_is_subscribed_again(tmp_path):
    store = Store(tmp_path / "redis")
    store.start()

    async def scenario() -> None:
        ear = Listener(store.url)
        await ear.sub.subscribe("room:{a}", "room:{b}")
        assert await _publish(store.url, "room:{a}", b"one") == 1
        await _until(lambda: ear.got == [(b"room:{a}", b"one")])
        await ear.sub.unsubscribe("room:{b}")
        store.kill()
        store.start()
        await _until(lambda: ear.resyncs == 1)  # told once every channel is back
        assert await _publish(store.url, "room:{a}", b"two") == 1
        assert await _publish(store.url, "room:{b}", b"gone") == 0  # not wanted any more
        await _until(lambda: ear.got[-1] == (b"room:{a}", b"two"))
        await ear.sub.aclose()

    try:
        run(scenario())
    finally:
        store.stop()


def test_a_store_that_stops_answering_is_left_and_rejoined(tmp_path, monkeypatch):
    monkeypatch.setattr(S, "PING_EVERY_S", 0.3)
    store = Store(tmp_path / "redis")
    store.start()

    async def scenario() -> None:
        ear = Listener(store.url)
        await ear.sub.subscribe("room:{a}")
        os.kill(store.proc.pid, signal.SIGSTOP)  # the connection stays open; nothing answers
        try:
            await asyncio.sleep(1.5)
            first = ear.sub._conn
        finally:
            os.kill(store.proc.pid, signal.SIGCONT)
        await _until(lambda: ear.resyncs >= 1)
        assert ear.sub._conn is not first or first is None
        assert await _publish(store.url, "room:{a}", b"after") == 1
        await _until(lambda: (b"room:{a}", b"after") in ear.got)
        await ear.sub.aclose()

    try:
        run(scenario())
    finally:
        store.stop()


def test_a_subscription_the_store_cannot_confirm_fails_within_the_deadline(tmp_path):
    store = Store(tmp_path / "redis")
    store.start()

    async def scenario() -> None:
        ear = Listener(store.url)
        await ear.sub.subscribe("room:{a}")
        store.kill()
        started = time.monotonic()
        with pytest.raises(Exception) as failed:
            await ear.sub.subscribe("room:{b}")
        assert "TimeoutError" in type(failed.value).__name__
        assert time.monotonic() - started < 5
        await ear.sub.aclose()

    try:
        run(scenario())
    finally:
        store.stop()


def test_credentials_in_the_url_are_used(tmp_path):
    store = Store(tmp_path / "redis")
    store.start()

    async def scenario() -> None:
        admin = Link(store.url)
        await admin.execute("CONFIG", "SET", "requirepass", "s3cret")
        admin.close()
        url = f"redis://:s3cret@127.0.0.1:{store.port}/0"
        ear = Listener(url)
        await ear.sub.subscribe("room:{a}")
        assert await _publish(url, "room:{a}", b"hush") == 1
        await _until(lambda: ear.got == [(b"room:{a}", b"hush")])
        await ear.sub.aclose()

    try:
        run(scenario())
    finally:
        store.stop()
