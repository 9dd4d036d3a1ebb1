"""Load benchmark: N rooms x 2 sockets playing random legal Kalah games.

    python tests/bench/load.py [--rooms 200] [--rate 0] [--seconds 10] [--nodes 1]
                               [--idle 2000] [--computer-rooms 10 [--level L]] [--analyses 0,4]
                               [--timeline] [--redis-url URL ...] [--env NAME=VALUE]
                               [--workers 1,2] [--roots DIR,DIR] [--rounds R] [--clocks 0,MS]
                               [--server-cpus 0-1] [--generator-cpus 1] [--store-cpus 1]

``--clocks 0,600000`` plays the same rooms without a clock and with one (10 min each side)
in turn, so a round's ratios say what a clock costs a move. ``--workers 1,2`` runs one ``nyumba serve --workers N`` per count instead of
``--nodes`` separate nodes; ``--roots`` runs the servers of other checkouts
(today's main against a change; ``DIR@state`` makes that root's players join
with ``acks: "state"``, ``DIR@state/moves`` also with ``states: "moves"``, as the browser
does: they then take each move as a ``moved`` message); ``--rounds`` repeats every configuration,
interleaved, and ends with each one's median and its ratio to the first
configuration in the same round (the machine is shared: ratios travel, absolute
figures do not). ``--server-cpus``/``--generator-cpus`` pin them (``taskset``).

Starts real ``nyumba serve`` processes (the embedded Valkey, or the Redis at
``--redis-url``/``REDIS_URL``), connects the sockets (a lean client,
``rawws.py``), and plays:

* ``--rate 0``: closed loop — each room's mover sends its next move as soon
  as it has seen the previous state; prints moves/s.
* ``--rate R``: each room makes R moves per second on a schedule, starting at
  a random point of a game (so games end and new rooms open at a steady
  rate); prints the move round trip (send → the new state on the mover's
  socket) p50/p95/p99, and with ``--timeline`` each second's.

Both print the CPU the server, the store and the generator used while playing, the bytes
the server wrote and its write calls (``syscw`` of /proc/PID/io: socket writes and store
commands together) a move. The figures of issue 49 (local fan-out, room affinity, one write a
move; nyumba beside Colyseus and beside main) are reproduced by the commands in
``tests/bench/peers/README.md``, "Issue 49".
``--idle N`` first connects N idle joined sockets and prints the server's
resident memory per socket. ``--computer-rooms N`` also keeps N computer seats
thinking (their person answers at once) and a local room asking for a hint
every second; ``--analyses N`` keeps N post-game analyses running (``background.py``, from a
process of its own). With
``--nodes 2`` the two players of each room sit on different
nodes. Runs are bounded in time and stop by themselves.

Measured on the 2-core development VM (the generator, store and node sharing
it), 1 node + embedded Valkey:

    --rooms 200 (closed loop)              3,626-4,266 moves/s, 0.23-0.27 ms server CPU/move
    --rooms 2000 --rate 1 --seconds 20     p50 0.8-0.9 ms, p99 4.6-8.3 ms
    --rooms 2000 --rate 1 --seconds 60     p99 7.6-13 ms (steady room churn, 0.33-0.35 ms/move)
    --rooms 0 --idle 2000                  26 KiB per idle socket
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis

# tests/ for the helpers; the repository first, so `engine` is the package, not tests/engine
sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from background import AnalysesApart, ask_hints, keep_computer_busy  # noqa: E402
from rawws import Msg, RawSocket, move_of  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

ACK_RTTS: list[float] = []  # send -> ack, seconds


def cpu_s(pid: int) -> float:
    """User+system CPU seconds a process has used (its children excluded)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wchar(pid: int, field: str = "wchar") -> int:
    """Bytes a process has written with write()/send() and the like (sockets included):
    ``wchar`` of /proc/PID/io (``syscw``: how many such calls)."""
    try:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:  # the process is gone
        pass
    return 0


