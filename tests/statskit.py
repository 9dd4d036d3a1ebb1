"""Helpers for the game-statistics tests: scrape ``/metrics`` into numbers, and play one game
of each mode to its end over real sockets (imported by name: ``from statskit import ...``)."""

from __future__ import annotations

from collections import Counter

import httpx
from prometheus_client.parser import text_string_to_metric_families
from wsclient import Client, create_room

Sample = tuple[str, frozenset[tuple[str, str]]]


def scrape(base: str) -> Counter[Sample]:
    """Every sample of one scrape of ``base``/metrics, by name and labels."""
    text = httpx.get(base + "/metrics", timeout=10).text
    out: Counter[Sample] = Counter()
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] += s.value
    return out


def moved(before: Counter[Sample], after: Counter[Sample], prefix: str) -> dict[Sample, float]:
    """The samples named ``prefix``... whose value changed between two scrapes."""
    names = {k for k in (*before, *after) if k[0].startswith(prefix)}
    return {k: after[k] - before[k] for k in names if after[k] != before[k]}


def key(name: str, **labels: str) -> Sample:
    return (name, frozenset(labels.items()))


def winner_of(state: dict) -> str:
    """The ``winner`` label a finished game's last state should be counted with."""
    w = state["outcome"]["winner"]
    if w is None:
        return "none"
    return "computer" if state["seats"][w]["holder"] == "computer" else ("south", "north")[w]


def play_to_end(clients: list[Client]) -> dict:
    """The seated clients play their first legal move whenever their seat is to move, and the
    computer its own, until the game ends; the last state."""
    watcher = clients[0]
    while True:
        st = watcher.state
        assert st is not None
        if st["outcome"] is not None:
            return st
        side, version = st["to_move"], st["version"]
        if st["seats"][side]["holder"] != "computer":
            mover = next(c for c in clients if side in c.sides)
            mover.wait_state(lambda s, v=version: s["version"] >= v)
            mover.move(st["legal"][0]["move"], version=version)
        watcher.wait_state(lambda s, v=version: s["version"] > v, timeout=30)


def computer_game(base: str, ws_url: str) -> dict:
    r = create_room(
        base, "kalah", options={"seeds": 3}, mode="computer", side="south", level="beginner"
    )
    me = Client(ws_url)
    me.join(r["room"], r["token"])
    try:
        return play_to_end([me])
    finally:
        me.close()


def local_game(base: str, ws_url: str) -> dict:
    r = create_room(base, "kalah", options={"seeds": 3}, mode="local")
    both = Client(ws_url)
    both.join(r["room"], r["token"])
    assert both.sides == [0, 1]
    try:
        return play_to_end([both])
    finally:
        both.close()


def friend_game(base: str, south: Client, north: Client) -> dict:
    """A friend room made by ``south``'s player, its link opened on ``north``'s socket."""
    r = create_room(base, "kalah", options={"seeds": 3}, mode="friend", side="south")
    south.join(r["room"], r["token"])
    north.join(r["room"])
    assert south.sides == [0] and north.sides == [1]
    return play_to_end([south, north])
