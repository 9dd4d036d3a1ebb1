"""What one game costs in bytes, phase by phase: a friend Kalah room created, joined by two
players, played to its end with random legal moves, archived, and left.

    python tests/bench/move_bytes.py [--roots DIR@full,DIR@moves] [--games 3]

For each root (this checkout by default; ``DIR@moves`` makes the players join with
``states: "moves"``, ``DIR@full`` without it) it starts one ``nyumba serve`` on an embedded
Valkey of its own and prints, per phase, the bytes the store read from its clients
(``total_net_input_bytes``) and the bytes the server's processes wrote (``wchar``: sockets
and files, the archive's SQLite included), and per move for the moves alone. ``load.py``
counts every phase together, divided by the moves; this tells which phase the bytes come
from. Presence ticks are slowed to one a minute so that they do not fall in a phase.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
import redis  # noqa: E402
from load import tree_pids, wchar  # noqa: E402
from serverproc import ServerProcess  # noqa: E402
from wsclient import Client, create_room  # noqa: E402

from server.run.cli import embedded_valkey  # noqa: E402

PHASES = ("create", "joins", "moves", "archive", "leave")


def join(srv: ServerProcess, room: str, token: str | None, states: str) -> Client:
    c = Client(srv.ws_url)
    extra = {"states": "moves"} if states == "moves" else {}
    c.send(t="join", room=room, token=token, acks="state", **extra)
    c.sides = c.expect("welcome")["sides"]
    c.expect("state")
    return c


def play(cs: list[Client], room: str, rng: random.Random) -> int:
    """Random legal moves to the game's end; the number of moves."""
    st, moves = cs[0].state, 0
    while st["to_move"] is not None and not st.get("outcome"):
        mover = cs[0] if st["to_move"] in cs[0].sides else cs[1]
        v = st["version"]
        move = rng.choice(st["legal"])["move"]
        mover.send(t="move", room=room, version=v, move=move, id=f"i{v}")
        for c in cs:
            while True:
                m = json.loads(c.ws.recv(timeout=10))
                if m["t"] in ("state", "moved") and m["version"] == v + 1:
                    break
        moves += 1
        if m["t"] == "state":
            st = m
        else:  # what the bench needs of it: whose turn, what is legal
            st = {**st, "version": m["version"], "to_move": m.get("to_move")}
            st["legal"] = [{"move": x if isinstance(x, str) else x[0]} for x in m.get("legal", [])]
            st["outcome"] = m.get("outcome")
    return moves


def game(srv: ServerProcess, db: redis.Redis, states: str, seed: int) -> dict[str, tuple]:
    def mark() -> tuple[int, int]:
        written = sum(wchar(p) for p in tree_pids(srv.proc.pid))
        return int(db.info("stats")["total_net_input_bytes"]), written

    out: dict[str, tuple] = {}
    before = mark()

    def phase(name: str, settle: float = 0.0) -> None:
        nonlocal before
        time.sleep(settle)
        now = mark()
        out[name] = (now[0] - before[0], now[1] - before[1])
        before = now

    r = create_room(srv.url, "kalah", mode="friend", side="south")
    phase("create")
    cs = [join(srv, r["room"], r["token"], states), join(srv, r["room"], None, states)]
    for c in cs:
        c.drain(0.5)
    phase("joins")
    out["plies"] = (play(cs, r["room"], random.Random(seed)),)
    phase("moves")
    phase("archive", 2.0)
    for c in cs:
        c.close()
    phase("leave", 1.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--roots", default="", help="DIR@full|moves,… (default: this checkout, moves)")
    ap.add_argument("--games", type=int, default=3)
    args = ap.parse_args()
    roots = [s.partition("@") for s in args.roots.split(",") if s] or [("", "", "moves")]
    tmp = Path(tempfile.mkdtemp(prefix="move-bytes-"))
    for i, (root, _, states) in enumerate(roots):
        with embedded_valkey(tmp / f"valkey{i}") as url:
            extra = {"root": Path(root).resolve()} if root else {}
            env = {"NYUMBA_TICK_MS": "60000", "NYUMBA_PRESENCE_TTL_MS": "120000"}
            srv = ServerProcess(redis_url=url, data_dir=tmp / f"node{i}", env=env, **extra)
            srv.start()
            try:
                db = redis.Redis.from_url(url)
                games = [game(srv, db, states or "full", seed) for seed in range(args.games)]
            finally:
                srv.stop()
        plies = sum(g["plies"][0] for g in games)
        print(
            f"--- {root or 'this checkout'} states={states or 'full'}: {args.games} games, "
            f"{plies} moves"
        )
        for name in PHASES:
            store = sum(g[name][0] for g in games)
            written = sum(g[name][1] for g in games)
            line = f"{name:8s} store {store / args.games:8.0f} B/game  written {written / args.games:8.0f} B/game"
            if name == "moves":
                line += (
                    f"  = store {store / plies:5.0f} B/move, written {written / plies:5.0f} B/move"
                )
            print(line)
        store = sum(g[n][0] for g in games for n in PHASES)
        written = sum(g[n][1] for g in games for n in PHASES)
        print(f"all      store {store / plies:5.0f} B/move, written {written / plies:5.0f} B/move")


if __name__ == "__main__":
    main()