def store_input_bytes(url: str) -> int:
    """Bytes the store has read from its clients (INFO stats total_net_input_bytes): exact on a
    store of the bench's own (the embedded Valkey), shared with other clients on a shared one."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        return int(client.info("stats")["total_net_input_bytes"])
    finally:
        client.close()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Player:
    """One seat's socket: the newest state it has seen, and futures waiting for versions."""

    def __init__(self):
        self.ws: RawSocket | None = None
        self.version = -1
        self.state: Msg | None = None
        self.waiters: dict[int, asyncio.Future] = {}
        self.acked: dict[int, float] = {}  # version -> when its ack came (perf_counter)
        self.ack_waiters: dict[int, asyncio.Future] = {}

    def on_message(self, msg: Msg) -> None:
        if msg.t == "ack":
            self.acked[msg.version] = time.perf_counter()
            fut = self.ack_waiters.pop(msg.version, None)
            if fut is not None and not fut.done():
                fut.set_result(None)
        elif (
            msg.t == "state"
            and msg.version >= self.version
            or (
                msg.t == "moved" and msg.version == self.version + 1  # states "moves": what changed
            )
        ):
            self.version = msg.version
            self.state = msg
            if self.waiters:
                for v in [v for v in self.waiters if v <= self.version]:
                    fut = self.waiters.pop(v)
                    if not fut.done():
                        fut.set_result(msg)

    def wait_version(self, v: int) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        if self.version >= v:
            fut.set_result(self.state)
        else:
            self.waiters[v] = fut
        return fut


JOIN_EXTRA: dict[str, str] = {}  # {"acks": "state"} with --acks state
ROOM_EXTRA: dict[str, object] = {}  # {"clock": {...}} with --clocks (a clocked room's moves)


async def open_room(
    http: httpx.AsyncClient, base: str, ws_urls: list[str], idx: int
) -> tuple[str, list[Player]]:
    for attempt in range(3):
        try:
            r = (await http.post(base + "/api/rooms", json={"game": "kalah", **ROOM_EXTRA})).json()
            break
        except httpx.TransportError:  # a kept-alive connection the server closed as it was reused
            if attempt == 2:
                raise
    if "token" not in r:
        raise RuntimeError(f"room creation refused: {r}")
    players = []
    for side, token in ((0, r["token"]), (1, None)):
        p = Player()
        p.ws = await RawSocket.connect(ws_urls[(idx + side) % len(ws_urls)], p.on_message)
        p.ws.send({"t": "join", "room": r["room"], "token": token, **JOIN_EXTRA})
        players.append(p)
    for p in players:
        await asyncio.wait_for(p.wait_version(0), 60)
    return r["room"], players


async def play_room(
    room: str,
    players: list[Player],
    until: float,
    rate: float,
    rtts: list,
    counter: list,
    rng: random.Random,
    limit: int | None = None,
) -> None:
    period = 1.0 / rate if rate else 0.0
    next_at = time.perf_counter() + (rng.random() * period if period else 0)
    n = 0
    while time.perf_counter() < until and (limit is None or n < limit):
        st = players[0].state if players[0].version >= players[1].version else players[1].state
        if st.outcome is not None:
            return
        if period:
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at += period
        mover = players[st.to_move]
        await mover.wait_version(st.version)
        move = move_of(rng.choice(st.legal))
        n += 1
        t0 = time.perf_counter()
        mover.ws.send(
            {"t": "move", "room": room, "version": st.version, "move": move, "id": f"v{st.version}"}
        )
        try:
            await asyncio.wait_for(mover.wait_version(st.version + 1), 10)
        except TimeoutError:
            print("timeout waiting for a state", file=sys.stderr)
            return
        rtts.append((time.perf_counter() - t0, t0))
        if JOIN_EXTRA.get("acks") == "state" and st.version + 1 not in mover.acked:
            mover.acked[st.version + 1] = time.perf_counter()  # the state was the ack
        if st.version + 1 not in mover.acked:  # it may come after the state (ACK_REPLICAS)
            fut = mover.ack_waiters[st.version + 1] = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(fut, 10)
            except TimeoutError:
                print("timeout waiting for an ack", file=sys.stderr)
                return
        ACK_RTTS.append(mover.acked.pop(st.version + 1) - t0)
        counter[0] += 1


