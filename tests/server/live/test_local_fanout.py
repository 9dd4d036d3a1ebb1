"""Local fan-out (issue 49, ``NYUMBA_LOCAL_FANOUT=1``): a node sends the moves it writes to its own
sockets from the write's reply, and the store publishes a move only when another node listens
to the room — in the room's set of listening nodes, or (a node of an older release) subscribed.

What the store publishes on a room's channel is heard here by a pattern subscription, which the
store does not count among a channel's subscribers (``PUBSUB NUMSUB``), so listening changes
nothing. Two real nodes on one store, real sockets.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import redis
from wsclient import Client, create_room

QUICK = {"NYUMBA_TICK_MS": "300", "NYUMBA_PRESENCE_TTL_MS": "1000"}
LOCAL = {"NYUMBA_LOCAL_FANOUT": "1", **QUICK}  # (off by default)


class Published:
    """The messages the store publishes on one channel, counted from a thread."""

    def __init__(self, url: str, channel: str):
        self.client = redis.Redis.from_url(url)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.psubscribe(channel.replace("[", "\\[").replace("*", "\\*"))
        self.count = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            if self.pubsub.get_message(timeout=0.05) is not None:
                self.count += 1

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.pubsub.close()
        self.client.close()


def play(players: dict[int, Client], watchers: list[Client], plies: int) -> None:
    """``plies`` moves, each acked and seen by every watcher."""
    for _ in range(plies):
        st = watchers[0].state
        assert st["outcome"] is None
        mover = players[st["to_move"]]
        mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
        intent = mover.move(st["legal"][0]["move"], version=st["version"])
        mover.expect("ack", id=intent)
        for w in watchers:
            w.wait_state(lambda s, v=st["version"]: s["version"] > v)


def settle(published: Published) -> int:
    """The count once nothing more arrives for a while (joins publish presence notices)."""
    seen = -1
    while seen != published.count:
        seen = published.count
        time.sleep(0.3)
    return seen


def test_moves_are_published_only_while_another_node_listens(lobby_nodes):
    a, b = lobby_nodes(2, **LOCAL)
    b_id = httpx.get(b.url + "/healthz").json()["node"]
    store = redis.Redis.from_url(lobby_nodes.store)
    r = create_room(a.url, "kalah", options={"seeds": 6})  # (12 plies and still playing)
    room = r["room"]
    channel = f"{lobby_nodes.prefix}room:{{{room}}}"
    published = Published(lobby_nodes.store, channel)
    south, north = Client(a.ws_url), Client(a.ws_url)
    clients = [south, north]
    try:
        south.join(room, r["token"])
        north.join(room)
        players = {0: south, 1: north}
        # Both players on node a: the moves reach them, and the store publishes none of them.
        before = settle(published)
        play(players, [south, north], 4)
        assert settle(published) == before
        # A spectator on node b: from its join on, every move is published, and it sees each.
        spectator = Client(b.ws_url)
        clients.append(spectator)
        spectator.join(room)
        before = settle(published)
        play(players, [south, north, spectator], 4)
        assert settle(published) == before + 4
        # The store lost the set of listeners (a failover to a replica without it): node b is
        # still subscribed, so the moves are still published for it, and its tick lists it again.
        store.delete(channel + ":nodes")
        play(players, [south, north, spectator], 2)
        deadline = time.monotonic() + 10
        while not store.sismember(channel + ":nodes", b_id):
            assert time.monotonic() < deadline, "node b was not listed again"
            time.sleep(0.1)
        # The spectator leaves: node b unlists itself, and the moves are local again.
        spectator.close()
        clients.remove(spectator)
        while store.sismember(channel + ":nodes", b_id):
            assert time.monotonic() < deadline, "node b did not unlist itself"
            time.sleep(0.1)
        before = settle(published)
        play(players, [south, north], 2)
        assert settle(published) == before
    finally:
        published.close()
        store.close()
        for c in clients:
            c.close()


@pytest.mark.parametrize("local", ["0", "1"])
def test_players_on_two_nodes_see_every_move_with_local_fanout_on_and_off(lobby_nodes, local):
    """Affinity off: the two players and a spectator each on another node than the mover's."""
    a, b = lobby_nodes(2, NYUMBA_LOCAL_FANOUT=local, **QUICK)
    r = create_room(a.url, "kalah", options={"seeds": 3})
    south, north, spectator = Client(a.ws_url), Client(b.ws_url), Client(b.ws_url)
    try:
        south.join(r["room"], r["token"])
        north.join(r["room"])
        spectator.join(r["room"])
        play({0: south, 1: north}, [south, north, spectator], 8)
    finally:
        for c in (south, north, spectator):
            c.close()
