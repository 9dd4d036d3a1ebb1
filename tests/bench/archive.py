"""Archive benchmark: finished games written per second, and what the archive costs a move.

    python tests/bench/archive.py [--games 400] [--concurrency 40] [--databases sqlite,postgresql]
                                  [--base DIR] [--rooms 1000] [--rate 1] [--seconds 20] [--rounds 3]

1. **Games written per second.** One node (embedded Valkey) and its archive — the embedded
   SQLite file, and PostgreSQL (the machine's at 127.0.0.1:5432, in a schema of the bench's own,
   dropped afterwards). ``--games`` rated friend games between identified players end by a
   resignation, ``--concurrency`` at a time; the figure is games over the wall time from the
   first game's start until the node has written the last (``nyumba_archived_games_total``),
   each game's record made in the replay pool and its ratings updated in its transaction.
2. **A move's p99 with the archive on.** ``tests/bench/load.py``'s harness, ``--rate`` moves a
   second in each of ``--rooms`` rooms (games end and new rooms open at a steady rate, so the
   archive writes all the while), run against this checkout's commit with the archive on and
   the same commit with it off, interleaved for ``--rounds``: the same run's ratio of their
   p99s. Both are exported with ``git archive HEAD`` (so an edit during the run changes
   neither); "off" is that export with ``Archiver.ended`` and ``Archiver.sweep`` returning at
   once (``archive_off``): games still end, their rooms still carry them, nothing is written.
   ``--base DIR`` compares against another checkout instead. A copy of the baseline runs in
   the same rounds and its ratio to the baseline is printed too: the noise floor.

Runs are bounded in time and stop by themselves; everything listens on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE.parent), str(HERE)]

from archivekit import archived_counts  # noqa: E402
from pgkit import own_schema, postgres_url  # noqa: E402
from rawws import RawSocket  # noqa: E402
from serverproc import ServerProcess  # noqa: E402


async def one_game(http: httpx.AsyncClient, base: str, ws_url: str, cookies: list[str]) -> None:
    """A rated friend game between two players that South resigns at once."""
    r = await http.post(
        base + "/api/rooms",
        json={"game": "kalah", "mode": "friend", "rated": True, "clock": {"initial_ms": 600_000}},
        headers={"cookie": f"nyumba_player={cookies[0]}"},
    )
    room = r.json()
    over = asyncio.get_running_loop().create_future()
    seated = [asyncio.get_running_loop().create_future() for _ in range(2)]

    def watch(i: int):
        def on(msg) -> None:
            if msg.t == "state":
                if not seated[i].done():
                    seated[i].set_result(None)
                if msg.outcome is not None and not over.done():
                    over.set_result(None)

        return on

    socks = []
    for side, token in ((0, room["token"]), (1, None)):
        ws = await RawSocket.connect(
            ws_url, watch(side), headers={"cookie": f"nyumba_player={cookies[side]}"}
        )
        ws.send({"t": "join", "room": room["room"], "token": token})
        socks.append(ws)
    await asyncio.wait_for(asyncio.gather(*seated), 30)
    socks[0].send({"t": "resign", "room": room["room"], "id": "r"})
    await asyncio.wait_for(over, 30)
    for ws in socks:
        await ws.close()


async def write_rate(node: ServerProcess, games: int, concurrency: int) -> float:
    async with httpx.AsyncClient(timeout=60) as http:
        cookies = []
        for _ in range(2 * concurrency):
            r = await http.post(node.url + "/api/me")
            cookies.append(r.cookies["nyumba_player"])
            http.cookies.clear()  # the next one is another browser
        before = archived_counts(node.url).get("written", 0)
        started = time.perf_counter()
        todo = iter(range(games))

        async def worker(k: int) -> None:
            for _ in todo:
                await one_game(http, node.url, node.ws_url, cookies[2 * k : 2 * k + 2])

        await asyncio.gather(*(worker(k) for k in range(concurrency)))
        played = time.perf_counter() - started
        while archived_counts(node.url).get("written", 0) - before < games:
            if time.perf_counter() - started > 300:
                raise TimeoutError("the archive did not catch up in 5 minutes")
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - started
        print(f"  played in {played:.1f} s, all written {elapsed - played:.2f} s later", flush=True)
        return games / elapsed


async def layer_rate(url: str, games: int, concurrency: int) -> float:
    """The archive layer alone, in this process: rated games (records made beforehand) written
    by ``concurrency`` writers at once, each in its transaction with its ratings."""
    import msgspec

    from server.archive import games as archive_games
    from server.archive import players
    from server.archive.db import Database
    from server.rooms import judge as J
    from server.rooms import protocol as P
    from server.rooms import room as R
    from server.rooms.finished import record_text

    db = Database(url)
    await db.start()
    now = int(time.time() * 1000)
    pairs = []
    for _ in range(concurrency):
        a, _ = await players.create(db, now)
        b, _ = await players.create(db, now)
        pairs.append((a.id, b.id))
    entries = []
    for i in range(games):
        room, _, _ = R.create(f"bench-{now}-{i}", "kalah", {}, "friend", "south", "beginner", now)
        a, b = pairs[i % concurrency]
        seats = [
            R.SeatRec("person", "t0", None, now, None, a),
            R.SeatRec("person", "t1", None, now, None, b),
        ]
        room = msgspec.structs.replace(room, seats=seats, rated=True)
        done = J.judge(
            room, P.Resign(room=room.id, id="r"), R.Context(sides=[0], who="k", now_ms=now)
        )
        entry = done.room.waiting[0]
        entries.append((entry, record_text(msgspec.msgpack.encode(entry))))
    started = time.perf_counter()
    todo = iter(entries)

    async def writer() -> None:
        for entry, record in todo:
            await archive_games.write(db, entry, record, now)

    await asyncio.gather(*(writer() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    await db.close()
    return games / elapsed


def exported(tmp: Path, name: str) -> Path:
    """This checkout's commit, exported to ``tmp/name`` (no worktree is registered)."""
    out = tmp / name
    out.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    return out