async def run_games(
    base, ws_urls, rooms, seconds, rate, on_start=lambda: None, on_stop=lambda: None
):
    async with httpx.AsyncClient(timeout=120) as http:
        opened = []
        for batch in range(0, rooms, 50):
            opened += await asyncio.gather(
                *(open_room(http, base, ws_urls, i) for i in range(batch, min(rooms, batch + 50)))
            )
        rtts: list[float] = []
        counter = [0]
        rng = random.Random(1)
        if rate:
            # Start every room somewhere in its game, so that games end (and new rooms
            # open) at a steady rate rather than all together 40 s in.
            async def stagger(i, room, players):
                r = random.Random(i)
                await play_room(
                    room,
                    players,
                    time.perf_counter() + 300,
                    0,
                    [],
                    [0],
                    r,
                    limit=r.randrange(0, 30),
                )
                if players[0].state.outcome is None and players[1].state.outcome is None:
                    return room, players
                for p in players:
                    await p.ws.close()
                return await open_room(http, base, ws_urls, i)

            for batch in range(0, rooms, 200):
                opened[batch : batch + 200] = await asyncio.gather(
                    *(stagger(i, *opened[i]) for i in range(batch, min(rooms, batch + 200)))
                )
        on_start()
        t0 = time.perf_counter()
        until = t0 + seconds

        # Rooms whose game ends start a fresh room so the load stays level. The
        # sockets still open at the end close after the clock stops (4,000 closes
        # at once are not what a server sees in play).
        async def keep_playing(i, room, players):
            while True:
                await play_room(
                    room, players, until, rate, rtts, counter, random.Random(rng.random())
                )
                if time.perf_counter() >= until:
                    return players
                for p in players:
                    await p.ws.close()
                room, players = await open_room(http, base, ws_urls, i)

        still_open = await asyncio.gather(*(keep_playing(i, *o) for i, o in enumerate(opened)))
        elapsed = time.perf_counter() - t0
        on_stop()
        await asyncio.gather(*(p.ws.close() for players in still_open for p in players))
    return counter[0], elapsed, t0, rtts


async def idle_sockets(ws_urls, base, n, per_room=32):
    """``n`` joined, idle sockets, ``per_room`` to a room (rooms cap their sockets)."""
    socks = []
    async with httpx.AsyncClient() as http:
        for i in range(n):
            if i % per_room == 0:
                room = (await http.post(base + "/api/rooms", json={"game": "kalah"})).json()["room"]
            p = Player()
            p.ws = await RawSocket.connect(ws_urls[i % len(ws_urls)], p.on_message)
            p.ws.send({"t": "join", "room": room})
            await asyncio.wait_for(p.wait_version(0), 60)
            socks.append(p.ws)
    return socks


def print_timeline(timed: list[tuple[float, float]], t0: float) -> None:
    """Each second of the run: moves sent, p50/p99/max round trip (where the slow moves were)."""
    buckets: dict[int, list[float]] = {}
    for rtt, sent in timed:
        buckets.setdefault(int(sent - t0), []).append(rtt)
    for second in sorted(buckets):
        v = sorted(buckets[second])
        print(
            f"  t={second:3d}s  moves {len(v):5d}  p50 {pct(v, 50):7.2f}  p99 {pct(v, 99):7.2f}"
            f"  max {pct(v, 100):7.2f} ms"
        )


def pct(values, p):
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * p / 100))] * 1000


def cpu_list(text: str | None) -> set[int] | None:
    """ "0-1,3" -> {0, 1, 3}"""
    if not text:
        return None
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus |= set(range(int(lo), int(hi or lo) + 1))
    return cpus


def tree_pids(pid: int) -> list[int]:
    """A process and its descendants now (a --workers server's workers and computer)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def role(pid: int) -> str:
    """What a server process is, from its command line."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "gone"
    text = b" ".join(argv).decode(errors="replace")
    for needle, name in (
        ("thinker", "computer"),
        ("multiprocessing", "replay"),
        ("--port", "main"),
    ):
        if needle in text:
            return name
    return "worker" if "server.run.cli" in text else text[:20]


