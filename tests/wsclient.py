"""A small synchronous protocol client for the tests and benchmarks."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import httpx
from websockets.sync.client import connect


def create_room(base: str, game: str = "kalah", **body: Any) -> dict:
    r = httpx.post(base + "/api/rooms", json={"game": game, **body}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


class Client:
    _ids = itertools.count(1)

    def __init__(
        self,
        ws_url: str,
        room: str | None = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        source: str | None = None,
    ):
        # ``source``: the loopback address to connect from (127.0.0.2: another client address)
        more = {"source_address": (source, 0)} if source else {}
        self.ws = connect(
            ws_url, open_timeout=10, max_size=2**22, legacy=True, additional_headers=headers, **more
        )
        self.inbox: list[dict] = []
        self.room = room
        self.token = token
        self.sides: list[int] = []
        self.state: dict | None = None

    # sending ---------------------------------------------------------------
    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(msg))

    def send_raw(self, data: str | bytes) -> None:
        self.ws.send(data)

    def join(self, room: str | None = None, token: str | None = None) -> dict:
        self.room = room or self.room
        self.token = token if token is not None else self.token
        self.send(t="join", room=self.room, token=self.token)
        welcome = self.expect("welcome")
        self.sides = welcome["sides"]
        if welcome.get("token"):
            self.token = welcome["token"]
        self.expect("state")
        return welcome

    def move(self, text: str, version: int | None = None, id: str | None = None) -> str:
        id = id or f"m{next(self._ids)}"
        v = self.state["version"] if version is None else version
        self.send(t="move", room=self.room, version=v, move=text, id=id)
        return id

    # receiving -------------------------------------------------------------
    def _take(self, timeout: float) -> dict:
        raw = self.ws.recv(timeout=timeout)
        msg = json.loads(raw)
        if msg["t"] == "state":
            if self.state is None or msg["version"] >= self.state["version"]:
                self.state = msg
        elif msg["t"] == "welcome":
            self.sides = msg["sides"]
        return msg

    def expect(self, t: str, timeout: float = 10.0, **match: Any) -> dict:
        """The next message of type ``t`` (matching ``match``), keeping others."""
        for i, msg in enumerate(self.inbox):
            if msg["t"] == t and all(msg.get(k) == v for k, v in match.items()):
                return self.inbox.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {t} {match} within {timeout}s; inbox: {self.inbox[-5:]}")
            msg = self._take(left)
            if msg["t"] == t and all(msg.get(k) == v for k, v in match.items()):
                return msg
            self.inbox.append(msg)

    def wait_state(self, pred, timeout: float = 10.0) -> dict:
        """Wait until the latest state satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        if self.state is not None and pred(self.state):
            return self.state
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"state never matched; last: {self.state}")
            msg = self._take(left)
            if msg["t"] != "state":
                self.inbox.append(msg)
            if self.state is not None and pred(self.state):
                return self.state

    def drain(self, quiet: float = 0.2) -> list[dict]:
        out = []
        try:
            while True:
                out.append(self._take(quiet))
        except TimeoutError:
            pass
        self.inbox.extend(m for m in out if m["t"] != "state")
        return out

    def close(self) -> None:
        self.ws.close()


def seated_pair(server, game="kalah", **body):
    """A friend room with South (the creator) and North seated on their own sockets."""
    r = create_room(server.url, game, mode="friend", side="south", **body)
    south = Client(server.ws_url)
    south.join(r["room"], r["token"])
    north = Client(server.ws_url)
    north.join(r["room"])
    assert south.sides == [0] and north.sides == [1]
    return r, south, north
