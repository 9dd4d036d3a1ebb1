"""Two nodes on one store and one archive (a real SQLite file; a real PostgreSQL server in a
schema of the test's own): a game finished on one node is on its permanent page from the
other; when both nodes write the same game at once, it is written once and its ratings move
once; a database outage during a result delays the write and loses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time

import asyncpg
import httpx
import pytest
from archivekit import Player, archived_counts, rated_game, wait_archived
from asynckit import run
from pgkit import PostgresServer, archive_url, sqlite_url
from serverproc import ServerProcess

from server.ratings import glicko2 as G
from server.store.embedded import EmbeddedValkey

ENV = {"NYUMBA_TICK_MS": "300", "NYUMBA_ARCHIVE_RETRY_MS": "500"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def cluster(request, tmp_path_factory, key_prefix):
    tmp = tmp_path_factory.mktemp(f"archive-{request.param}")
    with contextlib.ExitStack() as stack:
        valkey = EmbeddedValkey(tmp / "valkey").start()
        stack.callback(valkey.stop)
        url = archive_url(request.param, tmp, stack)
        env = {**ENV, "DATABASE_URL": url, "NYUMBA_KEY_PREFIX": key_prefix + "archive:"}
        nodes = [
            ServerProcess(redis_url=valkey.url, data_dir=tmp / f"node{i}", env=env).start()
            for i in range(2)
        ]
        for n in nodes:
            stack.callback(n.stop)
        yield request.param, url, nodes


def test_a_game_finished_on_one_node_is_on_its_page_from_another(cluster):
    _, _, (a, b) = cluster
    south, north = Player(a.url, "Amina"), Player(b.url, "Baraka")
    final = rated_game(a, b, south, north, winner=0)
    game_id = final["archive"]
    assert game_id and final["outcome"]["reason"] == "resignation"
    shown = wait_archived(b.url, game_id)
    game = shown["game"]
    assert [s["player"] for s in game["seats"]] == [south.id, north.id]
    assert [s["name"] for s in game["seats"]] == ["Amina", "Baraka"]
    assert game["rated"] and game["outcome"]["winner"] == 0
    assert shown["record"]["players"] == ["Amina", "Baraka"]
    moves = [m["move"] for m in shown["record"]["moves"]]
    assert moves[0] == "c" and len(moves) == final["plies"] >= 4  # two moves each, at least
    won, lost = G.game(G.Rating(), G.Rating(), 1.0)
    assert game["seats"][0]["rating_after"] == pytest.approx(won.rating)
    page = httpx.get(f"{b.url}/g/{game_id}", timeout=5)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    theirs = httpx.get(f"{b.url}/api/players/{north.id}", timeout=5).json()
    assert theirs["games"][0]["id"] == game_id and theirs["games"][0]["opponent"]["name"] == "Amina"
    assert theirs["ratings"][0]["rating"] == pytest.approx(lost.rating)
    record = httpx.get(f"{a.url}/api/archive/{game_id}/record", timeout=5)
    assert "attachment" in record.headers["content-disposition"]
    assert record.json()["players"] == ["Amina", "Baraka"]


@contextlib.contextmanager
def database_held(kind: str, url: str, seconds: float):
    """Hold the archive's write lock for ``seconds`` (a writer waits; none gets through):
    SQLite's exclusive lock on the file, or PostgreSQL's on the games table."""
    ready, release = threading.Event(), threading.Event()

    def hold_sqlite() -> None:
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        conn.execute("BEGIN EXCLUSIVE")
        ready.set()
        release.wait(seconds)
        conn.execute("ROLLBACK")
        conn.close()

    def hold_postgres() -> None:
        base, _, schema = url.partition("?search_path=")

        async def go() -> None:
            conn = await asyncpg.connect(base, server_settings={"search_path": schema})
            async with conn.transaction():
                await conn.execute("LOCK TABLE games IN ACCESS EXCLUSIVE MODE")
                ready.set()
                for _ in range(int(seconds * 20)):
                    if release.is_set():
                        break
                    await asyncio.sleep(0.05)
            await conn.close()

        run(go())

    thread = threading.Thread(target=hold_sqlite if kind == "sqlite" else hold_postgres)
    thread.start()
    assert ready.wait(10)
    try:
        yield
    finally:
        release.set()
        thread.join()


def test_two_nodes_writing_one_game_at_once_write_it_once(cluster):
    """Node A finishes the game while the archive is held; its write waits. Node B's sweep
    finds the game due and writes it too; it waits as well. Let go: one row, ratings moved
    once, and one of the two writes found the other's row."""
    kind, url, (a, b) = cluster
    south, north = Player(a.url), Player(b.url)
    before = [archived_counts(n.url) for n in (a, b)]
    with database_held(kind, url, seconds=2.5):
        final = rated_game(a, b, south, north, winner=1)
        time.sleep(1.5)  # B's sweep (every 0.3 s) takes it up once due (0.5 s after A began)
    game = wait_archived(a.url, final["archive"])["game"]

    def gained() -> dict[str, int]:
        after = [archived_counts(n.url) for n in (a, b)]
        return {
            k: sum(after[i].get(k, 0) - before[i].get(k, 0) for i in range(2))
            for k in ("written", "known")
        }

    # The other write (and, on a loaded machine, a node's own retry) ends finding the row: how
    # many found it depends on timing; that exactly one wrote it does not.
    deadline = time.monotonic() + 10
    while gained()["known"] < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    seen = gained()
    assert seen["written"] == 1 and seen["known"] >= 1, (before, seen)
    for p in (south, north):
        ratings = p.request("GET", f"/api/players/{p.id}").json()["ratings"]
        assert [r["games"] for r in ratings] == [1]
    won, lost = G.game(G.Rating(), G.Rating(), 0.0)
    assert game["seats"][0]["rating_after"] == pytest.approx(won.rating)


