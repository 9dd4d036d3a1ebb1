"""Several nodes on one store: any node serves any room, and nodes may die."""

from __future__ import annotations

import random
import signal

import httpx
import pytest
from serverproc import ServerProcess
from websockets.exceptions import ConnectionClosed
from wsclient import Client, create_room

import engine

TIMERS = {
    "NYUMBA_ABSENT_MS": "1500",
    "NYUMBA_TICK_MS": "300",
    "NYUMBA_PRESENCE_TTL_MS": "1000",
    "NYUMBA_COMPUTER_LEASE_MS": "1500",
}


@pytest.fixture
def nodes(shared_store, tmp_path, key_prefix):
    started: list[ServerProcess] = []

    def start(n: int = 3) -> list[ServerProcess]:
        for _i in range(n):
            started.append(
                ServerProcess(
                    redis_url=shared_store,
                    data_dir=tmp_path / f"node{len(started)}",
                    env={"NYUMBA_KEY_PREFIX": key_prefix + "nodes:", **TIMERS},
                ).start()
            )
        return started

    yield start
    for s in started:
        s.stop(kill=True)


def replay(record: dict) -> tuple[str, int]:
    """Replay a room's record through the engine: (final position, plies)."""
    game = engine.load(record["game"], **record["options"])
    state = game.start()
    for text in record["moves"]:
        state = game.play(state, game.parse(state, text))
    return game.describe(state), len(record["moves"])


def play_to_end(
    clients_by_side: dict,
    watcher: Client,
    rng: random.Random,
    acked: list,
    stop_after: int | None = None,
) -> dict:
    """Both players move (each on its own socket) until the game ends or
    ``stop_after`` more plies were played; returns the last state seen."""
    played = 0
    while True:
        st = watcher.wait_state(lambda s: True)
        watcher.drain(0.02)
        st = watcher.state
        if st["outcome"] is not None or (stop_after is not None and played >= stop_after):
            return st
        mover = clients_by_side[st["to_move"]]
        mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
        intent = mover.move(rng.choice(st["legal"])["move"], version=st["version"])
        acked.append((intent, mover.expect("ack", id=intent)["version"]))
        played += 1
        watcher.wait_state(lambda s, v=st["version"]: s["version"] > v)


@pytest.mark.parametrize("game", ["kalah", "oware"])
def test_players_and_spectator_on_three_nodes_play_complete_games(nodes, game):
    a, b, c = nodes(3)
    r = create_room(a.url, game)
    south = Client(a.ws_url)
    south.join(r["room"], r["token"])
    north = Client(b.ws_url)
    north.join(r["room"])
    watcher = Client(c.ws_url)
    assert watcher.join(r["room"])["sides"] == []
    acked: list = []
    final = play_to_end({0: south, 1: north}, watcher, random.Random(3), acked)
    assert final["outcome"] is not None
    for cl in (south, north):
        assert (
            cl.wait_state(lambda s: s["version"] == final["version"])["position"]
            == final["position"]
        )
    record = httpx.get(f"{b.url}/api/rooms/{r['room']}/history").json()
    assert replay(record) == (final["position"], final["plies"])
    assert [v for _, v in acked] == list(range(1, final["version"] + 1))


def test_sigkill_of_a_node_mid_game_loses_nothing(nodes):
    a, b, c = nodes(3)
    r = create_room(a.url, "kalah")
    south = Client(a.ws_url)
    south.join(r["room"], r["token"])
    north = Client(b.ws_url)
    north.join(r["room"])
    watcher = Client(c.ws_url)
    watcher.join(r["room"])
    rng = random.Random(11)
    acked: list = []
    play_to_end({0: south, 1: north}, watcher, rng, acked, stop_after=8)

    # South's node dies without a word.
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(5)
    # The others see South's presence end once its TTL runs out...
    watcher.wait_state(lambda s: not s["seats"][0]["present"], timeout=10)
    # ...and South reconnects to another node with the token and finishes the game.
    south = Client(c.ws_url)
    assert south.join(r["room"], r["token"])["sides"] == [0]
    assert south.state["version"] == acked[-1][1]
    final = play_to_end({0: south, 1: north}, watcher, rng, acked)
    assert final["outcome"] is not None

    record = httpx.get(f"{b.url}/api/rooms/{r['room']}/history").json()
    assert replay(record) == (final["position"], final["plies"])
    # Every acknowledged intent is in the history exactly once, in order.
    ids = record["ids"]
    assert [i for i, _ in acked] == ids
    assert len(set(ids)) == len(ids)


def test_a_computer_seat_keeps_playing_when_its_node_is_killed(nodes):
    a, b, c = nodes(3)
    r = create_room(a.url, "kalah", mode="computer", side="south", options={"seeds": 3})
    me = Client(a.ws_url)
    me.join(r["room"], r["token"])
    watcher = Client(b.ws_url)  # a spectator keeps the room alive on a second node
    watcher.join(r["room"])
    rng = random.Random(5)

    def my_turns(client, n):
        for _ in range(n):
            st = client.wait_state(
                lambda s: s["outcome"] is not None or s["to_move"] == 0, timeout=20
            )
            if st["outcome"] is not None:
                return st
            client.move(rng.choice(st["legal"])["move"], version=st["version"])
            client.expect("ack")
            client.wait_state(lambda s, v=st["version"]: s["version"] > v)
        return client.state

    my_turns(me, 3)
    # The node that holds my socket (and so plays the computer first) dies.
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(5)
    me = Client(c.ws_url)
    me.join(r["room"], r["token"])
    st = my_turns(me, 200)
    assert st["outcome"] is not None
    sides = {ply_side for ply_side in (p["side"] for p in [st["last"]])}
    assert sides <= {0, 1}
    record = httpx.get(f"{c.url}/api/rooms/{r['room']}/history").json()
    assert replay(record)[0] == st["position"]
    # The computer moved after the kill too.
    computer_plies_after = [s for s in record["sides"][6:] if s == 1]
    assert computer_plies_after


def test_sigterm_closes_sockets_with_1012_and_they_resume_elsewhere(nodes):
    a, b = nodes(2)
    r = create_room(a.url, "kalah")
    south = Client(a.ws_url)
    south.join(r["room"], r["token"])
    north = Client(b.ws_url)
    north.join(r["room"])
    south.move("a")
    south.expect("ack")
    a.proc.send_signal(signal.SIGTERM)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            south.ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    # uvicorn finishes its graceful shutdown; a clean stop exits 0 (not -15)
    assert a.proc.wait(15) == 0
    assert "Traceback" not in a.log()
    south = Client(b.ws_url)
    assert south.join(r["room"], r["token"])["sides"] == [0]
    assert south.state["version"] == 1 and south.state["plies"] == 1
