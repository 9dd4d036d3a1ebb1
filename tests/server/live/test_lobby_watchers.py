"""A lobby that is cheap to watch whatever its size (issue 46): a watcher of 2,000 open seeks is
sent a bounded list and a count of the rest, a burst of changes reaches it as a few updates that
add up to the final list, and a watcher asking again and again is refused past its budget."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
from asynckit import run
from lobbykit import Watching, seek
from wsclient import Client

from server.rooms import seeks as S
from server.store.lobby import LobbyStore, seek_rules
from server.store.store import Store

SHOWN = 40  # PROTOCOL.md, "The lobby": a watcher is shown this many seeks at most


def plant(url: str, prefix: str, recs: list[S.SeekRec], drop: bool = False) -> None:
    """Open (or ``drop``) seeks straight in the store, as other nodes' players would: a lease
    long enough for the test, so no node's sweep drops them."""

    async def go() -> None:
        store = Store(url, prefix)
        lobby = LobbyStore(store.link, store.prefix, store.sharded)
        try:
            for at in range(0, len(recs), 200):
                await asyncio.gather(
                    *(
                        lobby.cancel(r.id)
                        if drop
                        else lobby.seek(
                            r.id, S.encode_rec(r), seek_rules(300_000, 10**6, "r" + r.id, 0)
                        )
                        for r in recs[at : at + 200]
                    )
                )
        finally:
            await store.close()

    run(go())


def planted(n: int) -> list[S.SeekRec]:
    """``n`` seeks that never pair (all ask for North): three quarters Kalah, a quarter Oware
    with ratings from 1001 up (none two alike as far from 1800)."""
    recs = []
    for i in range(n):
        game, options = ("oware", {}) if i % 4 == 0 else ("kalah", {"seeds": 4})
        recs.append(
            S.SeekRec(
                f"p{i}",
                game,
                options,
                None,
                "north",
                False,
                f"pool-{game}",
                "elsewhere",
                f"c{i}",
                "h",
                "10.9.9.9",
                f"P{i}",
                f"player{i}",
                1001 + i,
            )  # fmt: skip
        )
    return recs


def test_a_watcher_of_2000_open_seeks_is_sent_the_nearest_that_fit_and_a_count_of_the_rest(
    lobby_nodes,
):
    (node,) = lobby_nodes(1)
    recs = planted(2000)
    plant(lobby_nodes.store, lobby_nodes.prefix, recs)
    try:
        everyone = Watching(Client(node.ws_url))
        everyone.until(lambda w: len(w.seeks) + sum(w.more.values()) == 2000)
        assert len(everyone.seeks) == SHOWN
        oware = Watching(Client(node.ws_url), game="oware", near=1800)
        oware.until(lambda w: len(w.seeks) + sum(w.more.values()) == 2000)
        nearest = sorted((r for r in recs if r.game == "oware"), key=lambda r: abs(r.rating - 1800))
        assert [s["id"] for s in oware.full["seeks"]] == [r.id for r in nearest[:SHOWN]]
        assert oware.more == {"kalah": 1500, "oware": 500 - SHOWN}
        # the bytes on the wire do not grow with the lobby: 40 seeks, not 2,000
        client = Client(node.ws_url)
        client.send(t="lobby", game="kalah", rated=False, clock="none")
        first = client.expect("lobby")
        assert first["full"] and len(first["seeks"]) == SHOWN and first["more"]["kalah"] == 1460
        assert len(json.dumps(first)) < 20_000
        listing = httpx.get(node.url + "/api/lobby").json()  # every page load asks it
        assert len(listing["seeks"]) == SHOWN and sum(listing["more"].values()) == 2000 - SHOWN
    finally:
        plant(lobby_nodes.store, lobby_nodes.prefix, recs, drop=True)


def test_100_seeks_and_cancels_in_a_burst_reach_a_watcher_as_a_few_updates_adding_up(lobby_nodes):
    a, b = lobby_nodes(2)
    watcher = Watching(Client(b.ws_url))
    seekers = [Client(a.ws_url) for _ in range(20)]
    started = time.monotonic()
    final = []
    for round_ in range(3):  # seek, cancel, seek, cancel, seek: 5 changes each, 100 in all
        for c in seekers:
            mine = seek(c, side="north", name=f"S{round_}")["seek"]
            if round_ < 2:
                c.send(t="cancel", seek=mine)
                c.expect("seeking", status="cancelled")
            else:
                final.append(mine)
    watcher.until(lambda w: set(w.seeks) == set(final), timeout=15)
    spent = time.monotonic() - started
    # Each update carries all that changed since the one before, at most 2 a second.
    assert watcher.updates <= 2 * spent + 2, (watcher.updates, spent)
    assert all(s["name"] == "S2" for s in watcher.seeks.values()) and watcher.more == {}
    assert watcher.client.drain(quiet=1.2) == []  # nothing more to say


def test_a_watcher_asking_again_and_again_is_refused_past_its_budget_and_still_updated(
    lobby_nodes,
):
    (node,) = lobby_nodes(1)
    watcher = Client(node.ws_url)
    answers = []
    for _ in range(5):  # five in ten seconds: each answered with the list
        watcher.send(t="lobby")
        answers.append(watcher.expect("lobby"))
    assert all(m["full"] and m["seeks"] == [] for m in answers)
    watcher.send(t="lobby")
    refused = watcher.expect("error")
    assert refused["code"] == "lobby-limit" and refused["message"]
    mine = seek(Client(node.ws_url), side="north")["seek"]  # updates go on all the same
    assert [s["id"] for s in watcher.expect("lobby")["seeks"]] == [mine]


def test_a_node_keeps_64_different_lists_and_refuses_one_more_but_not_the_plain_one(lobby_nodes):
    """Each different list is built at every update: one socket per list cannot make the node
    build without end."""
    (node,) = lobby_nodes(1)
    watchers = [Client(node.ws_url) for _ in range(65)]
    for i, w in enumerate(watchers[:64]):
        w.send(t="lobby", clock={"initial_ms": 60_000 + 1000 * i, "increment_ms": 0})
        assert w.expect("lobby")["full"]
    watchers[64].send(t="lobby", clock={"initial_ms": 600_000, "increment_ms": 0})
    assert watchers[64].expect("error")["code"] == "lobby-busy"
    watchers[64].send(t="lobby")  # the list without filters: always
    assert watchers[64].expect("lobby")["full"]
    watchers[0].close()  # its list goes with it (once the node sees it closed): room for another
    deadline = time.monotonic() + 10
    while True:
        again = Client(node.ws_url)
        again.send(t="lobby", clock={"initial_ms": 600_000, "increment_ms": 0})
        answer = again._take(5)  # the answer, whichever it is
        if answer["t"] == "lobby":
            break
        assert answer["code"] == "lobby-busy" and time.monotonic() < deadline
        again.close()