OFF = "        return  # the bench's archive off: nothing is written\n"


def archive_off(tree: Path) -> Path:
    """``tree`` with the node's archive writer doing nothing (a bench-only edit of the export)."""
    path = tree / "server" / "live" / "archiving.py"
    text = path.read_text()
    for head in (
        '''        """``room`` was just stored with a game that waits for the archive."""\n''',
        "    async def sweep(self) -> None:\n",
    ):
        if head not in text:
            raise SystemExit(f"archive_off: {head.strip()!r} not found in {path}")
        text = text.replace(head, head + OFF)
    path.write_text(text)
    return tree


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=40)
    ap.add_argument("--databases", default="sqlite,postgresql")
    ap.add_argument("--base", help="another checkout to compare with (default: HEAD, archive off)")
    ap.add_argument("--rooms", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-writes", action="store_true")
    ap.add_argument("--skip-latency", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nyumba-archive-bench-"))

    if not args.skip_writes:
        print("=== games written per second", flush=True)
        for kind in args.databases.split(","):
            with postgres_url(tmp) as pg:
                url = None
                stack = None
                if kind == "postgresql":
                    stack = own_schema(pg)
                    url = stack.__enter__()
                env = {"DATABASE_URL": url} if url else {}
                node = ServerProcess(redis_url=None, data_dir=tmp / f"w-{kind}", env=env).start()
                try:
                    rate = asyncio.run(write_rate(node, args.games, args.concurrency))
                    print(
                        f"{kind}: {args.games} games, {args.concurrency} at a time: "
                        f"{rate:.0f} games/s written (rated, with their records and ratings)",
                        flush=True,
                    )
                    layer = asyncio.run(
                        layer_rate(url or f"sqlite:///{tmp / 'layer.sqlite3'}", args.games, 8)
                    )
                    print(f"{kind}: the archive layer alone, 8 writers: {layer:.0f} games/s")
                finally:
                    node.stop()
                    if stack is not None:
                        stack.__exit__(None, None, None)

    if not args.skip_latency:
        print("=== a move's p99 with the archive on (load.py, same run)", flush=True)
        if args.base:
            base, this = Path(args.base), ROOT
        else:
            base, this = archive_off(exported(tmp, "off")), exported(tmp, "on")
            print(f"archive off: {base}; on: {this} (both HEAD)", flush=True)
        # The noise floor: a second copy of the baseline in the same rounds. A p99 over 20 s
        # moves by a fifth between two runs of one tree; the archive's ratio means something
        # only beside the baseline's ratio to itself.
        again = Path(shutil.copytree(base, tmp / "again", ignore=shutil.ignore_patterns(".venv")))
        command = [
            sys.executable,
            str(HERE / "load.py"),
            "--roots",
            f"{base},{this},{again}",
            "--rooms",
            str(args.rooms),
            "--rate",
            str(args.rate),
            "--seconds",
            str(args.seconds),
            "--rounds",
            str(args.rounds),
        ]
        print(" ".join(command), flush=True)
        run = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env={**os.environ})
        assert run.stdout is not None
        p99s: dict[str, list[float]] = {}
        root = ""
        for line in run.stdout:
            print(line, end="", flush=True)
            if line.startswith("--- round"):
                root = line.split("root=", 1)[1].split(" ", 1)[0]
            elif line.startswith("move round trip ms:"):
                p99s.setdefault(root, []).append(float(line.split("p99 ", 1)[1].split()[0]))
        if run.wait() != 0:
            raise SystemExit(run.returncode)
        base_p99 = p99s.get(str(base), [])
        for what, tree in (("archive on / without it", this), ("without it, again / once", again)):
            ratios = sorted(t / b for t, b in zip(p99s.get(str(tree), []), base_p99) if b)
            if ratios:
                print(
                    f"=== move p99, {what}, same round: "
                    + " ".join(f"{r:.2f}" for r in ratios)
                    + f"  (median {ratios[len(ratios) // 2]:.2f})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
