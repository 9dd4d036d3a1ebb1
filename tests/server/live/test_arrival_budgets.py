"""Sockets and joins arrive within budgets per minute (server/live/arrivals.py): WebSocket opens and
joins per client address, visitors per room, all nodes together. Over a budget: a refusal with
``rate-limited`` that changes nothing."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from serverproc import ServerProcess
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect
from wsclient import Client, create_room

from server.store.embedded import EmbeddedValkey


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    valkey = EmbeddedValkey(tmp_path_factory.mktemp("arrivals") / "valkey").start()
    yield valkey
    valkey.stop()


@pytest.fixture
def nodes(store, tmp_path, key_prefix, request):
    """Two nodes on one store with the budgets the test names (the others lifted)."""
    name = request.node.originalname.removeprefix("test_")[:12]
    env = {"NYUMBA_KEY_PREFIX": f"{key_prefix}{name}:", **request.param}
    started = [
        ServerProcess(redis_url=store.url, data_dir=tmp_path / f"n{i}", env=env) for i in (0, 1)
    ]
    try:
        for node in started:
            node.start()
        _clear_of_a_minute_boundary()
        yield started
    finally:
        for node in started:
            node.stop()


def _clear_of_a_minute_boundary() -> None:
    """Budgets are counted per minute of the store's clock (this machine's): a test that
    straddled a minute would see its counts start again."""
    left = 60 - time.time() % 60
    if left < 20:
        time.sleep(left + 0.5)


def _as(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}  # believed from 127.0.0.1, the default trusted proxy


def _open(node, address: str):
    return connect(node.ws_url, additional_headers=_as(address), open_timeout=10, legacy=True)


def _closed_with(client: Client) -> int | None:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            client.ws.recv(timeout=10)
    return closed.value.rcvd.code if closed.value.rcvd else None


@pytest.mark.parametrize("nodes", [{"NYUMBA_JOINS_PER_MINUTE": "5"}], indirect=True)
def test_joins_over_an_address_budget_are_refused_on_every_node(nodes):
    a, b = nodes
    r = create_room(a.url, "kalah", mode="friend")
    here = Client(a.ws_url, headers=_as("198.51.100.40"))
    for _ in range(3):  # joins on one socket count (a page joins again when a state is late)
        here.join(r["room"])
    there = [Client(b.ws_url, headers=_as("198.51.100.40")) for _ in range(3)]
    for c in there[:2]:
        c.join(r["room"])  # five in all, on two nodes
    watcher = Client(a.ws_url, headers=_as("203.0.113.40"))  # another address: not affected
    watcher.join(r["room"])
    before = watcher.state

    there[2].send(t="join", room=r["room"])
    refused = there[2].expect("error")
    assert refused["code"] == "rate-limited" and "5 joins a minute" in refused["message"]
    assert _closed_with(there[2]) == 1008
    # Nothing changed: no seat taken, nobody more watching, the version as it was.
    watcher.drain(0.5)
    assert watcher.state["version"] == before["version"]
    assert watcher.state.get("watchers", 0) == before.get("watchers", 0)
    assert [s["holder"] for s in watcher.state["seats"]] == [s["holder"] for s in before["seats"]]
    here.send(t="join", room=r["room"])  # the first node counts the same budget
    assert here.expect("error")["code"] == "rate-limited"


@pytest.mark.parametrize("nodes", [{"NYUMBA_ROOM_VISITORS_PER_MINUTE": "3"}], indirect=True)
def test_visitors_over_a_room_budget_are_refused_but_its_players_get_in(nodes):
    a, b = nodes
    r = create_room(a.url, "kalah", mode="friend", side="south")
    other = create_room(a.url, "kalah", mode="friend", side="south")
    friend = Client(b.ws_url, headers=_as("192.0.2.1"))
    assert friend.join(r["room"])["sides"] == [1]  # the free seat: not a visitor
    for i, node in enumerate((a, b, a)):  # three visitors from three addresses, two nodes
        assert Client(node.ws_url, headers=_as(f"192.0.2.{10 + i}")).join(r["room"])["sides"] == []
    late = Client(b.ws_url, headers=_as("192.0.2.20"))
    late.send(t="join", room=r["room"])
    refused = late.expect("error")
    assert refused["code"] == "rate-limited" and "3 visitors this minute" in refused["message"]
    assert _closed_with(late) == 1013  # try again later: the page reconnects with backoff

    south = Client(a.ws_url, headers=_as("192.0.2.30"))  # the seat holders always get in
    assert south.join(r["room"], r["token"])["sides"] == [0]
    assert friend.join(r["room"], friend.token)["sides"] == [1]
    assert south.state.get("watchers", 0) == 3
    elsewhere = Client(b.ws_url, headers=_as("192.0.2.20"))  # another room is not affected
    assert elsewhere.join(other["room"])["sides"] == [1]


@pytest.mark.parametrize("nodes", [{"NYUMBA_OPENS_PER_MINUTE": "4"}], indirect=True)
def test_websockets_opened_over_an_address_budget_get_429(nodes):
    a, b = nodes
    held = [_open(n, "198.51.100.50") for n in (a, a, b)]
    held[0].close()  # a closed socket was still opened: it counts
    held.append(_open(b, "198.51.100.50"))
    for node in (a, b):
        with pytest.raises(InvalidStatus) as refused:
            _open(node, "198.51.100.50").close()
        answer = refused.value.response
        assert answer.status_code == 429
        assert json.loads(answer.body)["code"] == "rate-limited"
        assert 1 <= int(answer.headers["retry-after"]) <= 60
    with _open(a, "203.0.113.50") as other:
        other.send(json.dumps({"t": "ping", "n": 1}))
        assert json.loads(other.recv(timeout=5))["t"] == "pong"
    for ws in held[1:]:
        ws.close()
    refused_total = [
        line
        for line in httpx.get(a.url + "/metrics").text.splitlines()
        if line.startswith('nyumba_arrivals_refused_total{kind="opens"}')
    ]
    assert refused_total and float(refused_total[0].split()[-1]) >= 1
