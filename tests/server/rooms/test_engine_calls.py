"""One move through the server asks the engine each question once.

The app runs in this process (uvicorn in a thread, real sockets, a real
embedded Valkey) so that the room's game object can be swapped for one that
counts the calls the server makes to it. Calls the engine makes to itself are not
counted: the question is how often the server crosses into the engine.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from typing import Any

import pytest
import uvicorn
from serverproc import free_port
from wsclient import Client, create_room

import engine
from server.ops.config import Settings
from server.rooms import room as R
from server.store.embedded import EmbeddedValkey
from server.web.app import create_app


class Counting:
    """A game object that counts the calls each asyncio task makes to it."""

    def __init__(self, game: engine.Game):
        self._game = game
        self.calls: collections.Counter[tuple[int, str]] = collections.Counter()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._game, name)
        if not callable(value) or isinstance(value, type) or name.startswith("_"):
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            try:
                task = id(asyncio.current_task())
            except RuntimeError:
                task = 0
            self.calls[(task, name)] += 1
            return value(*args, **kwargs)

        return counted

    def by_task_of(self, method: str) -> dict[str, int]:
        """The calls made by the task that called ``method``."""
        [task] = {t for (t, m) in self.calls if m == method}
        return {m: n for (t, m), n in self.calls.items() if t == task}


@pytest.fixture(scope="module")
def valkey_url(tmp_path_factory):
    store = EmbeddedValkey(tmp_path_factory.mktemp("valkey-calls")).start()
    yield store.url
    store.stop()


def test_one_move_calls_the_engine_once_per_question(valkey_url, key_prefix, monkeypatch):
    game = engine.load("kalah")
    counting = Counting(game)
    key = ("kalah", tuple(sorted(game.options.items())))
    monkeypatch.setitem(R._games, key, counting)
    settings = Settings(redis_url=valkey_url, key_prefix=key_prefix + "calls:", tick_ms=60_000)
    port = free_port()
    server = uvicorn.Server(
        # asyncio's own loop: uvloop refuses to close a loop in a thread with pipes open
        uvicorn.Config(
            create_app(settings), port=port, log_level="warning", lifespan="on", loop="asyncio"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the app did not start"
            time.sleep(0.05)
        created = create_room(f"http://127.0.0.1:{port}", "kalah", mode="local")
        me = Client(f"ws://127.0.0.1:{port}/ws")
        me.join(created["room"], created["token"])
        me.expect("state")  # the presence rebuild after the join
        counting.calls.clear()
        me.move("a", version=0, id="m1")
        assert me.expect("ack", id="m1")["version"] == 1
        # legal_moves at most once: here not at all, apply's Transition has the choices
        me.wait_state(lambda s: s["version"] == 1)
        me.close()
    finally:
        server.should_exit = True
        thread.join(10)
    calls = counting.by_task_of("parse")
    # The move is read once and applied once; the Transition carries what the new
    # state's view needs (whose turn, the legal choices, the outcome).
    assert calls.pop("parse") == 1 and calls.pop("apply") == 1, calls
    assert calls.pop("to_move", 0) <= 1, calls  # whose turn it was (the guard)
    assert calls.pop("describe") == 1 and calls.pop("board") == 1, calls
    assert calls == {}, f"the server asked the engine more: {calls}"


def test_a_move_is_judged_on_the_position_the_move_before_decoded(
    valkey_url, key_prefix, monkeypatch
):
    """Issue 49, a lean hot path: the node keeps the position its last move made beside its
    copy of the room, so the next move's state is not decoded again (``Position(room)``)."""
    game = engine.load("kalah")
    counting = Counting(game)
    key = ("kalah", tuple(sorted(game.options.items())))
    monkeypatch.setitem(R._games, key, counting)
    decoded: collections.Counter[int] = collections.Counter()
    init = R.Position.__init__

    def counted_init(self: R.Position, room: R.Room) -> None:
        try:
            decoded[id(asyncio.current_task())] += 1
        except RuntimeError:
            decoded[0] += 1
        init(self, room)

    monkeypatch.setattr(R.Position, "__init__", counted_init)
    settings = Settings(redis_url=valkey_url, key_prefix=key_prefix + "pos:", tick_ms=60_000)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings), port=port, log_level="warning", lifespan="on", loop="asyncio"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the app did not start"
            time.sleep(0.05)
        created = create_room(f"http://127.0.0.1:{port}", "kalah", mode="local")
        me = Client(f"ws://127.0.0.1:{port}/ws")
        me.join(created["room"], created["token"])
        me.expect("state")
        me.move("a", version=0, id="m1")  # South sows a's four seeds: North's turn
        assert me.expect("ack", id="m1")["version"] == 1
        me.wait_state(lambda s: s["version"] == 1)
        counting.calls.clear()
        decoded.clear()
        me.move("A", version=1, id="m2")
        assert me.expect("ack", id="m2")["version"] == 2
        me.wait_state(lambda s: s["version"] == 2)
        me.close()
    finally:
        server.should_exit = True
        thread.join(10)
    [task] = {t for (t, m) in counting.calls if m == "parse"}  # the second move's
    assert decoded[task] == 0, f"the move decoded its room's state {decoded[task]} time(s)"
