"""``POST /api/reports`` (server/web/reports.py): a report is one more count in the day's
hash in the store and in ``/metrics``, and nothing else is written — no address, no user
agent, no id (asserted on everything the store holds). Oversize, malformed, cross-site and
over-rate reports are refused with a code and a sentence, and change nothing."""

from __future__ import annotations

import datetime
import os
import signal

import httpx
import pytest
import redis
from serverproc import ServerProcess
from statskit import key, moved, scrape

from server.ops.config import Settings
from server.store.embedded import EmbeddedValkey
from server.web.reports import MAX_REPORT

PER_ADDRESS = Settings().reports_per_minute

AGENT = "ReportTester/1.0 (unique-agent-7f3a)"
DEVICE = {
    "kind": "device",
    "phone": True,
    "memory": "4",
    "cores": "5-8",
    "browser": "firefox",
    "os": "android",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    valkey = EmbeddedValkey(tmp_path_factory.mktemp("reports-store")).start()
    yield valkey
    if valkey.pid:
        os.kill(valkey.pid, signal.SIGCONT)
    valkey.stop()


@pytest.fixture(scope="module")
def server(store, tmp_path_factory):
    srv = ServerProcess(
        redis_url=store.url,
        data_dir=tmp_path_factory.mktemp("reports-node"),
        env={"NYUMBA_KEY_PREFIX": "rep:", "NYUMBA_REPORTS_PER_MINUTE": str(PER_ADDRESS)},
    ).start()
    yield srv
    srv.stop()


def everything(store) -> dict[bytes, object]:
    """Every key the store holds and its value, whatever its type, but the nodes' own renewals
    of their place in the layout (a timer writes those whatever a request does)."""
    r = redis.Redis.from_url(store.url)
    out: dict[bytes, object] = {}
    for k in r.scan_iter("*"):
        if b"layout:{layout}" in k:
            continue
        kind = r.type(k)
        out[k] = {
            b"string": r.get,
            b"hash": r.hgetall,
            b"set": r.smembers,
            b"zset": lambda k: r.zrange(k, 0, -1, withscores=True),
            b"list": lambda k: r.lrange(k, 0, -1),
        }.get(kind, lambda k: kind)(k)
    r.close()
    return out


def post(server, body, address="203.0.113.7", **headers) -> httpx.Response:
    headers = {"x-forwarded-for": address, "user-agent": AGENT, **headers}
    if isinstance(body, (dict, list)):
        return httpx.post(server.url + "/api/reports", json=body, headers=headers)
    return httpx.post(
        server.url + "/api/reports",
        content=body,
        headers={"content-type": "application/json", **headers},
    )


def today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def test_reports_are_counts_of_the_day_and_nothing_names_the_sender(server, store):
    before, metrics_before = everything(store), scrape(server.url)
    for body in (
        DEVICE,
        {"kind": "friend-link", "reason": "unreachable"},
        {"kind": "friend-link", "reason": "unreachable"},
        {"kind": "socket-failing"},
    ):
        answer = post(server, body, address="203.0.113.99")
        assert answer.status_code == 204, answer.text
    after = everything(store)

    day = f"rep:reports:{today()}".encode()
    assert {k for k in after if after[k] != before.get(k)} == {day}  # nothing else written
    assert after[day] == {
        b"device phone=yes memory=4 cores=5-8 browser=firefox os=android": b"1",
        b"friend-link reason=unreachable": b"2",
        b"socket-failing": b"1",
    }
    dump = repr(after).encode()
    for trace in (b"203.0.113.99", b"ReportTester", b"unique-agent-7f3a"):
        assert trace not in dump
    r = redis.Redis.from_url(store.url)
    left = r.ttl(day)
    r.close()
    assert 30 * 86400 < left <= 31 * 86400  # 30 days after the day ends

    counted = {
        k: v
        for k, v in moved(metrics_before, scrape(server.url), "nyumba_page").items()
        if not k[0].endswith("_created")
    }
    assert counted == {
        key("nyumba_page_reports_total", kind="device", reason="none"): 1,
        key("nyumba_page_reports_total", kind="friend-link", reason="unreachable"): 2,
        key("nyumba_page_reports_total", kind="socket-failing", reason="none"): 1,
        key("nyumba_page_devices_total", trait="phone", value="yes"): 1,
        key("nyumba_page_devices_total", trait="memory", value="4"): 1,
        key("nyumba_page_devices_total", trait="cores", value="5-8"): 1,
        key("nyumba_page_devices_total", trait="browser", value="firefox"): 1,
        key("nyumba_page_devices_total", trait="os", value="android"): 1,
    }


@pytest.mark.parametrize(
    "body, status, code",
    [
        (b"{not json", 400, "bad-json"),
        ({"kind": "gpu", "name": "GeForce"}, 400, "bad-message"),  # not a kind of report
        ({**DEVICE, "agent": AGENT}, 400, "bad-message"),  # nothing free-form rides along
        ({**DEVICE, "browser": "netscape"}, 400, "bad-message"),  # families are a closed list
        ({"kind": "friend-link", "reason": "unreachable", "room": "abc"}, 400, "bad-message"),
        ([DEVICE, DEVICE], 400, "bad-message"),  # one report a request
        ({"kind": "socket-failing", "pad": "x" * MAX_REPORT}, 413, "too-large"),
    ],
)
def test_a_malformed_or_oversize_report_is_refused_and_changes_nothing(
    server, store, body, status, code
):
    before = everything(store)
    answer = post(server, body, address="203.0.113.20")
    assert answer.status_code == status
    assert answer.json()["code"] == code and answer.json()["message"]
    assert everything(store) == before


def test_a_chunked_body_past_the_cap_is_cut_off(server, store):
    before = everything(store)

    def chunks():
        yield b'{"kind": "socket-failing", "pad": "'
        for _ in range(8):
            yield b"x" * 100
        yield b'"}'

    answer = httpx.post(
        server.url + "/api/reports",
        content=chunks(),
        headers={"content-type": "application/json", "x-forwarded-for": "203.0.113.21"},
    )
    assert answer.status_code == 413 and answer.json()["code"] == "too-large"
    assert everything(store) == before


def test_a_report_from_another_sites_page_is_refused(server, store):
    before = everything(store)
    foreign = post(server, DEVICE, address="203.0.113.22", origin="https://evil.example")
    assert foreign.status_code == 403 and foreign.json()["code"] == "cross-site"
    form = post(server, b"kind=device", address="203.0.113.22", **{"content-type": "text/plain"})
    assert form.status_code == 403
    assert everything(store) == before


def test_over_the_rate_one_address_is_refused_and_another_is_not(server, store):
    metrics_before = scrape(server.url)
    answers = [
        post(server, {"kind": "socket-failing"}, address="203.0.113.30").status_code
        for _ in range(PER_ADDRESS + 3)
    ]
    assert answers == [204] * PER_ADDRESS + [429] * 3
    before = everything(store)
    refused = post(server, {"kind": "socket-failing"}, address="203.0.113.30")
    assert refused.status_code == 429 and refused.json()["code"] == "rate-limited"
    assert everything(store) == before
    assert post(server, {"kind": "socket-failing"}, address="203.0.113.31").status_code == 204
    refusals = moved(metrics_before, scrape(server.url), "nyumba_page_reports_refused_total")
    assert refusals == {key("nyumba_page_reports_refused_total", why="over-rate"): 4}
