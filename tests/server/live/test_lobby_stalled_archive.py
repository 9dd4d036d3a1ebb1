"""The lobby pairs without waiting on a stalled database: a PostgreSQL of the test's own whose
processes are stopped (SIGSTOP: connections stay open, nothing answers — worse than a refused
connection) pairs anonymous, identified and rated players as fast as ever, each database call
on the way cut at its deadline (server/PROTOCOL.md, "The lobby")."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time

import pytest
from pgkit import PostgresServer
from wsclient import Client

from server.archive import players
from server.archive.db import Database
from server.live.local import now_ms

# A pairing waits for one database deadline (0.5 s) at most: once one was missed, the node
# does not ask for 5 s. Before the deadlines held, it took 2.5 s (identified) and 6 s (rated)
# here, and 7 s and over 20 s in the report that found it.
BOUND_S = 1.5


@pytest.fixture
def postgres():
    pg = PostgresServer().start()
    yield pg
    pg.close()


@contextlib.contextmanager
def stalled(pg: PostgresServer):
    """Every process of ``pg`` stopped (the postmaster and its backends), then let go."""
    main = int((pg.data / "postmaster.pid").read_text().split()[0])
    children = subprocess.run(["pgrep", "-P", str(main)], capture_output=True, text=True)
    pids = [main, *(int(p) for p in children.stdout.split())]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # a backend that just ended
            os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _sessions(url: str, n: int) -> list[str]:
    async def run() -> list[str]:
        db = Database(url)
        try:
            return [(await players.create(db, now_ms()))[1] for _ in range(n)]
        finally:
            await db.close()

    return asyncio.run(run())


def _pair_time(ws_url: str, cookies: tuple[str | None, str | None], **seek) -> float:
    """Seconds from the first seek to both players' ``paired``, the players' browsers'
    cookies given (None: a browser that has none)."""
    clients = [
        Client(ws_url, headers={"Cookie": f"nyumba_player={c}"} if c else None) for c in cookies
    ]
    body = {"game": "kalah", "options": {"seeds": 4}, **seek}
    started = time.monotonic()
    clients[0].send(t="seek", **body, id="s0")
    clients[0].expect("seeking", timeout=30, id="s0")
    clients[1].send(t="seek", **body, id="s1")
    rated = [c.expect("paired", timeout=30)["rated"] for c in clients]
    took = time.monotonic() - started
    assert rated == [seek.get("rated", False)] * 2
    for c in clients:
        c.close()
    return took


def test_a_stalled_database_does_not_slow_pairing(lobby_nodes, postgres) -> None:
    (node,) = lobby_nodes(1, DATABASE_URL=postgres.url)
    a, b, c, d, e = _sessions(postgres.url, 5)  # on the node's database, not in its memory
    before = _pair_time(node.ws_url, (None, None))
    _pair_time(node.ws_url, (c, d))  # c and d played here before: the node knows them
    with stalled(postgres):
        anonymous = _pair_time(node.ws_url, (None, None))
        identified = _pair_time(node.ws_url, (a, b))  # unknown here: paired as anonymous
        clock = {"initial_ms": 60000, "increment_ms": 0}  # a rated seek needs one
        rated = _pair_time(node.ws_url, (c, d), rated=True, clock=clock)  # last known ratings
        stranger = Client(node.ws_url, headers={"Cookie": f"nyumba_player={e}"})
        started = time.monotonic()
        stranger.send(t="seek", game="kalah", options={"seeds": 4}, rated=True, clock=clock, id="r")
        refused = stranger.expect("error", timeout=30, id="r")
        unknown = time.monotonic() - started
    print(
        f"pairing: {before=:.3f} {anonymous=:.3f} {identified=:.3f} {rated=:.3f} s; {unknown=:.3f}"
    )
    assert anonymous < BOUND_S and identified < BOUND_S and rated < BOUND_S
    # Who the stranger is could not be read in time: its rated seek is answered, not kept.
    assert refused["code"] == "busy" and unknown < BOUND_S