@pytest.fixture(params=["postgresql-stopped", "sqlite-locked"])
def outage(request, tmp_path, key_prefix):
    """One node whose archive can be taken away: a PostgreSQL server of the test's own,
    stopped and started again; or the SQLite file locked past the writers' busy timeout."""
    with contextlib.ExitStack() as stack:
        if request.param == "postgresql-stopped":
            pg = PostgresServer().start()
            stack.callback(pg.close)
            url = pg.url
            down, up = pg.stop, pg.start
        else:
            url = sqlite_url(tmp_path)
            release = threading.Event()
            holder: list[threading.Thread] = []

            def lock() -> None:
                ready = threading.Event()

                def hold() -> None:
                    conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
                    conn.execute("BEGIN EXCLUSIVE")
                    ready.set()
                    release.wait(120)
                    conn.execute("ROLLBACK")
                    conn.close()

                release.clear()
                holder.append(threading.Thread(target=hold))
                holder[-1].start()
                assert ready.wait(10)

            def unlock() -> None:
                release.set()
                holder[-1].join()

            down, up = lock, unlock
            stack.callback(release.set)
        env = {**ENV, "DATABASE_URL": url, "NYUMBA_KEY_PREFIX": key_prefix + "outage:"}
        node = ServerProcess(redis_url=None, data_dir=tmp_path / "node", env=env).start()
        stack.callback(node.stop)
        yield request.param, node, down, up


def test_a_database_outage_delays_the_write_and_loses_nothing(outage):
    kind, node, down, up = outage
    players = [Player(node.url) for _ in range(4)]
    down()
    ended = []
    for i in range(2):
        started = time.monotonic()
        final = rated_game(node, node, players[2 * i], players[2 * i + 1], winner=i % 2)
        ended.append(final["archive"])
        assert time.monotonic() - started < 5  # play did not wait for the archive
    # Tries fail: at once on a stopped server; after SQLite's busy timeout (5 s) on a lock.
    deadline = time.monotonic() + 12
    while archived_counts(node.url).get("failed", 0) < 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    if kind == "postgresql-stopped":
        ready = httpx.get(node.url + "/readyz", timeout=5)
        assert ready.status_code == 200 and ready.json()["archive"] != "ok"
        assert httpx.get(f"{node.url}/api/archive/{ended[0]}", timeout=5).status_code == 503
    counts = archived_counts(node.url)
    assert counts.get("written", 0) == 0 and counts.get("failed", 0) >= 1
    up()
    for game_id in ended:
        wait_archived(node.url, game_id)
    counts = archived_counts(node.url)
    assert counts["written"] == 2
    for p in players:
        ratings = httpx.get(f"{node.url}/api/players/{p.id}", timeout=5).json()["ratings"]
        assert [r["games"] for r in ratings] == [1]
    assert httpx.get(node.url + "/readyz", timeout=5).json()["archive"] == "ok"
