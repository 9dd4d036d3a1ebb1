"""The lobby and game clocks across real nodes on one store: pairing, the race, seeks that
leave with their page, flags that fall with nobody sending, clocks after a reconnect."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time

import websockets
from archivekit import opening
from lobbykit import join_paired, play_out, seek
from serverproc import ServerProcess
from wsclient import Client

CLOCK = {"initial_ms": 2000, "increment_ms": 0}


def test_two_players_on_two_nodes_pair_through_the_lobby_and_finish_a_game(lobby_nodes) -> None:
    a, b = lobby_nodes(2)
    watcher = Client(b.ws_url)
    watcher.send(t="lobby")
    assert watcher.expect("lobby")["full"] is True
    seeker = Client(a.ws_url)
    mine = seek(seeker, name="Asha", side="south")
    listed = watcher.expect("lobby")
    assert [s["id"] for s in listed["seeks"]] == [mine["seek"]]
    assert listed["seeks"][0]["name"] == "Asha" and listed["seeks"][0]["game"] == "kalah"
    taker = Client(b.ws_url)
    taker.send(t="accept", seek=mine["seek"], name="Juma", id="acc-1")
    theirs = taker.expect("paired")
    ours = seeker.expect("paired")
    assert ours["room"] == theirs["room"] and (ours["side"], theirs["side"]) == (0, 1)
    assert ours["opponent"] == "Juma" and theirs["opponent"] == "Asha"
    assert watcher.expect("lobby")["gone"] == [mine["seek"]]
    taker.send(t="accept", seek=mine["seek"], name="Juma", id="acc-1")  # a resend: the same
    assert taker.expect("paired") == theirs
    south, north = join_paired(a.ws_url, ours), join_paired(b.ws_url, theirs)
    final = play_out({0: south, 1: north}, random.Random(5))
    assert final["adjudication"] is None and final["plies"] > 0


def test_accepting_a_seek_that_wants_north_seats_the_taker_south(lobby_nodes) -> None:
    a, b = lobby_nodes(2)
    lister = Client(a.ws_url)
    listed = seek(lister, side="north", clock=CLOCK, game="oware", options={})["seek"]
    taker = Client(b.ws_url)
    taker.send(t="accept", seek=listed)
    theirs, ours = taker.expect("paired"), lister.expect("paired")
    assert (theirs["side"], ours["side"]) == (0, 1) and theirs["game"] == "oware"
    assert theirs["clock"] == CLOCK
    south = join_paired(b.ws_url, theirs)
    assert south.state["game"] == "oware" and south.state["clock"]["initial_ms"] == 2000
    taker.send(t="accept", seek=listed, id="again")  # paired already: gone from the lobby
    assert taker.expect("error")["code"] == "no-seek"


def test_quick_pairing_pairs_the_first_compatible_seek(lobby_nodes) -> None:
    a, b = lobby_nodes(2)
    early = Client(a.ws_url)
    seek(early, side="north")
    same_side = Client(b.ws_url)
    seek(same_side, side="north")  # both want North: not paired with each other
    anyone = Client(b.ws_url)
    anyone.send(t="seek", game="kalah", options={"seeds": 4})
    paired = anyone.expect("paired")
    assert paired["side"] == 0 and early.expect("paired")["room"] == paired["room"]


def test_a_seek_vanishes_within_5_s_of_its_page_closing_or_its_node_dying(lobby_nodes) -> None:
    a, b = lobby_nodes(2)
    watcher = Client(b.ws_url)
    watcher.send(t="lobby")
    watcher.expect("lobby")
    page = Client(a.ws_url)
    opened = seek(page, clock=CLOCK)["seek"]
    watcher.expect("lobby")
    page.close()
    started = time.monotonic()
    assert watcher.expect("lobby", timeout=5)["gone"] == [opened]
    assert time.monotonic() - started < 5
    c = lobby_nodes(1)[0]
    doomed = Client(c.ws_url)
    lost = seek(doomed, clock=CLOCK)["seek"]
    watcher.expect("lobby")
    c.proc.send_signal(signal.SIGKILL)
    started = time.monotonic()
    assert watcher.expect("lobby", timeout=5)["gone"] == [lost]
    assert time.monotonic() - started < 5


def _clocked_pair(a: ServerProcess, b: ServerProcess, clock=CLOCK) -> tuple[Client, Client]:
    first, second = Client(a.ws_url), Client(b.ws_url)
    seek(first, clock=clock, side="south")
    second.send(t="seek", game="kalah", options={"seeds": 4}, clock=clock)
    p2 = second.expect("paired")
    p1 = first.expect("paired")
    assert p1["clock"] == clock
    return join_paired(a.ws_url, p1), join_paired(b.ws_url, p2)


def test_a_side_that_stops_moving_loses_on_time_while_nobody_sends_anything(lobby_nodes) -> None:
    a, b = lobby_nodes(2)
    south, north = _clocked_pair(a, b)
    state = south.state
    assert state["clock"] == {
        "initial_ms": 2000, "increment_ms": 0, "remaining": [2000, 2000], "running": None,
        "abort_ms": state["clock"]["abort_ms"],
    }  # fmt: skip
    south.move("a")  # no extra turn: North's turn
    north.wait_state(lambda s: s["to_move"] == 1)
    north.move(north.state["legal"][0]["move"])
    running = south.wait_state(lambda s: s["plies"] == 2)
    assert running["clock"]["running"] == 0 and "abort_ms" not in running["clock"]
    # A flag before each side has made two moves aborts the game (fair play): play them.
    slow = opening({0: south, 1: north}, made=(1, 1))["to_move"]
    started = time.monotonic()
    for player in (south, north):  # nobody sends anything now
        over = player.wait_state(lambda s: s["outcome"] is not None, timeout=6)
        assert over["adjudication"] == "timeout" and over["outcome"]["winner"] == 1 - slow
        assert over["clock"]["remaining"][slow] == 0 and over["clock"]["running"] is None
    assert time.monotonic() - started < 4


def test_a_reconnect_mid_game_shows_the_clocks_as_they_run(lobby_nodes) -> None:
    a, b = lobby_nodes(2)
    clock = {"initial_ms": 60000, "increment_ms": 1000}
    south, north = _clocked_pair(a, b, clock)
    south.move("a")
    north.wait_state(lambda s: s["to_move"] == 1)
    north.move(north.state["legal"][0]["move"])
    south.wait_state(lambda s: s["plies"] == 2)
    time.sleep(1.5)  # South's clock runs
    token, room = south.token, south.room
    south.close()
    back = Client(b.ws_url, room, token)
    back.join()
    shown = back.state["clock"]
    assert (
        shown["running"] == 0 and shown["remaining"][1] == 60000
    )  # no increment before clocks run
    assert 57500 <= shown["remaining"][0] <= 58700
    spectator = Client(a.ws_url, room)  # a spectator sees the same clocks
    spectator.join()
    assert spectator.sides == [] and spectator.state["clock"]["running"] == 0
    assert abs(spectator.state["clock"]["remaining"][0] - shown["remaining"][0]) < 1000


def test_a_game_whose_first_move_does_not_come_is_aborted(lobby_nodes) -> None:
    a, b = lobby_nodes(2, NYUMBA_ABORT_MS="1500")
    south, north = _clocked_pair(a, b)
    for player in (south, north):
        over = player.wait_state(lambda s: s["outcome"] is not None, timeout=5)
        assert over["adjudication"] == "aborted" and over["outcome"]["winner"] is None
        assert over["archive"] is None


async def _race_seeker(url: str, n: int, results: list) -> None:
    async with websockets.connect(url, open_timeout=30, max_size=2**22) as ws:
        await ws.send(json.dumps({"t": "seek", "game": "oware", "clock": CLOCK, "id": f"s{n}"}))
        seek_id = None
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg["t"] == "seeking":
                seek_id = msg["seek"]
            elif msg["t"] == "paired":
                results.append((n, msg["seek"], msg["room"], msg["side"]))
                # Anything more for this socket would be a second pairing: wait a moment for it.
                try:
                    extra = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                    results.append((n, "extra", extra.get("t"), seek_id))
                except TimeoutError:
                    pass
                return
            elif msg["t"] == "error":
                results.append((n, "error", msg["code"], msg["message"]))
                return


def test_a_race_of_1000_seekers_on_three_nodes_pairs_each_once_and_loses_none(lobby_nodes) -> None:
    servers = lobby_nodes(3)
    results: list = []

    async def race() -> None:
        await asyncio.gather(
            *(_race_seeker(servers[n % 3].ws_url, n, results) for n in range(1000))
        )

    asyncio.run(race())
    assert not [r for r in results if r[1] in ("extra", "error")]
    assert sorted(r[0] for r in results) == list(range(1000))  # each paired exactly once
    rooms: dict[str, list[int]] = {}
    for _, _, room, side in results:
        rooms.setdefault(room, []).append(side)
    assert len(rooms) == 500 and all(sorted(s) == [0, 1] for s in rooms.values())


def test_two_players_on_two_workers_of_one_server_pair_and_finish_a_game(tmp_path, key_prefix):
    server = ServerProcess(
        redis_url=None,
        data_dir=tmp_path / "workers",
        env={"NYUMBA_WORKERS": "2", "NYUMBA_KEY_PREFIX": key_prefix + "lobbyw:"},
    ).start()
    try:
        first = Client(server.ws_url)
        on = first.ws.response.headers["x-nyumba-node"].split("-")[0]
        for _ in range(200):
            second = Client(server.ws_url)
            if second.ws.response.headers["x-nyumba-node"].split("-")[0] != on:
                break
            second.close()
        else:
            raise AssertionError("every socket landed on the same worker")
        seek(first, clock={"initial_ms": 120000, "increment_ms": 1000})
        second.send(
            t="seek",
            game="kalah",
            options={"seeds": 4},
            clock=CLOCK | {"initial_ms": 120000, "increment_ms": 1000},
        )
        p2, p1 = second.expect("paired"), first.expect("paired")
        assert p1["room"] == p2["room"] and {p1["side"], p2["side"]} == {0, 1}
        players = {p["side"]: join_paired(server.ws_url, p) for p in (p1, p2)}
        final = play_out(players, random.Random(9))
        assert final["outcome"] is not None and final["clock"]["running"] is None
    finally:
        server.stop(kill=True)


def test_two_example_lobby_bots_find_each_other_and_play_a_game_out(lobby_nodes) -> None:
    import subprocess
    import sys
    from pathlib import Path

    a, b = lobby_nodes(2)
    bot = Path(__file__).resolve().parents[3] / "examples" / "lobby_bot.py"
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                str(bot),
                server.url,
                "--game",
                "kalah",
                "--clock",
                "2+1",
                "--name",
                f"Bot{i}",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i, server in enumerate((a, b))
    ]
    outs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs
    assert all("paired" in out and "over:" in out for out in outs)


def test_identified_players_play_a_rated_lobby_game_and_their_ratings_show_in_the_lobby(
    lobby_nodes,
):
    from archivekit import Player, wait_archived

    (node,) = lobby_nodes(1)
    asha, juma = Player(node.url, "Asha"), Player(node.url, "Juma")
    anon = Client(node.ws_url)
    clock = {"initial_ms": 60000, "increment_ms": 0}  # a rated seek needs one
    anon.send(t="seek", game="kalah", options={"seeds": 4}, rated=True, clock=clock)
    assert anon.expect("error")["code"] == "not-identified"  # only an identified player's
    first, second = (
        Client(node.ws_url, headers=asha.cookie),
        Client(node.ws_url, headers=juma.cookie),
    )
    seek(first, rated=True, side="south", clock={"initial_ms": 60000, "increment_ms": 0})
    second.send(
        t="seek",
        game="kalah",
        options={"seeds": 4},
        rated=True,
        clock={"initial_ms": 60000, "increment_ms": 0},
    )
    p2, p1 = second.expect("paired"), first.expect("paired")
    assert p1["rated"] and p2["rated"]
    south = Client(node.ws_url, p1["room"], p1["token"], headers=asha.cookie)
    south.join()
    assert (
        south.state["seats"][0]["player"] == asha.id
        and south.state["seats"][1]["player"] == juma.id
    )
    north = Client(node.ws_url, p2["room"], p2["token"], headers=juma.cookie)
    north.join()
    opening({0: south, 1: north})  # a result needs two moves by each side (fair play)
    south.send(t="resign", room=p1["room"], id="r1")
    over = south.wait_state(lambda s: s["outcome"] is not None)
    wait_archived(node.url, over["archive"])
    deadline = time.monotonic() + 20
    while True:  # the ratings are written with the game
        again = Client(node.ws_url, headers=juma.cookie)
        seek(again, rated=True, clock=clock)
        watcher = Client(node.ws_url)
        watcher.send(t="lobby")
        listed = watcher.expect("lobby")["seeks"]
        if listed and listed[0]["rating"] is not None:
            break
        assert time.monotonic() < deadline, listed
        again.close()
        watcher.close()
        time.sleep(0.3)
    assert (
        listed[0]["player"] == juma.id and listed[0]["rating"] > 1500 and listed[0]["provisional"]
    )