def tree_cpu_s(pid: int) -> float:
    total = 0.0
    for p in tree_pids(pid):
        try:
            total += cpu_s(p)
        except OSError:
            pass
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--rate", type=float, default=0.0, help="moves/s per room; 0 = closed loop")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--nodes", default="1", help="node counts to run in turn, e.g. 1,2")
    ap.add_argument(
        "--workers",
        default="",
        help="worker counts to run in turn, e.g. 1,2: one `nyumba serve --workers N` each",
    )
    ap.add_argument(
        "--roots",
        default="",
        help="checkouts whose servers to compare, e.g. /tmp/base,. (default: this one)",
    )
    ap.add_argument("--rounds", type=int, default=1, help="repeat every configuration, interleaved")
    ap.add_argument(
        "--acks",
        default="frame",
        help="how the players join, in turn: frame (an ack frame per move), state (PROTOCOL.md)",
    )
    ap.add_argument("--server-cpus", help="CPUs for the servers and the store, e.g. 0-1")
    ap.add_argument("--generator-cpus", help="CPUs for this load generator, e.g. 1")
    ap.add_argument(
        "--store-cpus",
        help="CPUs for the embedded store alone, e.g. 1 (default: the servers'): with "
        "--server-cpus 0 a node has a core of its own, and moves/s is that core's",
    )
    ap.add_argument("--idle", type=int, default=0, help="idle sockets for the memory figure")
    ap.add_argument(
        "--computer-rooms",
        type=int,
        default=0,
        help="also keep this many computer seats thinking (level --level)",
    )
    ap.add_argument("--level", default="advanced")
    ap.add_argument(
        "--analyses",
        default="0",
        help="also keep this many post-game analyses running, in turn, e.g. 0,4 (a node runs 4)",
    )
    ap.add_argument("--timeline", action="store_true", help="also print each second's figures")
    ap.add_argument(
        "--clocks",
        default="0",
        help="each room's clock, initial ms (0: none), in turn, e.g. 0,600000: what a clock costs",
    )
    ap.add_argument(
        "--redis-url",
        action="append",
        help="a store to measure (REDIS_URL; none: the embedded Valkey); given several times,"
        " each in turn, in the order given (a Cluster node's or a redis+sentinel:// URL too)",
    )
    ap.add_argument(
        "--env",
        action="append",
        default=[],
        help="NAME=VALUE for the nodes, e.g. NYUMBA_ACK_REPLICAS=1",
    )
    ap.add_argument(
        "--fsync",
        default="everysec",
        help="the embedded store's appendfsync (everysec, always): what an ack costs on disk",
    )
    ap.add_argument(
        "--layout",
        default="unset",
        help="the store's layout flag for each checkout's servers, each a configuration: unset "
        "(what a store nobody switched writes: layout 2), current (`nyumba layout current` run "
        "by that checkout first: main writes 3; from layout 4 a clocked move is appended, not "
        "written whole), or both in turn: unset,current",
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="nyumba-load-"))
    urls = args.redis_url or [os.environ.get("REDIS_URL")]
    for run, url in enumerate(urls):
        run_store(args, tmp / f"run{run}", url)


