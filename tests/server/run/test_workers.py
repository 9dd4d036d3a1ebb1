"""``nyumba serve --workers 2``: two node processes on one port, one embedded store.

Which worker served a socket: the handshake's ``x-nyumba-node`` header
(``w<index>-...``); which process answers ``/healthz``: its ``worker`` and ``pid``.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from serverproc import ServerProcess
from websockets.exceptions import ConnectionClosed
from wsclient import Client, create_room


def worker_of(client: Client) -> str:
    return client.ws.response.headers["x-nyumba-node"].split("-")[0]


def socket_on(server: ServerProcess, other_than: str | None = None, want: str | None = None):
    """A new socket on a worker other than ``other_than`` (or on ``want``); the
    kernel hands each connection to whichever worker accepts first, so try a few."""
    for _ in range(200):
        client = Client(server.ws_url)
        worker = worker_of(client)
        if (other_than is None or worker != other_than) and (want is None or worker == want):
            return client
        client.close()
    raise AssertionError("every socket landed on the same worker")


def worker_pids(server: ServerProcess) -> dict[int, int]:
    """worker index -> pid, from /healthz (each request lands on either worker)."""
    seen: dict[int, int] = {}
    deadline = time.monotonic() + 30
    while len(seen) < 2 and time.monotonic() < deadline:
        try:
            body = httpx.get(server.url + "/healthz", timeout=2).json()
        except httpx.HTTPError:
            time.sleep(0.1)
            continue
        seen[body["worker"]] = body["pid"]
    assert len(seen) == 2, seen
    return seen


def children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out |= {int(p) for p in (task / "children").read_text().split()}
    return out


def alive(pid: int) -> bool:
    try:  # a zombie is dead, whether or not its new parent has reaped it yet
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.fixture
def two_workers(tmp_path, key_prefix):
    server = ServerProcess(
        redis_url=None,  # the supervisor starts the embedded Valkey, once
        data_dir=tmp_path,
        env={"NYUMBA_KEY_PREFIX": key_prefix + "workers:", "NYUMBA_WORKERS": "2"},
    ).start()
    yield server
    server.stop(kill=True)


def play_one(mover: Client, watcher: Client) -> None:
    """The side to move plays its first legal move; the other side sees it."""
    before = mover.state["version"]
    mover.move(mover.state["legal"][0]["move"])
    mover.wait_state(lambda s: s["version"] == before + 1)
    watcher.wait_state(lambda s: s["version"] == before + 1)


def test_a_friend_game_across_two_workers_survives_one_being_killed(two_workers):
    server = two_workers
    supervisor = server.proc.pid
    pids = worker_pids(server)
    assert set(children(supervisor)) >= set(pids.values())
    valkeys = [p for p in children(supervisor) if "valkey" in command(p)]
    assert len(valkeys) == 1  # one store, started by the supervisor, not one per worker

    r = create_room(server.url, mode="friend", side="south")
    south = socket_on(server)
    south.join(r["room"], r["token"])
    north = socket_on(server, other_than=worker_of(south))
    north.join(r["room"])
    assert south.sides == [0] and north.sides == [1]
    play_one(south, north)  # South's move reaches North on the other worker
    while north.state["to_move"] != 1:
        play_one(south, north)
    play_one(north, south)
    version = south.state["version"]

    # SIGKILL South's worker: the supervisor starts it again; South reconnects and resumes.
    index = int(worker_of(south)[1:])
    left_behind = children(pids[index])  # its replay processes
    os.kill(pids[index], signal.SIGKILL)
    with pytest.raises((ConnectionClosed, TimeoutError)):
        south.expect("state", timeout=10, version=-1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = worker_pids(server)
        if now[index] != pids[index]:
            break
        time.sleep(0.2)
    assert now[index] != pids[index], "the killed worker was not started again"
    assert now[1 - index] == pids[1 - index]  # the other worker served on meanwhile
    assert server.proc.poll() is None
    assert not [p for p in left_behind if alive(p)]  # ended with it

    back = socket_on(server, want=f"w{index}")  # the new worker serves the old seat
    back.join(r["room"], r["token"])
    assert back.sides == [0] and back.state["version"] == version
    mover, watcher = (back, north) if back.state["to_move"] == 0 else (north, back)
    play_one(mover, watcher)
    for c in (back, north):
        c.close()


def test_sigterm_drains_both_workers_and_the_server_exits_0(two_workers):
    server = two_workers
    pids = worker_pids(server)
    supervisor = server.proc.pid
    r = create_room(server.url, mode="friend", side="south")
    south = socket_on(server)
    south.join(r["room"], r["token"])
    north = socket_on(server, other_than=worker_of(south))
    north.join(r["room"])

    server.proc.send_signal(signal.SIGTERM)
    for c in (south, north):  # each worker closes its sockets as it drains
        with pytest.raises(ConnectionClosed) as closed:
            c.expect("state", timeout=15, version=-1)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012  # restarting
    assert server.proc.wait(30) == 0
    for pid in (*pids.values(), supervisor):
        assert not alive(pid) or "server.run.cli" not in command(pid)


def test_computer_seats_on_two_workers_share_the_supervisors_computer(two_workers):
    server = two_workers
    supervisor = server.proc.pid
    pids = worker_pids(server)
    for index in (0, 1):  # a computer room on each worker
        r = create_room(server.url, mode="computer", side="south", level="beginner")
        you = socket_on(server, want=f"w{index}")
        you.join(r["room"], r["token"])
        computer_moved = False
        for _ in range(20):  # play until the computer has answered
            st = you.wait_state(lambda s: s["to_move"] == 0 or s["outcome"] is not None, 30)
            if st["last"] is not None and st["last"]["side"] == 1:
                computer_moved = True
                break
            if st["outcome"] is not None:
                break
            you.move(st["legal"][0]["move"])
            you.wait_state(lambda s, v=st["version"]: s["version"] > v)
        assert computer_moved
        you.close()
    thinkers = [p for p in children(supervisor) if "server.computer.thinker" in command(p)]
    assert 1 <= len(thinkers) <= 2  # the machine's seat and hint processes, not two per worker
    for pid in pids.values():
        assert not [p for p in children(pid) if "server.computer.thinker" in command(p)]


def test_analyses_on_either_worker_run_on_the_supervisors_one_thinker(two_workers):
    """Post-game analyses asked of both workers are thought out by one analysis process, the
    supervisor's (not one per worker)."""
    from analysiskit import record, wait_done

    server = two_workers
    supervisor = server.proc.pid
    pids = worker_pids(server)
    served: set[int] = set()
    keys = []
    for n in range(40):  # each request on a new connection: either worker may take it
        if len(served) == 2 and len(keys) >= 2:
            break
        with httpx.Client(timeout=30) as http:
            worker = http.get(server.url + "/healthz").json()["worker"]
            if worker in served and len(served) < 2:
                continue
            r = http.post(
                server.url + "/api/analysis",
                content=record("kalah", 6, n, seeds=3),
                headers={"X-Forwarded-For": f"10.7.0.{n}", "content-type": "application/json"},
            )
        assert r.status_code == 202, r.text
        served.add(worker)
        keys.append(r.json()["key"])
    assert served == {0, 1}
    for key in keys:
        wait_done(server.url, key)
    thinkers = [p for p in children(supervisor) if "server.computer.thinker" in command(p)]
    assert 1 <= len(thinkers) <= 3  # seats, hints, analysis: the machine's, once
    for pid in pids.values():
        assert not [p for p in children(pid) if "server.computer.thinker" in command(p)]
