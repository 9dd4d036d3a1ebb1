"""``states: "moves"``: a move reaches such a connection as ``moved`` (what it changed),
and the state a client rebuilds from it is the state a whole-state connection gets, on
one node and across nodes (PROTOCOL.md, "Moves, lighter")."""

from __future__ import annotations

import json
import random

import pytest
from serverproc import ServerProcess
from wsclient import Client, create_room

# What a state carries that a move changes (seats, watchers and the position text are
# the previous state's: a ``moved`` does not carry them).
COMPARED = ("version", "board", "to_move", "legal", "last", "outcome", "adjudication", "plies")


def expand_step(row: list, mover: int) -> dict:
    full = list(row) + [None, 0, None, None, None][len(row) - 1 :]
    full[4] = mover if full[4] is None else None if full[4] == -1 else full[4]
    step = {"kind": full[0], "pit": full[1], "seeds": full[2] or 0, "to": full[3]}
    step.update({"player": full[4], "note": full[5]})
    # the state's steps omit their empty fields (engine.core.Step, omit_defaults)
    return {k: v for k, v in step.items() if v is not None and (k != "seeds" or v)}


def apply_moved(prev: dict, m: dict) -> dict:
    """What client/moved.js does, restated: the previous state with the move applied."""
    board = dict(prev["board"])
    for key, value in m["board"].items():
        old = board.get(key)
        board[key] = (
            {**old, **value} if isinstance(value, dict) and isinstance(old, dict) else value
        )
    legal = [
        {"move": c, "pit": c, "choice": ""}
        if isinstance(c, str)
        else dict(zip(("move", "pit", "choice"), c))
        for c in m.get("legal", [])
    ]
    last = {
        "move": m["move"],
        "side": prev["to_move"],
        "steps": [expand_step(s, prev["to_move"]) for s in m["steps"]],
    }
    last["id"] = m.get("id")
    return {
        **prev,
        "version": m["version"],
        "board": board,
        "to_move": m.get("to_move"),
        "legal": legal,
        "last": last,
        "outcome": m.get("outcome"),
        "adjudication": m.get("adjudication"),
        "archive": m.get("archive"),
        "offer": None,
        "plies": prev["plies"] + 1,
        "clock": m.get("clock", prev.get("clock")),
    }


def join(url: str, room: str, token: str | None, states: str | None) -> Client:
    c = Client(url, room, token)
    extra = {} if states is None else {"states": states}
    c.send(t="join", room=room, token=token, acks="state", **extra)
    welcome = c.expect("welcome")
    c.sides, c.token = welcome["sides"], welcome.get("token") or token
    c.expect("state")
    c.raw = []  # type: ignore[attr-defined]
    return c


def next_view(c: Client, version: int) -> dict:
    """Read until the connection holds ``version``, applying ``moved`` as a client does."""
    while c.state["version"] < version:
        raw = c.ws.recv(timeout=10)
        c.raw.append(raw)
        m = json.loads(raw)
        if m["t"] == "moved":
            assert m["version"] == c.state["version"] + 1
            c.state = apply_moved(c.state, m)
        elif m["t"] == "state":
            c.state = m
    return c.state


def same(a: dict, b: dict) -> None:
    for key in COMPARED:
        x, y = a.get(key), b.get(key)
        if key == "last" and x and y:  # the intent id: only the mover's own view has it
            x, y = {**x, "id": None}, {**y, "id": None}
        assert x == y, (key, x, y)


def play(servers: list, game: str, plies: int, seed: int, clock: dict | None = None) -> None:
    urls = [s.ws_url for s in servers]
    timed = {} if clock is None else {"clock": clock}
    r = create_room(servers[0].url, game, mode="friend", side="south", **timed)
    south = join(urls[0], r["room"], r["token"], "moves")
    north = join(urls[-1], r["room"], None, None)  # an old client: whole states
    watcher = join(urls[1 % len(urls)], r["room"], None, "moves")
    rng = random.Random(seed)
    moved_bytes = state_bytes = 0
    for _ in range(plies):
        s = south.state
        if s["outcome"] is not None:
            break
        mover = south if s["to_move"] in south.sides else north
        choice = rng.choice(s["legal"])["move"]
        intent = mover.move(choice, version=s["version"], id=f"i{s['version']}")
        v = s["version"] + 1
        views = [next_view(c, v) for c in (south, north, watcher)]
        same(views[0], views[1])
        same(views[2], views[1])
        if clock is not None:  # the moves' clocks are the ones a whole state shows
            moves_clock, whole_clock = views[0]["clock"], views[1]["clock"]
            assert moves_clock == views[2]["clock"]  # both read the same moved
            assert moves_clock["running"] == whole_clock["running"]
            # a whole state made later (read from the store on a busy node) shows the running
            # side's time as it has run on since; the other side's is the same
            for side, (a, b) in enumerate(zip(moves_clock["remaining"], whole_clock["remaining"])):
                assert 0 <= a - b <= (2000 if side == moves_clock["running"] else 0), views
        assert north.state["last"]["id"] == intent  # whole states carry the id as before
        own = json.loads(south.raw[-1])
        if own["t"] == "moved":
            assert own.get("id") == (intent if mover is south else None)
            moved_bytes, state_bytes = (
                moved_bytes + len(south.raw[-1]),
                state_bytes + len(json.dumps(north.state, separators=(",", ":"))),
            )
        assert "id" not in json.loads(watcher.raw[-1])
        if clock is not None and own["t"] == "moved":
            assert "clock" in own
    assert moved_bytes and moved_bytes * 3 < state_bytes  # far lighter than whole states
    fresh = join(urls[0], r["room"], None, None)  # the store's state, drawn anew
    same(south.state, fresh.state)
    same(north.state, fresh.state)
    assert north.state["position"] == fresh.state["position"]
    for c in (south, north, watcher, fresh):
        c.close()


@pytest.mark.parametrize("game", ["kalah", "oware", "bao-kiswahili"])
def test_moves_rebuild_the_states_that_whole_state_clients_get(server, game):
    play([server], game, 40, 7)


def test_a_clocked_rooms_moves_carry_the_clocks(server):
    play([server], "kalah", 12, 5, clock={"initial_ms": 300_000, "increment_ms": 2000})


def test_moved_is_declared_and_join_refuses_other_states(server):
    r = create_room(server.url, mode="friend", side="south")
    c = Client(server.ws_url, r["room"], r["token"])
    c.send(t="join", room=r["room"], token=r["token"], states="diffs")
    assert c.expect("error")["code"] == "bad-message"
    c.close()
    from server.rooms import protocol as P

    assert "Moved" in P.schema()["$defs"]


def test_moves_across_nodes(shared_store, tmp_path, key_prefix):
    nodes = [
        ServerProcess(
            redis_url=shared_store,
            data_dir=tmp_path / f"node{i}",
            env={"NYUMBA_KEY_PREFIX": key_prefix + "moved:"},
        ).start()
        for i in range(2)
    ]
    try:
        play(nodes, "kalah", 30, 11)
    finally:
        for n in nodes:
            n.stop()
