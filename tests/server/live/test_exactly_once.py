"""Exactly once (PROTOCOL.md, "Intent ids"): every intent kind, against real nodes.

For each kind: the first arrival is judged; a resend on the same socket and a
resend after a reconnect to another node get the same answer, and nothing is
applied twice; the same id with other content is refused ``id-reused``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from serverproc import ServerProcess
from wsclient import Client, create_room, seated_pair

TIMERS = {"NYUMBA_ABSENT_MS": "1500", "NYUMBA_TICK_MS": "300", "NYUMBA_PRESENCE_TTL_MS": "1000"}


@pytest.fixture(scope="module")
def two_nodes(store_kind, tmp_path_factory, key_prefix):
    """Two nodes on one store: the embedded Valkey, or the Redis at REDIS_URL."""
    import os

    from server.store.embedded import EmbeddedValkey

    valkey = None
    if store_kind == "redis":
        url = os.environ["REDIS_URL"]
    else:
        valkey = EmbeddedValkey(tmp_path_factory.mktemp("once-valkey")).start()
        url = valkey.url
    env = {"NYUMBA_KEY_PREFIX": key_prefix + "once:", **TIMERS}
    nodes = [
        ServerProcess(redis_url=url, data_dir=tmp_path_factory.mktemp(f"once{i}"), env=env).start()
        for i in range(2)
    ]
    yield nodes
    for n in nodes:
        n.stop()
    if valkey is not None:
        valkey.stop()


def answer(client: Client, frame: dict[str, Any]) -> dict[str, Any]:
    """Send ``frame`` and return the answer to its id (ack, error or hint)."""
    client.send(**frame)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for i, msg in enumerate(client.inbox):
            if msg["t"] in ("ack", "error", "hint") and msg.get("id") == frame["id"]:
                return client.inbox.pop(i)
        client.inbox.append(client._take(deadline - time.monotonic()))
    raise TimeoutError(f"no answer to {frame}")


def exactly_once(
    nodes: list[ServerProcess],
    client: Client,
    frame: dict[str, Any],
    other: dict[str, Any],
    applied_once: Callable[[Client], None],
) -> dict[str, Any]:
    """The rule, for one intent: send, resend, resend from another node, reuse the id."""
    first = answer(client, frame)
    assert answer(client, frame) == first, "a resend on the same socket"
    client.close()
    again = Client(nodes[1].ws_url)
    again.join(client.room, client.token)
    assert answer(again, frame) == first, "a resend after a reconnect to another node"
    again.drain(0.3)
    applied_once(again)
    reused = answer(again, {**frame, **other})
    assert reused["t"] == "error" and reused["code"] == "id-reused", reused
    again.close()
    return first


def at_version(v: int) -> Callable[[Client], None]:
    def check(c: Client) -> None:
        assert c.state["version"] == v

    return check


def history(nodes, room: str) -> dict[str, Any]:
    return httpx.get(f"{nodes[0].url}/api/rooms/{room}/history", timeout=10).json()


def test_move(two_nodes):
    a = two_nodes[0]
    r, south, north = seated_pair(a)
    frame = {"t": "move", "room": r["room"], "version": 0, "move": "a", "id": "m-1"}

    def once(c: Client) -> None:
        assert c.state["version"] == 1 and history(two_nodes, r["room"])["moves"] == ["a"]

    first = exactly_once(two_nodes, south, frame, {"move": "b"}, once)
    assert first == {"t": "ack", "id": "m-1", "version": 1}


def test_a_refused_move_is_refused_the_same_way_when_resent(two_nodes):
    r, south, north = seated_pair(two_nodes[0])
    frame = {"t": "move", "room": r["room"], "version": 0, "move": "A", "id": "m-2"}
    first = exactly_once(two_nodes, north, frame, {"move": "B"}, at_version(0))
    assert first["t"] == "error" and first["code"] == "not-your-turn"


def test_resign(two_nodes):
    r, south, north = seated_pair(two_nodes[0])
    frame = {"t": "resign", "room": r["room"], "id": "r-1"}

    def once(c: Client) -> None:
        assert c.state["version"] == 1 and c.state["outcome"]["winner"] == 1

    first = exactly_once(two_nodes, south, frame, {"t": "hand_over"}, once)
    assert first == {"t": "ack", "id": "r-1", "version": 1}  # the version it produced


def test_offer_resent_after_a_decline_is_not_made_again(two_nodes):
    r, south, north = seated_pair(two_nodes[0])
    south.move("a", version=0, id="m-a")
    south.expect("ack", id="m-a")
    frame = {"t": "offer", "room": r["room"], "kind": "takeback", "id": "tb-1"}
    assert answer(south, frame) == {"t": "ack", "id": "tb-1", "version": -1}
    assert north.expect("offer")["status"] == "open"
    north.send(t="reply", room=r["room"], kind="takeback", accept=False, id="d-1")
    assert north.expect("ack", id="d-1")["version"] == -1
    north.drain(0.3)

    def once(c: Client) -> None:
        assert c.state["offer"] is None and c.state["version"] == 1
        north.drain(0.5)
        assert not [m for m in north.inbox if m["t"] == "offer" and m["status"] == "open"]

    exactly_once(two_nodes, south, frame, {"kind": "draw"}, once)


def test_reply(two_nodes):
    r, south, north = seated_pair(two_nodes[0])
    south.send(t="offer", room=r["room"], kind="draw", id="o-1")
    north.wait_state(lambda s: s["offer"] is not None)
    frame = {"t": "reply", "room": r["room"], "kind": "draw", "accept": True, "id": "y-1"}

    def once(c: Client) -> None:
        assert c.state["version"] == 1 and c.state["adjudication"] == "agreement"

    first = exactly_once(two_nodes, north, frame, {"accept": False}, once)
    assert first == {"t": "ack", "id": "y-1", "version": 1}


def test_undo(two_nodes):
    r = create_room(two_nodes[0].url, "kalah", mode="local")
    c = Client(two_nodes[0].ws_url)
    c.join(r["room"], r["token"])
    c.move("a", version=0, id="u-m1")
    c.expect("ack", id="u-m1")
    c.move("A", version=1, id="u-m2")
    c.expect("ack", id="u-m2")
    frame = {"t": "undo", "room": r["room"], "version": 2, "id": "u-1"}

    def once(cl: Client) -> None:
        assert cl.state["version"] == 3 and cl.state["plies"] == 1

    first = exactly_once(two_nodes, c, frame, {"version": 3}, once)
    assert first == {"t": "ack", "id": "u-1", "version": 3}


def _handed_over(nodes) -> tuple[dict, Client, str]:
    r, south, north = seated_pair(nodes[0])
    token = north.token
    north.close()
    south.wait_state(lambda s: not s["seats"][1]["present"], timeout=10)
    time.sleep(1.6)  # the nodes' absence window is 1.5 s
    return r, south, token


def test_hand_over(two_nodes):
    r, south, _ = _handed_over(two_nodes)
    frame = {"t": "hand_over", "room": r["room"], "id": "h-1"}

    def once(c: Client) -> None:
        assert c.state["seats"][1]["holder"] == "computer" and c.state["version"] == 0

    first = exactly_once(two_nodes, south, frame, {"t": "reclaim"}, once)
    assert first == {"t": "ack", "id": "h-1", "version": -1}


def test_reclaim(two_nodes):
    r, south, token = _handed_over(two_nodes)
    south.send(t="hand_over", room=r["room"], id="h-2")
    south.expect("ack", id="h-2")
    back = Client(two_nodes[0].ws_url)
    back.join(r["room"], token)
    frame = {"t": "reclaim", "room": r["room"], "id": "c-1"}

    def once(c: Client) -> None:
        assert c.state["seats"][1]["holder"] == "person"

    first = exactly_once(two_nodes, back, frame, {"t": "resign"}, once)
    assert first == {"t": "ack", "id": "c-1", "version": -1}


def test_hint(two_nodes):
    r = create_room(two_nodes[0].url, "kalah", mode="computer", side="south", level="beginner")
    c = Client(two_nodes[0].ws_url)
    c.join(r["room"], r["token"])
    frame = {"t": "hint", "room": r["room"], "id": "hint-1"}
    first = exactly_once(two_nodes, c, frame, {"t": "resign"}, at_version(0))
    assert first["t"] == "hint" and first["version"] == 0


def test_an_id_of_game_one_names_a_new_intent_in_game_two(two_nodes):
    """Ids are scoped to seat + game: a game-2 move reusing a game-1 id is applied."""
    r = create_room(two_nodes[0].url, "kalah", mode="local")
    c = Client(two_nodes[0].ws_url)
    c.join(r["room"], r["token"])
    c.move("a", version=0, id="g-1")
    assert c.expect("ack", id="g-1")["version"] == 1
    c.send(t="resign", room=r["room"], id="g-r")
    c.expect("ack", id="g-r")
    c.send(t="offer", room=r["room"], kind="rematch", id="g-rematch")
    st = c.wait_state(lambda s: s["game_no"] == 2)
    assert c.expect("ack", id="g-rematch")["version"] == st["version"]
    move = st["legal"][0]["move"]
    c.move(move, version=st["version"], id="g-1")
    assert c.expect("ack", id="g-1")["version"] == st["version"] + 1
    assert history(two_nodes, r["room"])["moves"] == [move]
