"""Post-game analysis over HTTP (server/computer/analysis.py) on a real server process."""

from __future__ import annotations

import time

import httpx
import msgspec
import pytest
from analysiskit import record, wait_done

from engine import analysis


def cancel(base: str, key: str, token: str) -> dict:
    """DELETE an analysis (as the one who asked for it) and wait until it has stopped."""
    auth = {"Authorization": f"Bearer {token}"}
    gone = httpx.delete(f"{base}/api/analysis/{key}", headers=auth, timeout=10)
    assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        look = httpx.get(f"{base}/api/analysis/{key}", timeout=10).json()
        if look["status"] == "cancelled":
            return look
        time.sleep(0.2)
    raise AssertionError(f"still {look}")


def test_analysis_runs_reports_progress_and_is_kept(server):
    data = record("kalah", 16, 1, seeds=3)
    r = httpx.post(server.url + "/api/analysis", content=data, timeout=30)
    assert r.status_code == 202, r.text
    first = r.json()
    assert first["status"] == "running" and first["total"] == 17
    key = first["key"]
    assert key == analysis.key(data)
    body = wait_done(server.url, key)
    result = msgspec.convert(body["analysis"], analysis.Analysis)
    assert len(result.plies) == 16
    # the same record analysed here, in this process: the same analysis, to the byte
    assert analysis.encode(result) == analysis.encode(analysis.analyse(data))
    # a second viewer gets it at once, from the store
    again = httpx.post(server.url + "/api/analysis", content=data, timeout=30)
    assert again.status_code == 200 and again.json()["status"] == "done"
    assert again.json()["analysis"] == body["analysis"]


def test_bad_record_and_unknown_key(server):
    r = httpx.post(server.url + "/api/analysis", content=b'{"format": "nyumba-record"}')
    assert r.status_code == 400 and r.json()["code"] == "bad-record"
    r = httpx.get(server.url + "/api/analysis/" + "0" * 32)
    assert r.status_code == 404 and r.json()["code"] == "no-analysis"
    r = httpx.get(server.url + "/api/analysis/not-a-key")
    assert r.status_code == 404


def test_busy_and_cancelled_answer_clearly_and_the_server_keeps_serving(server):
    long_game = record("oware", 120, 5)
    other = record("kalah", 30, 9)
    r = httpx.post(server.url + "/api/analysis", content=long_game, timeout=30)
    assert r.status_code == 202, r.text
    key, token = r.json()["key"], r.json()["cancel_token"]
    # one analysis at a time for an address: the second is refused, clearly
    busy = httpx.post(server.url + "/api/analysis", content=other, timeout=30)
    assert busy.status_code == 503 and busy.json()["code"] == "busy"
    assert int(busy.headers["retry-after"]) > 0
    # the server answers everything else meanwhile: pages, games, new rooms, moves
    t0 = time.monotonic()
    for _ in range(5):
        assert httpx.get(server.url + "/healthz", timeout=5).status_code == 200
        assert httpx.get(server.url + "/api/games", timeout=5).status_code == 200
    made = httpx.post(server.url + "/api/rooms", json={"game": "kalah", "mode": "local"})
    assert made.status_code == 201
    assert time.monotonic() - t0 < 20  # generous: a shared machine; this is not a timing test
    # cancel it: the answer says so, and so does every later look
    look = cancel(server.url, key, token)
    assert "ask again" in look["message"]
    assert look["done"] < look["total"]
    # and the address may ask again
    r = httpx.post(server.url + "/api/analysis", content=other, timeout=30)
    assert r.status_code in (200, 202), r.text
    if r.status_code == 202:
        cancel(server.url, r.json()["key"], r.json()["cancel_token"])


@pytest.mark.parametrize("profile", ["bao-kiswahili"])
def test_bao_record(server, profile):
    data = record(profile, 6, 3)
    r = httpx.post(server.url + "/api/analysis", content=data, timeout=30)
    assert r.status_code in (200, 202), r.text
    body = wait_done(server.url, r.json()["key"]) if r.status_code == 202 else r.json()
    assert len(body["analysis"]["plies"]) == 6