def run_store(args, tmp: Path, url: str | None) -> None:
    prefix = f"nyumba-bench-{os.getpid()}-{tmp.name}:"
    server_cpus, generator_cpus = cpu_list(args.server_cpus), cpu_list(args.generator_cpus)
    if server_cpus:  # the store and servers started from here inherit it
        os.sched_setaffinity(0, server_cpus)
    embedded = None
    if url is None:
        # One embedded store shared by every node.
        from server.store.embedded import EmbeddedValkey

        embedded = EmbeddedValkey(tmp / "valkey", fsync=args.fsync).start()
        url = embedded.url
        store_cpus = cpu_list(args.store_cpus)
        if store_cpus and embedded.pid:
            os.sched_setaffinity(embedded.pid, store_cpus)
    env = {"NYUMBA_KEY_PREFIX": prefix, **dict(e.split("=", 1) for e in args.env)}
    store = f"embedded Valkey (appendfsync {args.fsync})" if embedded else url
    # A root may name how its players join: DIR@state (a baseline without the field: DIR@frame).
    # The same root may come twice with different acks (DIR@frame,DIR@state).
    roots: list[tuple[Path | None, str]] = [(None, "")]
    if args.roots:
        roots = []
        for spec in args.roots.split(","):
            path, _, acks = spec.partition("@")
            roots.append((Path(path).resolve(), acks))  # acks "state/moves": states "moves" too
    shapes = [("workers", int(n)) for n in args.workers.split(",") if n] or [
        ("nodes", int(n)) for n in args.nodes.split(",")
    ]
    results: dict[tuple, list[dict]] = {}
    try:
        for rnd in range(args.rounds):
            for root, (kind, count), acks, analyses, clock, layout in [
                (r, sh, a, int(n), int(c), lay)
                for r, root_acks in roots
                for sh in shapes
                for a in (root_acks or args.acks).split(",")
                for n in args.analyses.split(",")
                for c in args.clocks.split(",")
                for lay in args.layout.split(",")
            ]:
                ROOM_EXTRA.clear()
                if clock:
                    ROOM_EXTRA["clock"] = {"initial_ms": clock, "increment_ms": 0}
                JOIN_EXTRA.clear()
                acks, _, states = acks.partition("/")
                if acks != "frame":
                    JOIN_EXTRA["acks"] = acks
                if states:
                    JOIN_EXTRA["states"] = states
                    acks = f"{acks}/{states}"
                extra = {} if root is None else {"root": root}
                set_layout(layout, root, url, prefix)
                if kind == "workers":
                    servers = [
                        ServerProcess(
                            redis_url=url,
                            data_dir=tmp / f"w{count}-{rnd}",
                            env={**env, "NYUMBA_WORKERS": str(count)},
                            **extra,
                        ).start()
                    ]
                else:
                    servers = [
                        ServerProcess(
                            redis_url=url, data_dir=tmp / f"{count}-{i}-{rnd}", env=env, **extra
                        ).start()
                        for i in range(count)
                    ]
                if generator_cpus:
                    os.sched_setaffinity(0, generator_cpus)
                try:
                    if kind == "workers":
                        await_workers(servers[0], count)
                    print(
                        f"--- round {rnd + 1} root={root or 'this'} ({servers[0].python}) "
                        f"{kind}={count} acks={acks} analyses={analyses} clock={clock} "
                        f"layout={layout} "
                        f"store={store} rooms={args.rooms} "
                        f"rate={args.rate or 'closed loop'} load={os.getloadavg()[0]:.1f}"
                        + (f" env={' '.join(args.env)}" if args.env else ""),
                        flush=True,
                    )
                    this = argparse.Namespace(**{**vars(args), "analyses": analyses})
                    figures = asyncio.run(
                        measure(this, servers, embedded.pid if embedded else None, url)
                    )
                    if figures:
                        key = (str(root or "this"), kind, count, acks, analyses, clock, layout)
                        results.setdefault(key, []).append(figures)
                finally:
                    if server_cpus:
                        os.sched_setaffinity(0, server_cpus)
                    for s in servers:
                        s.stop()
    finally:
        if embedded is not None:
            embedded.stop()
    if args.rounds > 1 or len(results) > 1:
        summarize(results)


