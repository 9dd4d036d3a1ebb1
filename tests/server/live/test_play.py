"""Rooms end to end: a real ``nyumba serve`` process, real sockets, real store."""

from __future__ import annotations

import json
import random
import threading

import httpx
import pytest
from wsclient import Client, create_room, seated_pair

from engine import records


@pytest.mark.parametrize("game", ["kalah", "oware"])
def test_two_clients_play_a_complete_game_and_a_spectator_sees_every_state(server, game):
    r, south, north = seated_pair(server, game)
    watcher = Client(server.ws_url)
    assert watcher.join(r["room"])["sides"] == []
    rng = random.Random(7)
    players = {0: south, 1: north}
    seen_versions = []
    while True:
        st = south.wait_state(lambda s: True)
        if st["outcome"] is not None:
            break
        mover = players[st["to_move"]]
        mover.wait_state(lambda s, v=st["version"]: s["version"] >= v)
        choice = rng.choice(st["legal"])["move"]
        intent = mover.move(choice, version=st["version"])
        mover.expect("ack", id=intent)
        v = st["version"] + 1
        south.wait_state(lambda s, v=v: s["version"] >= v)
        got = watcher.wait_state(lambda s, v=v: s["version"] >= v)
        seen_versions.append(got["version"])
    final = south.state
    assert final["legal"] == [] and final["to_move"] is None
    out = final["outcome"]
    s0, s1 = out["score"]
    assert out["winner"] == (0 if s0 > s1 else 1 if s1 > s0 else None)
    assert watcher.wait_state(lambda s: s["outcome"] is not None)["position"] == final["position"]
    # The spectator saw every version in order.
    assert seen_versions == list(range(1, final["version"] + 1))
    # and cannot move
    watcher.send(t="move", room=r["room"], version=final["version"], move="a", id="w1")
    assert watcher.expect("error", id="w1")["code"] == "not-seated"
    # The room's history holds every move, and its game record replays to the end.
    history = httpx.get(f"{server.url}/api/rooms/{r['room']}/history").json()
    assert len(history["moves"]) == final["plies"] == final["version"]
    download = httpx.get(f"{server.url}/api/rooms/{r['room']}/record")
    assert "attachment" in download.headers["content-disposition"]
    record = records.load(download.text)
    assert list(record.moves) == history["moves"] and record.outcome.winner == out["winner"]
    view = httpx.post(
        f"{server.url}/api/replay",
        content=download.content,
        headers={"content-type": "application/json"},
    ).json()
    assert len(view["states"]) == final["plies"] + 1
    assert view["states"][-1]["position"] == final["position"]
    bad = httpx.post(
        f"{server.url}/api/replay",
        content=download.content[:-20],
        headers={"content-type": "application/json"},
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad-record"
    for c in (south, north, watcher):
        c.close()


def test_spectator_cannot_resign_offer_or_undo(server):
    r, south, north = seated_pair(server)
    w = Client(server.ws_url)
    w.join(r["room"])
    for msg in ({"t": "resign"}, {"t": "offer", "kind": "draw"}, {"t": "hand_over"}):
        w.send(room=r["room"], id="x", **msg)
        assert w.expect("error", id="x")["code"] == "not-seated"
    w.send(t="ping", n=5)
    assert w.expect("pong")["n"] == 5


def test_reconnect_with_token_on_a_new_socket_keeps_seat_and_state(server):
    r, south, north = seated_pair(server)
    south.move("c")  # extra turn (K5)
    south.expect("ack")
    south.wait_state(lambda s: s["version"] == 1)
    south.move("f")
    south.expect("ack")
    before = north.wait_state(lambda s: s["version"] == 2)
    token = north.token
    north.close()
    again = Client(server.ws_url)
    welcome = again.join(r["room"], token)
    assert welcome["sides"] == [1] and "token" not in welcome
    assert again.state["version"] == 2
    assert again.state["position"] == before["position"]
    assert again.state["last"] == before["last"]
    # and it can play on: nothing was lost
    move = again.state["legal"][0]["move"]
    again.move(move)
    assert again.expect("ack")["version"] == 3
    south.wait_state(lambda s: s["version"] == 3)


def _quiet_version(client: Client) -> int:
    client.drain(0.2)
    return client.state["version"]


def test_bad_input_gets_a_code_changes_nothing_and_keeps_the_connection(server):
    r, south, north = seated_pair(server)
    other = create_room(server.url, "kalah")
    version = _quiet_version(south)
    position = south.state["position"]

    cases = []
    south.send(t="move", room=r["room"], version=version + 5, move="c", id="stale")
    cases.append(("stale", south.expect("error", id="stale")["code"]))
    assert south.expect("state")["version"] == version  # stale comes with the current state
    north.send(t="move", room=r["room"], version=version, move="A", id="turn")
    cases.append(("not-your-turn", north.expect("error", id="turn")["code"]))
    south.send(t="move", room=r["room"], version=version, move="z", id="nota")
    cases.append(("bad-notation", south.expect("error", id="nota")["code"]))
    south.send(t="move", room=other["room"], version=0, move="c", id="room")
    cases.append(("wrong-room", south.expect("error", id="room")["code"]))
    south.send_raw("{not json")
    cases.append(("bad-json", south.expect("error")["code"]))
    south.send_raw(json.dumps({"t": "teleport", "room": r["room"]}))
    cases.append(("bad-message", south.expect("error")["code"]))
    south.send_raw(
        json.dumps({"t": "move", "room": r["room"], "version": "x", "move": "c", "id": "q"})
    )
    cases.append(("bad-message", south.expect("error")["code"]))
    south.send_raw(json.dumps({"t": "ping", "n": 1, "extra": True}))
    cases.append(("bad-message", south.expect("error")["code"]))
    forged = Client(server.ws_url)
    forged.send(t="join", room=r["room"], token="forged-token-123")
    cases.append(("bad-token", forged.expect("error")["code"]))
    forged.send(t="join", room=r["room"], token=other["token"])  # another room's token
    cases.append(("bad-token", forged.expect("error")["code"]))
    forged.send(t="move", room=r["room"], version=version, move="c", id="f1")
    cases.append(("not-joined", forged.expect("error", id="f1")["code"]))
    nobody = Client(server.ws_url)
    nobody.send(t="join", room="no-such-room")
    cases.append(("no-room", nobody.expect("error")["code"]))
    assert [want for want, _ in cases] == [got for _, got in cases]

    # Nothing changed, and every connection still works.
    for c in (south, north, forged, nobody):
        c.send(t="ping", n=9)
        assert c.expect("pong")["n"] == 9
    watcher = Client(server.ws_url)
    watcher.join(r["room"])
    assert watcher.state["version"] == version and watcher.state["position"] == position
    south.move("c")
    assert south.expect("ack")["version"] == version + 1


@pytest.mark.parametrize("game", ["bao-kiswahili", "bao-kujifunza", "bao-nakakamado-a"])
def test_a_well_formed_illegal_bao_move_is_refused_illegal_and_changes_nothing(server, game):
    r = create_room(server.url, game, mode="local")
    both = Client(server.ws_url)
    both.join(r["room"], r["token"])
    # South to move with A1 empty: the start of Kiswahili and Nakakamado; in Kujifunza, where
    # every pit starts with two, after South's first move lifts A1 and North's answer
    plies = 0
    while not (both.state["to_move"] == 0 and both.state["board"]["pits"]["A1"] == 0):
        legal = [m["move"] for m in both.state["legal"]]
        move = "A1L" if "A1L" in legal else legal[0]
        version = both.state["version"]
        both.move(move)
        both.expect("ack")
        both.wait_state(lambda s, v=version: s["version"] > v)
        plies += 1
        assert plies < 10, f"A1 never empty with South to move: {both.state['position']}"
    version, position = both.state["version"], both.state["position"]
    assert "A1L" not in [m["move"] for m in both.state["legal"]]
    both.move("A1L", id="empty")
    error = both.expect("error", id="empty")
    assert error["code"] == "illegal", error
    assert "A1L" in error["message"] and "not legal" in error["message"]
    both.send(t="move", room=r["room"], version=version, move="A1X", id="nota")
    assert both.expect("error", id="nota")["code"] == "bad-notation"
    watcher = Client(server.ws_url)
    watcher.join(r["room"])
    assert watcher.state["version"] == version and watcher.state["position"] == position
    both.close()
    watcher.close()


def test_resent_intent_is_applied_once(server):
    r, south, north = seated_pair(server)
    south.move("a", version=0, id="same")
    assert south.expect("ack", id="same")["version"] == 1
    north.wait_state(lambda s: s["version"] == 1)
    south.move("a", version=0, id="same")  # resent after the ack was lost, say
    assert south.expect("ack", id="same")["version"] == 1
    south.drain(0.3)
    assert south.state["version"] == 1 and south.state["plies"] == 1
    record = httpx.get(f"{server.url}/api/rooms/{r['room']}/history").json()
    assert record["moves"] == ["a"]


def test_racing_sockets_of_one_seat_apply_exactly_one_move(server):
    r, south, north = seated_pair(server)
    twins = [Client(server.ws_url) for _ in range(4)]
    for t in twins:
        t.join(r["room"], r["token"])
        assert t.sides == [0]
    go = threading.Barrier(len(twins))
    moves = ["a", "b", "d", "e"]  # none gives an extra turn from the start

    def fire(client, move):
        go.wait()
        client.move(move, version=0, id=f"race-{move}")

    threads = [threading.Thread(target=fire, args=(t, m)) for t, m in zip(twins, moves)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    answers = []
    for t, m in zip(twins, moves):
        try:
            answers.append(("ack", t.expect("ack", id=f"race-{m}", timeout=3)["version"]))
        except TimeoutError:
            answers.append(("error", t.expect("error", id=f"race-{m}")["code"]))
    assert sorted(a for a, _ in answers) == ["ack", "error", "error", "error"]
    assert all(v in ("stale", "not-your-turn") for a, v in answers if a == "error")
    final = north.wait_state(lambda s: s["version"] == 1)
    north.drain(0.3)
    assert north.state["version"] == 1 and north.state["plies"] == 1
    assert final["to_move"] == 1
