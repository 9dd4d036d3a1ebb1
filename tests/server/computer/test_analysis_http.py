"""Post-game analysis over HTTP (server/computer/analysis.py) on a real server process."""

from __future__ import annotations

import json
import time

import httpx
import msgspec
import pytest
from analysiskit import record, wait_done

from engine import analysis

JSON = {"content-type": "application/json"}


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
    r = httpx.post(server.url + "/api/analysis", headers=JSON, content=data, timeout=30)
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
    again = httpx.post(server.url + "/api/analysis", headers=JSON, content=data, timeout=30)
    assert again.status_code == 200 and again.json()["status"] == "done"
    assert again.json()["analysis"] == body["analysis"]


def test_bad_record_and_unknown_key(server):
    r = httpx.post(
        server.url + "/api/analysis", headers=JSON, content=b'{"format": "nyumba-record"}'
    )
    assert r.status_code == 400 and r.json()["code"] == "bad-record"
    r = httpx.get(server.url + "/api/analysis/" + "0" * 32)
    assert r.status_code == 404 and r.json()["code"] == "no-analysis"
    r = httpx.get(server.url + "/api/analysis/not-a-key")
    assert r.status_code == 404


def test_busy_and_cancelled_answer_clearly_and_the_server_keeps_serving(server):
    long_game = record("oware", 120, 5)
    other = record("kalah", 30, 9)
    r = httpx.post(server.url + "/api/analysis", headers=JSON, content=long_game, timeout=30)
    assert r.status_code == 202, r.text
    key, token = r.json()["key"], r.json()["cancel_token"]
    # one analysis at a time for an address: the second is refused, clearly
    busy = httpx.post(server.url + "/api/analysis", headers=JSON, content=other, timeout=30)
    assert busy.status_code == 429 and busy.json()["code"] == "busy"
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
    r = httpx.post(server.url + "/api/analysis", headers=JSON, content=other, timeout=30)
    assert r.status_code in (200, 202), r.text
    if r.status_code == 202:
        cancel(server.url, r.json()["key"], r.json()["cancel_token"])


@pytest.mark.parametrize("profile", ["bao-kiswahili"])
def test_bao_record(server, profile):
    data = record(profile, 6, 3)
    r = httpx.post(server.url + "/api/analysis", headers=JSON, content=data, timeout=30)
    assert r.status_code in (200, 202), r.text
    body = wait_done(server.url, r.json()["key"]) if r.status_code == 202 else r.json()
    assert len(body["analysis"]["plies"]) == 6


def test_every_answer_counts_its_jobs_and_a_cancel_is_what_every_later_look_says(server):
    other_address = {**JSON, "X-Forwarded-For": "10.42.0.1"}  # its own share of the node
    long_game = record("oware", 120, 11)
    r = httpx.post(server.url + "/api/analysis", headers=other_address, content=long_game)
    assert r.status_code == 202, r.text
    running = r.json()
    plies = len(json.loads(long_game)["moves"])
    assert {"done", "total"} <= set(running) and running["total"] == plies + 1
    key, auth = running["key"], {"Authorization": f"Bearer {running['cancel_token']}"}
    gone = httpx.delete(f"{server.url}/api/analysis/{key}", headers=auth)
    assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
    assert {"done", "total"} <= set(gone.json())
    # At once, on the GET and on the DELETE again: it is cancelled, never running again.
    for _ in range(5):
        look = httpx.get(f"{server.url}/api/analysis/{key}")
        assert look.status_code == 200 and look.json()["status"] == "cancelled", look.text
    again = httpx.delete(f"{server.url}/api/analysis/{key}", headers=auth)
    assert again.status_code == 200 and again.json()["status"] == "cancelled"
    # The address may ask again at once.
    short = record("kalah", 8, 4, seeds=3)
    r = httpx.post(server.url + "/api/analysis", headers=other_address, content=short)
    assert r.status_code in (200, 202), r.text
    token = r.json().get("cancel_token")
    done = wait_done(server.url, r.json()["key"])
    assert (
        done["done"]
        == done["total"]
        == 9 + len([p for p in done["analysis"]["plies"] if p["label"]])
    )
    # A finished analysis stays done to a DELETE, with its old token or none.
    for headers in ({"Authorization": f"Bearer {token}"} if token else {}, {}):
        kept = httpx.delete(f"{server.url}/api/analysis/{r.json()['key']}", headers=headers)
        assert kept.status_code == 200 and kept.json()["status"] == "done"
    # Unknown keys, well-formed or not, are no-analysis to GET and DELETE alike.
    for path in ("0" * 32, "not-a-key"):
        for method in ("GET", "DELETE"):
            r = httpx.request(method, f"{server.url}/api/analysis/{path}")
            assert r.status_code == 404 and r.json()["code"] == "no-analysis", (method, path)
