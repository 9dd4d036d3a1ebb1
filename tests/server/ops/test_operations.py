"""What an operator sees: a paused store (SIGSTOP) answered with 503 store-down within 5 s and
logged once, recovery by itself on SIGCONT; readiness off on SIGTERM before sockets close and
exit 0; metrics that move after a played game; JSON logs with the start line.

The paused store is one these tests start themselves (a Valkey of their own), never the
machine's shared Redis."""

from __future__ import annotations

import json
import os
import signal
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from serverproc import ServerProcess
from wsclient import Client, create_room, seated_pair

from server.store.embedded import EmbeddedValkey


@pytest.fixture
def own_store(tmp_path):
    store = EmbeddedValkey(tmp_path / "store").start()
    yield store
    if store.pid:
        os.kill(store.pid, signal.SIGCONT)  # a failed test must not leave it stopped
    store.stop()


def _timed(call):
    started = time.monotonic()
    try:
        return call(), time.monotonic() - started
    except httpx.HTTPError as exc:
        return exc, time.monotonic() - started


def _until(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = pred()
            if value:
                return value
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def play_kalah(srv: ServerProcess) -> int:
    """A whole Kalah game over two sockets; the number of plies."""
    r, south, north = seated_pair(srv, "kalah", options={"seeds": 3})
    players = {0: south, 1: north}
    plies = 0
    while True:
        st = south.wait_state(lambda s: True)
        south.drain(0.02)
        st = south.state
        if st["outcome"] is not None:
            break
        mover = players[st["to_move"]]
        mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
        mover.move(st["legal"][0]["move"], version=st["version"])
        mover.expect("ack")
        south.wait_state(lambda s, v=st["version"]: s["version"] > v)
        plies += 1
    south.close()
    north.close()
    return plies


def test_a_paused_store_is_503_within_5_s_and_the_node_recovers_by_itself(
    own_store, tmp_path, key_prefix
):
    srv = ServerProcess(
        redis_url=own_store.url, data_dir=tmp_path / "node", env={"NYUMBA_KEY_PREFIX": key_prefix}
    ).start()
    try:
        r, south, north = seated_pair(srv, "kalah", options={"seeds": 3})
        south.move(south.state["legal"][0]["move"])
        v = south.expect("ack")["version"]
        for p in (south, north):
            p.wait_state(lambda s: s["version"] >= v)

        os.kill(own_store.pid, signal.SIGSTOP)
        for _ in range(3):  # repeated requests: one outage, one log line
            health, took = _timed(lambda: httpx.get(srv.url + "/healthz", timeout=10))
            assert health.status_code == 503 and took < 5, (health, took)
            assert health.json()["code"] == "store-down"
            create, took = _timed(
                lambda: httpx.post(srv.url + "/api/rooms", json={"game": "kalah"}, timeout=10)
            )
            assert create.status_code == 503 and took < 5, (create, took)
            assert create.json()["code"] == "store-down"
            ready, took = _timed(lambda: httpx.get(srv.url + "/readyz", timeout=10))
            assert ready.status_code == 503 and took < 5
            live, took = _timed(lambda: httpx.get(srv.url + "/livez", timeout=10))
            assert live.status_code == 200 and took < 1
        # a move while the store is stopped: refused with a reason, nothing acknowledged
        mover = north if north.state["to_move"] == 1 else south
        move, version = mover.state["legal"][0]["move"], mover.state["version"]
        intent = mover.move(move, version=version)
        error = mover.expect("error", timeout=10, id=intent)
        assert "store" in error["message"]

        os.kill(own_store.pid, signal.SIGCONT)
        _until(lambda: httpx.get(srv.url + "/readyz").status_code == 200, 15, "/readyz 200")
        assert httpx.get(srv.url + "/healthz").status_code == 200
        # play resumes: the same intent, resent, is applied once (its first sending may
        # have reached the store before it stopped answering: then this is its ack)
        mover.move(move, version=version, id=intent)
        ack = mover.expect("ack", timeout=10, id=intent)
        assert ack["version"] == version + 1
        mover.wait_state(lambda s: s["version"] == version + 1)
        assert create_room(srv.url, "kalah")["room"]
        log = srv.log_path.read_text()
        assert log.count("store down") == 1, log
        assert log.count("store back after") == 1, log
    finally:
        srv.stop()


def test_sigterm_turns_readiness_off_before_sockets_close_and_exits_0(tmp_path, key_prefix):
    srv = ServerProcess(
        redis_url=None,
        data_dir=tmp_path,
        env={"NYUMBA_KEY_PREFIX": key_prefix, "NYUMBA_DRAIN_MS": "2000"},
    ).start()
    try:
        r = create_room(srv.url, "kalah")
        player = Client(srv.ws_url)
        player.join(r["room"], r["token"])
        assert httpx.get(srv.url + "/readyz").status_code == 200
        srv.proc.send_signal(signal.SIGTERM)
        ready = _until(
            lambda: (resp := httpx.get(srv.url + "/readyz")).status_code == 503 and resp,
            2,
            "/readyz 503 after SIGTERM",
        )
        assert ready.json()["code"] == "draining"
        assert httpx.get(srv.url + "/livez").status_code == 200
        player.send(t="ping", n=1)  # the socket is still open and answered
        assert player.expect("pong", timeout=2)["n"] == 1
        with pytest.raises(Exception) as closed:  # then it is closed for a restart
            player.expect("never", timeout=15)
        assert "1012" in str(closed.value)
        assert srv.proc.wait(20) == 0
    finally:
        srv.stop()


def test_metrics_move_after_a_played_game(tmp_path, key_prefix):
    srv = ServerProcess(
        redis_url=None, data_dir=tmp_path, env={"NYUMBA_KEY_PREFIX": key_prefix}
    ).start()
    try:

        def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
            text = httpx.get(srv.url + "/metrics").text
            return {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text)
                for s in family.samples
            }

        before = scrape()
        plies = play_kalah(srv)
        after = scrape()

        def moved(name: str, **labels: str) -> float:
            key = (name, tuple(sorted(labels.items())))
            return after.get(key, 0) - before.get(key, 0)

        assert moved("nyumba_intents_total", kind="move", result="ok") == plies
        assert moved("nyumba_joins_total", result="ok") == 2
        assert moved("nyumba_intent_seconds_count", kind="move") == plies
        assert moved("nyumba_cas_total", result="written") >= plies
        assert moved("nyumba_store_command_seconds_count") > plies
        assert after[("nyumba_store_up", ())] == 1
        assert (
            "nyumba_build_info",
            (("version", httpx.get(srv.url + "/healthz").json()["version"]),),
        ) in after
        assert any(name == "nyumba_gc_pause_seconds_count" for name, _ in after)
        assert after[("nyumba_pubsub_lag_seconds_count", ())] >= 1  # the probe sent at start
        assert ("process_resident_memory_bytes", ()) in after
    finally:
        srv.stop()


def test_json_logs_with_the_start_line_and_access_log(tmp_path, key_prefix):
    srv = ServerProcess(
        redis_url=None,
        data_dir=tmp_path,
        env={
            "NYUMBA_KEY_PREFIX": key_prefix,
            "NYUMBA_LOG_FORMAT": "json",
            "NYUMBA_ACCESS_LOG": "true",
        },
    ).start()
    try:
        httpx.get(srv.url + "/api/games")
        time.sleep(0.3)
    finally:
        srv.stop()
    lines = [json.loads(line) for line in srv.log_path.read_text().splitlines() if line.strip()]
    assert all({"ts", "level", "logger", "msg"} <= set(line) for line in lines)
    start = [line for line in lines if f"open http://localhost:{srv.port}/" in line["msg"]]
    assert len(start) == 1 and "nyumba 0." in start[0]["msg"]
    assert any("/api/games" in line["msg"] for line in lines if line["logger"] == "uvicorn.access")
