"""``nyumba serve --workers 2``: one scrape of the port is the whole machine. A finished game
of each mode is counted once however its sockets are spread over the workers, every scrape
(whichever worker answers it) says the same, the open sockets add up over the workers, and a
worker that dies stops counting its sockets while the games it counted stay counted."""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest
from serverproc import ServerProcess
from statskit import computer_game, friend_game, key, local_game, moved, scrape, winner_of
from wsclient import Client

STATISTICS = ("nyumba_games_", "nyumba_game_endings", "nyumba_game_moves_count")


def worker_of(client: Client) -> str:
    return client.ws.response.headers["x-nyumba-node"].split("-")[0]


def socket_on(server: ServerProcess, worker: str) -> Client:
    """A socket that the kernel handed to ``worker`` (each new connection goes to whichever
    worker accepts first: try a few)."""
    for _ in range(200):
        client = Client(server.ws_url)
        if worker_of(client) == worker:
            return client
        client.close()
    raise AssertionError(f"no socket landed on {worker}")


def answering_workers(server: ServerProcess) -> dict[int, int]:
    """worker index -> pid, from /healthz (each request lands on either worker)."""
    seen: dict[int, int] = {}
    deadline = time.monotonic() + 30
    while len(seen) < 2 and time.monotonic() < deadline:
        body = httpx.get(server.url + "/healthz", timeout=5).json()
        seen[body["worker"]] = body["pid"]
    assert len(seen) == 2, seen
    return seen


def statistics(before, after) -> dict:
    return {
        k: v
        for prefix in STATISTICS
        for k, v in moved(before, after, prefix).items()
        if not k[0].endswith("_created")
    }


@pytest.fixture
def two_workers(tmp_path, key_prefix):
    named = tmp_path / "metrics"  # the operator names the directory; a last run left a file
    named.mkdir()
    (named / "counter_1.db").write_bytes(b"not a metrics file")
    server = ServerProcess(
        redis_url=None,
        data_dir=tmp_path,
        env={
            "NYUMBA_KEY_PREFIX": key_prefix + "scrape:",
            "NYUMBA_WORKERS": "2",
            "PROMETHEUS_MULTIPROC_DIR": str(named),
        },
    ).start()
    yield server
    server.stop()


def test_one_scrape_counts_each_finished_game_once_over_two_workers(two_workers):
    server = two_workers
    answering_workers(server)
    before = scrape(server.url)
    computer = computer_game(server.url, server.ws_url)
    local = local_game(server.url, server.ws_url)
    south, north = socket_on(server, "w0"), socket_on(server, "w1")  # one game, two workers
    try:
        friend = friend_game(server.url, south, north)
        open_sockets = [scrape(server.url)[key("nyumba_sockets")] for _ in range(6)]
    finally:
        south.close()
        north.close()
    scrapes = [scrape(server.url) for _ in range(6)]  # whichever worker answers each

    expected = {}
    for mode, level, state in (
        ("computer", "beginner", computer),
        ("local", "none", local),
        ("friend", "none", friend),
    ):
        winner = winner_of(state)
        game = {"game": "kalah", "mode": mode}
        expected[key("nyumba_games_started_total", **game, level=level)] = 1
        expected[key("nyumba_games_finished_total", **game, level=level, winner=winner)] = 1
        expected[key("nyumba_game_endings_total", **game, ending="rules")] = 1
        expected[key("nyumba_game_moves_count", **game)] = 1
    for after in scrapes:
        assert statistics(before, after) == expected
    assert open_sockets == [2.0] * 6  # the two workers' sockets, summed by every scrape


def test_a_dead_workers_sockets_stop_counting_and_its_games_stay(two_workers):
    server = two_workers
    pids = answering_workers(server)
    local_game(server.url, server.ws_url)  # counted by whichever worker played it
    held = socket_on(server, "w1")
    before = scrape(server.url)
    assert before[key("nyumba_sockets")] == 1
    os.kill(pids[1], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while True:  # the supervisor starts it again
        try:
            workers = answering_workers(server)
            if workers[1] != pids[1]:
                break
        except (httpx.HTTPError, AssertionError):
            pass
        assert time.monotonic() < deadline, "worker 1 was not started again"
    after = scrape(server.url)
    assert after[key("nyumba_sockets")] == 0
    assert statistics(before, after) == {}  # every game still counted, none twice
    held.ws.close()
