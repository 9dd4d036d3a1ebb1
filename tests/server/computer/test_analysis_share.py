"""Who may hold the analysis lane, and who may cancel an analysis (server/computer/analysis.py), on a
real server process. Client addresses come from X-Forwarded-For: the test talks from
127.0.0.1, a trusted proxy by default (NYUMBA_FORWARDED_ALLOW_IPS)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx

import engine
from engine import records
from server.web.analysis import MAX_RECORD

NONCE = time.time_ns()  # new games in every run: none is found kept from before


def long_games(who: int) -> Iterator[bytes]:
    """Finished random Oware games of 100 plies or more (each analysis takes seconds of the
    lane's time alone), new ones for each ``who``, each within the 64 KiB a record may have
    (about one random game in 800 is longer: its POST was a 413, and the test failed)."""
    game = engine.load("oware")
    for n in range(10**6):
        rng = random.Random(f"{NONCE}:{who}:{n}")
        state, moves = game.start(), []
        while game.outcome(state) is None:
            move = rng.choice(list(game.legal_moves(state)))
            moves.append(move)
            state = game.play(state, move)
        data = records.dumps(game, moves).encode()
        if len(moves) >= 100 and len(data) <= MAX_RECORD:
            yield data


def post(base: str, data: bytes, address: str) -> httpx.Response:
    return httpx.post(
        base + "/api/analysis",
        content=data,
        headers={"X-Forwarded-For": address, "content-type": "application/json"},
        timeout=30,
    )


def look(base: str, key: str) -> dict:
    return httpx.get(f"{base}/api/analysis/{key}", timeout=10).json()


def delete(base: str, key: str, address: str, token: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": address}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.delete(f"{base}/api/analysis/{key}", headers=headers, timeout=10)


def wait_for(what, timeout: float, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s")


def started(base: str, key: str) -> dict | None:
    """The status once the analysis has done a job (or is done), else None."""
    status = look(base, key)
    assert status["status"] in ("running", "done"), status
    return status if status["status"] == "done" or status.get("done", 0) >= 1 else None


class Hostile(threading.Thread):
    """One address that holds an analysis of a long game for as long as it can: it asks
    about it again and again, asks for a second one too, and starts a new one whenever its
    last is done."""

    def __init__(self, base: str, who: int):
        super().__init__(daemon=True)
        self.base, self.address = base, f"10.36.1.{who}"
        self.games = long_games(who)
        self.current, self.spare = next(self.games), next(self.games)
        self.key: str | None = None
        self.token: str | None = None
        self.answers: list[int] = []  # the second analysis's answers
        self.stop = threading.Event()
        self.failed: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                r = post(self.base, self.current, self.address)
                assert r.status_code in (200, 202), r.text
                body = r.json()
                if body["status"] == "done":
                    self.current, self.spare = self.spare, next(self.games)
                    continue
                self.key, self.token = body["key"], body.get("cancel_token", self.token)
                second = post(self.base, self.spare, self.address)
                self.answers.append(second.status_code)
                if second.status_code == 202:  # the first had just ended: this one is it now
                    self.current, self.spare = self.spare, next(self.games)
                    self.key, self.token = second.json()["key"], second.json()["cancel_token"]
                time.sleep(0.3)
        except BaseException as exc:  # seen by the test
            self.failed = exc


def test_four_addresses_holding_long_analyses_do_not_shut_another_out(server):
    base = server.url
    hostiles = [Hostile(base, who) for who in range(1, 5)]
    for h in hostiles:
        h.start()
    try:
        # every hostile analysis is running and under way: the lane is theirs
        for h in hostiles:
            wait_for(lambda h=h: h.key, 30)
            wait_for(lambda h=h: started(base, h.key), 60)
        r = post(base, next(long_games(99)), "10.36.1.99")
        assert r.status_code in (200, 202), r.text
        mine = r.json()
        if mine["status"] == "running":
            wait_for(lambda: started(base, mine["key"]), 60)
            # it started beside them, not after one of them: measured in the lane's own terms
            # (which analyses run), not in seconds, which a busy machine stretches
            still = [look(base, h.key)["status"] for h in hostiles]
            assert still == ["running"] * 4, f"another player's analysis waited for one: {still}"
        assert all(h.failed is None for h in hostiles), [h.failed for h in hostiles]
        # each hostile address holds one analysis at a time: its second one is refused
        for h in hostiles:
            assert 429 in h.answers, h.answers
        if mine["status"] == "running":
            assert delete(base, mine["key"], "10.36.1.99", mine["cancel_token"]).status_code == 200
    finally:
        for h in hostiles:
            h.stop.set()
        for h in hostiles:
            h.join(30)
            if h.key and h.token:
                delete(base, h.key, h.address, h.token)
        for h in hostiles:  # stopped before the next test counts the node's analyses
            if h.key:
                wait_for(lambda h=h: look(base, h.key)["status"] != "running", 30)


def test_many_addresses_are_held_to_the_nodes_bound(server):
    """An attacker with more addresses than the node runs analyses: the node takes 32 and
    refuses the rest clearly (``busy``), and stays as it was (``server/computer/analysis.py`` says why
    the bound keeps the server safe)."""
    base = server.url
    games = [next(long_games(400 + who)) for who in range(34)]
    with ThreadPoolExecutor(len(games)) as pool:
        answers = list(
            pool.map(lambda who: post(base, games[who], f"10.36.4.{who}"), range(len(games)))
        )
    try:
        codes = [r.status_code for r in answers]
        assert codes.count(202) == 32 and codes.count(503) == 2, [
            (r.status_code, r.text) for r in answers if r.status_code != 202
        ]
        assert all("busy analysing" in r.json()["message"] for r in answers if r.status_code == 503)
        assert int(next(r for r in answers if r.status_code == 503).headers["retry-after"]) > 0
        assert httpx.get(base + "/healthz", timeout=5).status_code == 200
    finally:
        for who, r in enumerate(answers):
            if r.status_code == 202:
                body = r.json()
                delete(base, body["key"], f"10.36.4.{who}", body["cancel_token"])
        for r in answers:
            if r.status_code == 202:
                wait_for(lambda r=r: look(base, r.json()["key"])["status"] != "running", 30)


def test_only_who_asked_can_cancel_an_analysis(server):
    base = server.url
    owner, stranger = "10.36.2.1", "10.36.2.2"
    data = next(long_games(200))
    r = post(base, data, owner)
    assert r.status_code == 202, r.text
    key, token = r.json()["key"], r.json().get("cancel_token")
    before = wait_for(lambda: started(base, key), 60)["done"]

    # a spectator knows the key (the record's hash): without the token, nothing happens
    refused = delete(base, key, stranger)
    assert refused.status_code == 403 and refused.json()["code"] == "not-owner", refused.text
    guessed = delete(base, key, stranger, "x" * 22)
    assert guessed.status_code == 403 and guessed.json()["code"] == "not-owner"
    later = wait_for(lambda: (s := look(base, key))["done"] > before and s, 30)
    assert later["status"] == "running"

    # the spectator asks for the same analysis: it shares the one running, with a token of
    # its own, which withdraws only its own wish
    joined = post(base, data, stranger)
    assert joined.status_code == 202 and joined.json()["key"] == key
    assert joined.json()["done"] >= later["done"]
    theirs = joined.json()["cancel_token"]
    assert theirs != token
    left = delete(base, key, stranger, theirs)  # answered as a GET is from then on
    assert left.status_code == 200 and left.json()["status"] == "running"
    assert "runs on" in left.json()["message"]
    now = look(base, key)["done"]
    assert wait_for(lambda: (s := look(base, key))["done"] > now and s, 30)["status"] == "running"

    # the owner's token cancels it
    gone = delete(base, key, owner, token)
    assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
    stopped = look(base, key)  # at once
    assert stopped["status"] == "cancelled", stopped
    assert stopped["done"] < stopped["total"]
    # nothing to cancel any more: a DELETE says where it stands, whoever sends it
    again = delete(base, key, stranger)
    assert again.status_code == 200 and again.json()["status"] == "cancelled"


def test_a_cancel_on_another_node_is_judged_and_stops_the_analysis(tmp_path, key_prefix):
    """Two nodes on one store: the node that did not start the analysis refuses a stranger's
    DELETE and takes the owner's, and the node running it stops."""
    from serverproc import ServerProcess

    from server.store.embedded import EmbeddedValkey

    valkey = EmbeddedValkey(tmp_path / "valkey").start()
    env = {"NYUMBA_KEY_PREFIX": key_prefix}
    nodes = [
        ServerProcess(redis_url=valkey.url, data_dir=tmp_path / f"n{i}", env=env) for i in range(2)
    ]
    try:
        running, other = (n.start().url for n in nodes)
        r = post(running, next(long_games(300)), "10.36.3.1")
        assert r.status_code == 202, r.text
        key, token = r.json()["key"], r.json().get("cancel_token")
        wait_for(lambda: started(running, key), 60)
        wait_for(lambda: look(other, key)["status"] == "running", 10)  # the store has it
        refused = delete(other, key, "10.36.3.2")
        assert refused.status_code == 403 and refused.json()["code"] == "not-owner"
        before = look(running, key)["done"]
        wait_for(lambda: look(running, key)["done"] > before, 30)
        gone = delete(other, key, "10.36.3.1", token)
        assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
        stopped = wait_for(lambda: (s := look(running, key))["status"] == "cancelled" and s, 10)
        assert stopped["done"] < stopped["total"]
    finally:
        for n in nodes:
            n.stop()
        valkey.stop()