def set_layout(layout: str, root: Path | None, url: str, prefix: str) -> None:
    """The store's layout flag as ``--layout`` asks, by the checkout's own ``nyumba layout``
    (before its servers start: no live node to wait for)."""
    flag = f"{prefix}layout:{{layout}}"
    if layout == "unset":
        redis.Redis.from_url(url).delete(flag, flag + ":nodes", flag + ":info")
        return
    proc = ServerProcess(
        redis_url=url, data_dir=Path("."), **({} if root is None else {"root": root})
    )
    env = {**os.environ, "REDIS_URL": url, "NYUMBA_KEY_PREFIX": prefix}
    done = subprocess.run(
        [proc.python, "-m", proc.cli_module(), "layout", layout],
        cwd=proc.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        sys.exit(f"nyumba layout {layout} failed: {done.stderr}")


def await_workers(server: ServerProcess, count: int) -> None:
    """Every worker of a --workers server answers (the first healthy one is not enough)."""
    seen: set = set()
    deadline = time.monotonic() + 60
    while len(seen) < count and time.monotonic() < deadline:
        try:
            seen.add(httpx.get(server.url + "/healthz", timeout=2).json().get("worker"))
        except httpx.HTTPError:
            time.sleep(0.1)


def summarize(results: dict[tuple, list[dict]]) -> None:
    """Each configuration's median over its rounds, and each round's ratio to the first."""
    print("=== summary (median of rounds; ratio: same round, to the first configuration)")
    keys = list(results)
    first = results[keys[0]]
    for key in keys:
        runs = results[key]

        def med(field: str, runs=runs) -> float:
            values = sorted(r[field] for r in runs)
            return values[len(values) // 2]

        ratios = [r["moves_s"] / f["moves_s"] for r, f in zip(runs, first) if f["moves_s"]]
        cpu_ratios = [r["cpu_ms"] / f["cpu_ms"] for r, f in zip(runs, first) if f["cpu_ms"]]

        def ratio(field: str, runs=runs) -> str:
            return " ".join(f"{r[field] / f[field]:.2f}" for r, f in zip(runs, first) if f[field])

        print(
            f"{key[0]} {key[1]}={key[2]} acks={key[3]} analyses={key[4]} clock={key[5]} "
            f"layout={key[6]}: "
            f"moves/s {med('moves_s'):.0f}  "
            f"CPU/move {med('cpu_ms'):.3f} ms (store {med('store_cpu_ms'):.3f})  "
            f"p50 {med('p50'):.2f}  p99 {med('p99'):.2f} ms  "
            f"written {med('written_b'):.0f} B/move, to the store {med('store_b'):.0f} B/move  "
            f"write calls {med('syscw'):.2f}/move  "
            f"moves/s ratio {' '.join(f'{x:.2f}' for x in ratios)}  "
            f"CPU/move ratio {' '.join(f'{x:.2f}' for x in cpu_ratios)}  "
            f"written ratio {ratio('written_b')}  to-the-store ratio {ratio('store_b')}"
        )


async def measure(args, servers, store_pid: int | None, store_url: str) -> dict | None:
    base = servers[0].url
    ws_urls = [s.ws_url for s in servers]
    if args.idle:
        before = sum(rss_kb(s.proc.pid) for s in servers)
        socks = await idle_sockets(ws_urls, base, args.idle)
        await asyncio.sleep(1.0)
        after = sum(rss_kb(s.proc.pid) for s in servers)
        print(
            f"idle sockets: {args.idle}  server RSS {before} -> {after} KiB  "
            f"= {(after - before) / args.idle:.1f} KiB per socket"
        )
        for ws in socks:
            await ws.close()
    thinkers = []
    figures = None
    hints: list[float] = []
    stop = asyncio.Event()
    if args.computer_rooms:
        thinkers = [
            asyncio.create_task(keep_computer_busy(base, ws_urls[0], args.level, stop))
            for _ in range(args.computer_rooms)
        ]
        thinkers.append(asyncio.create_task(ask_hints(base, ws_urls[0], stop, hints)))
        await asyncio.sleep(3.0)  # the workers have started and are thinking
    analysing = AnalysesApart(base, args.analyses) if args.analyses else None
    if analysing:
        await asyncio.sleep(3.0)  # the analyses are under way
    if args.rooms:
        marks = {}

        def snapshot():  # CPU counters once every room is open: the figures are for play
            # The load generator is the measuring instrument: its own collector's
            # pauses (50-150 ms at 4,000 sockets) would count as server latency.
            gc.collect()
            gc.freeze()
            gc.disable()
            marks["server"] = sum(tree_cpu_s(s.proc.pid) for s in servers)
            marks["each"] = {p: cpu_s(p) for s in servers for p in tree_pids(s.proc.pid)}
            marks["store"] = cpu_s(store_pid) if store_pid else 0.0
            marks["own"] = time.process_time()
            marks["wchar"] = sum(wchar(p) for s in servers for p in tree_pids(s.proc.pid))
            marks["syscw"] = sum(wchar(p, "syscw") for s in servers for p in tree_pids(s.proc.pid))
            marks["store_in"] = store_input_bytes(store_url)

        def stop_clock():
            gc.enable()
            marks["server"] = sum(tree_cpu_s(s.proc.pid) for s in servers) - marks["server"]
            marks["own"] = time.process_time() - marks["own"]
            marks["store"] = (cpu_s(store_pid) if store_pid else 0.0) - marks["store"]
            written = sum(wchar(p) for s in servers for p in tree_pids(s.proc.pid))
            marks["wchar"] = written - marks["wchar"]
            calls = sum(wchar(p, "syscw") for s in servers for p in tree_pids(s.proc.pid))
            marks["syscw"] = calls - marks["syscw"]
            marks["store_in"] = store_input_bytes(store_url) - marks["store_in"]

        moves, elapsed, t0, timed = await run_games(
            base, ws_urls, args.rooms, args.seconds, args.rate, snapshot, stop_clock
        )
        cpu, own = marks["server"], marks["own"]
        print(f"moves: {moves} in {elapsed:.1f} s = {moves / elapsed:.0f} moves/s")
        print(
            f"server CPU: {cpu:.1f} s = {1000 * cpu / max(1, moves):.2f} ms per move "
            f"(new rooms for finished games included); load generator {own:.1f} s"
            + (f"; store {marks['store']:.1f} s" if store_pid else "")
        )
        per_move = max(1, moves)
        print(
            f"bytes written by the server: {marks['wchar'] / per_move:.0f} B per move; "
            f"bytes sent to the store: {marks['store_in'] / per_move:.0f} B per move"
            + ("" if store_pid else " (a shared store: other clients' bytes count too)")
        )
        print(
            f"write calls by the server: {marks['syscw'] / per_move:.2f} per move "
            "(/proc/<pid>/io syscw: its sockets' writes and its store commands' together)"
        )
        rtts = sorted(rtt for rtt, _ in timed)
        if args.timeline:
            print_timeline(timed, t0)
        print(
            f"move round trip ms: p50 {pct(rtts, 50):.2f}  p95 {pct(rtts, 95):.2f}  "
            f"p99 {pct(rtts, 99):.2f}  max {pct(rtts, 100):.2f}"
        )
        acks = sorted(ACK_RTTS)
        ACK_RTTS.clear()
        print(
            f"move -> ack ms: p50 {pct(acks, 50):.2f}  p95 {pct(acks, 95):.2f}  "
            f"p99 {pct(acks, 99):.2f}  max {pct(acks, 100):.2f}"
        )
        print(
            "server RSS after: "
            f"{[sum(rss_kb(p) for p in tree_pids(s.proc.pid)) for s in servers]} KiB"
        )
        per_process = [
            (role(p), cpu_s(p) - marks["each"].get(p, 0.0))
            for s in servers
            for p in tree_pids(s.proc.pid)
        ]
        if len(servers) == 1 and len(per_process) > 2:  # how the processes shared the work
            print("server CPU s by process: " + ", ".join(f"{r} {c:.1f}" for r, c in per_process))
        figures = {
            "moves_s": moves / elapsed,
            "cpu_ms": 1000 * cpu / max(1, moves),
            "p50": pct(rtts, 50),
            "p99": pct(rtts, 99),
            "store_cpu_ms": 1000 * marks["store"] / max(1, moves),
            "written_b": marks["wchar"] / max(1, moves),
            "store_b": marks["store_in"] / max(1, moves),
            "syscw": marks["syscw"] / max(1, moves),
        }
    stop.set()
    if analysing:
        done, analysed = await asyncio.get_running_loop().run_in_executor(None, analysing.stop)
        print(
            f"analyses: {args.analyses} running at a time; {done} finished meanwhile"
            + (f", {sum(analysed) / len(analysed):.1f} s each" if analysed else "")
        )
    if thinkers:
        computer_moves = sum(await asyncio.gather(*thinkers))
        print(
            f"computer seats: {args.computer_rooms} thinking at level {args.level}; "
            f"{computer_moves} computer moves meanwhile"
        )
        hints.sort()
        print(
            f"hints (a local room asking every second): {len(hints)}, "
            f"p50 {pct(hints, 50):.0f} ms, max {pct(hints, 100):.0f} ms"
        )
    return figures


if __name__ == "__main__":
    main()
