"""The Colyseus peer: a Kalah room on Colyseus under load.py's schedule, figures in load.py's shape.

    python tests/bench/peers/colyseus.py [--rooms 200] [--rate 0] [--seconds 20] [--rounds 3]
        [--presence memory,redis] [--nyumba] [--server-cpus 0] [--generator-cpus 1]
        [--store-cpus 1]

Starts ``colyseus/server.mjs`` (Node; ``npm ci`` first, see README.md), with ``--presence redis``
also a private ``redis-server`` for its RedisPresence and RedisDriver, then
``colyseus/loadgen.mjs`` in a process of its own: N rooms x 2 sockets, ``--rate 0`` a closed
loop, ``--rate R`` R moves a second per room on a schedule, exactly as ``tests/bench/load.py``.
Prints, per run, what load.py prints (moves/s, server CPU per move, the move round trip) and
the bytes the server wrote per move: ``/proc/<pid>/io`` ``wchar`` over the measured window,
every ``write``/``writev`` the server made (its WebSocket frames, its HTTP answers for rooms
opened in the window and, with Redis, its commands to the store; not ``send``/``sendto``,
which Node's sockets do not use). The loadgen also counts what its sockets received, as a
check on that figure.

``--nyumba`` runs ``load.py`` with the same rooms, rate, seconds and CPUs first in every round
(its own output passed through), so one command gives nyumba and Colyseus interleaved with
same-round ratios. ``--rounds`` repeats every configuration, interleaved, and ends with each
one's median and its ratio to the first configuration in the same round (the machine is
shared: ratios travel, absolute figures do not).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP = HERE / "colyseus"
LOAD_PY = HERE.parent / "load.py"


def cpu_list(text: str | None) -> set[int] | None:
    """ "0-1,3" -> {0, 1, 3} (load.py's option format)"""
    if not text:
        return None
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus |= set(range(int(lo), int(hi or lo) + 1))
    return cpus


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def spawn(argv: list[str], cpus: set[int] | None, **kw) -> subprocess.Popen:
    """A child pinned to ``cpus`` before it starts (its threads inherit the mask)."""

    def pin() -> None:
        if cpus:
            os.sched_setaffinity(0, cpus)

    return subprocess.Popen(argv, preexec_fn=pin, **kw)


def stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_for(check, what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start within {seconds:.0f} s")
        time.sleep(0.05)


def start_redis(tmp: Path, cpus: set[int] | None, binary: str) -> tuple[subprocess.Popen, str]:
    """A private, memory-only Redis: the machine's own may be busy with other work."""
    port = free_port()
    with open(tmp / f"redis-{port}.log", "w") as log:  # the child has its own copy
        proc = spawn(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cpus,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=tmp,
        )

    def answers() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"{binary} exited: {(tmp / f'redis-{port}.log').read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    wait_for(answers, binary)
    return proc, f"redis://127.0.0.1:{port}/0"


def start_colyseus(
    tmp: Path, cpus: set[int] | None, redis_url: str | None, node: str, attempt: int = 0
) -> tuple[subprocess.Popen, int]:
    port = free_port()
    log_path = tmp / f"colyseus-{port}.log"
    argv = [node, "server.mjs", "--port", str(port)] + (["--redis", redis_url] if redis_url else [])
    with open(log_path, "w") as log:  # the child has its own copy
        proc = spawn(
            argv,
            cpus,
            cwd=APP,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NODE_ENV": "production"},
        )

    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"server.mjs exited: {log_path.read_text()}")
        return "listening" in log_path.read_text()

    try:
        wait_for(listening, "server.mjs")
    except RuntimeError as exc:  # the free port was taken before the server bound it
        if "EADDRINUSE" in str(exc) and attempt < 2:
            return start_colyseus(tmp, cpus, redis_url, node, attempt + 1)
        raise
    return proc, port


def run_colyseus(args, tmp: Path, presence: str, node: str) -> dict:
    server_cpus, store_cpus = cpu_list(args.server_cpus), cpu_list(args.store_cpus)
    redis = server = gen = None
    try:
        redis_url = None
        if presence == "redis":
            redis, redis_url = start_redis(tmp, store_cpus or server_cpus, args.redis_server)
        server, port = start_colyseus(tmp, server_cpus, redis_url, node)
        gen = spawn(
            [
                node,
                "loadgen.mjs",
                "--url",
                f"http://127.0.0.1:{port}",
                "--rooms",
                str(args.rooms),
                "--rate",
                str(args.rate),
                "--seconds",
                str(args.seconds),
                "--server-pid",
                str(server.pid),
                "--store-pid",
                str(redis.pid if redis else 0),
                "--clk-tck",
                str(os.sysconf("SC_CLK_TCK")),
            ],
            cpu_list(args.generator_cpus),
            cwd=APP,
            stdout=subprocess.PIPE,
            text=True,
        )
        out, _ = gen.communicate(timeout=args.seconds + 600)
        if gen.returncode:
            raise RuntimeError(f"loadgen.mjs exited {gen.returncode}")
        return json.loads(out.strip().splitlines()[-1])
    finally:
        stop(gen)
        stop(server)
        stop(redis)


def print_colyseus(f: dict, presence: str) -> dict:
    """load.py's lines for one run; returns the figures the summary compares."""
    moves = max(1, f["moves"])
    print(f"moves: {f['moves']} in {f['elapsed']:.1f} s = {f['moves'] / f['elapsed']:.0f} moves/s")
    print(
        f"server CPU: {f['server_cpu_s']:.2f} s = {1000 * f['server_cpu_s'] / moves:.3f} ms per "
        f"move (new rooms for finished games included); load generator "
        f"{f['generator_cpu_s']:.1f} s"
        + (f"; store {f['store_cpu_s']:.2f} s" if presence == "redis" else "")
    )
    print(
        f"move round trip ms: p50 {f['p50']:.2f}  p95 {f['p95']:.2f}  p99 {f['p99']:.2f}  "
        f"max {f['max']:.2f}" + (f"  ({f['timeouts']} timed out)" if f["timeouts"] else "")
    )
    print(
        f"bytes written by the server: {f['server_wchar'] / moves:.0f} B per move "
        f"(/proc/<pid>/io wchar); the players' sockets received {f['client_received'] / moves:.0f}"
        " B per move"
    )
    print(f"server RSS after: [{f['server_rss_kb']}] KiB")
    return figures(
        f["moves"],
        f["elapsed"],
        f["server_cpu_s"],
        f["store_cpu_s"],
        f["p50"],
        f["p99"],
        f["server_wchar"] / moves,
    )


def figures(moves, elapsed, server_s, store_s, p50, p99, bytes_per_move) -> dict:
    return {
        "moves_s": moves / elapsed,
        "cpu_ms": 1000 * server_s / max(1, moves),
        "cpu_store_ms": 1000 * (server_s + store_s) / max(1, moves),
        "moves_per_cpu_s": moves / server_s if server_s else float("nan"),
        "bytes": bytes_per_move,
        "p50": p50,
        "p99": p99,
    }


def run_nyumba(args, clock: str = "0", root: str = "") -> dict | None:
    """load.py once (rooms with ``clock`` ms a side, 0 none; the server of checkout ``root``,
    '' this one), its output passed through; its figures read back from what it printed."""
    argv = [sys.executable, str(LOAD_PY), "--rooms", str(args.rooms), "--rate", str(args.rate)]
    argv += ["--seconds", str(args.seconds), "--acks", args.nyumba_acks, "--clocks", clock]
    if root:
        argv += ["--roots", f"{root}@{args.nyumba_acks}"]
    for env in args.nyumba_env:
        argv += ["--env", env]
    argv += ["--layout", args.nyumba_layout]
    for opt in ("server_cpus", "generator_cpus", "store_cpus"):
        if getattr(args, opt):
            argv += ["--" + opt.replace("_", "-"), getattr(args, opt)]
    out = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True).stdout
    print(out, end="")

    def find(pattern: str) -> re.Match | None:
        return re.search(pattern, out, re.M)

    moves = find(r"^moves: (\d+) in ([\d.]+) s")
    cpu = find(r"^server CPU: ([\d.]+) s = .*?(?:; store ([\d.]+) s)?$")
    rtt = find(r"^move round trip ms: p50 ([\d.na]+)\s+p95 [\d.na]+\s+p99 ([\d.na]+)")
    # load.py does not print bytes yet; a line in this script's shape is read when it does
    written = find(r"^bytes written by the server: ([\d.]+) B per move")
    if not (moves and cpu and rtt):
        print("(could not read load.py's figures)")
        return None
    return figures(
        int(moves[1]),
        float(moves[2]),
        float(cpu[1]),
        float(cpu[2] or 0),
        float(rtt[1]),
        float(rtt[2]),
        float(written[1]) if written else float("nan"),
    )


def check_rules(games: int, node: str) -> int:
    """Random games from nyumba's engine, replayed by ``colyseus/kalah.mjs``; its exit status."""
    import random

    sys.path.insert(0, str(HERE.parents[2]))  # the repository, for `engine`
    import engine

    played = []
    for seeds in (4, 6):  # 6 seeds: pits of 13 and more, sown all the way round (K4)
        game = engine.load("kalah", seeds=seeds)
        for n in range(games):
            rand, state = random.Random(n), game.start()
            moves, boards = [], []
            while game.outcome(state) is None:
                move = rand.choice(game.legal_moves(state))
                moves.append(game.notation(move))
                state = game.play(state, move)
                boards.append(game.describe(state))
            winner = game.outcome(state).winner
            played.append({"seeds": seeds, "moves": moves, "boards": boards, "winner": winner})
    replay = [node, "check_rules.mjs"]
    return subprocess.run(replay, cwd=APP, input=json.dumps(played), text=True).returncode


def summarize(results: dict[str, list[dict]]) -> None:
    print("=== summary (median of rounds; ratio: same round, to the first configuration)")
    first = results[next(iter(results))]
    for name, runs in results.items():

        def med(field: str, runs=runs) -> float:
            values = sorted(r[field] for r in runs)
            return values[len(values) // 2]

        def ratio(field: str, runs=runs) -> str:
            return " ".join(f"{r[field] / f[field]:.2f}" for r, f in zip(runs, first) if f[field])

        print(
            f"{name}: moves/s {med('moves_s'):.0f}  CPU/move {med('cpu_ms'):.3f} ms "
            f"(+ store {med('cpu_store_ms'):.3f} ms)  moves per server CPU-s "
            f"{med('moves_per_cpu_s'):.0f}  {med('bytes'):.0f} B/move  p50 {med('p50'):.2f}  "
            f"p99 {med('p99'):.2f} ms  CPU/move ratio {ratio('cpu_ms')}  "
            f"(+ store) ratio {ratio('cpu_store_ms')}  moves per CPU-s ratio "
            f"{ratio('moves_per_cpu_s')}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--rate", type=float, default=0.0, help="moves/s per room; 0 = closed loop")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=1, help="repeat every configuration, interleaved")
    ap.add_argument(
        "--presence",
        default="memory",
        help="in turn, e.g. memory,redis: rooms in memory only, or Redis presence and driver",
    )
    ap.add_argument("--nyumba", action="store_true", help="also run load.py first in every round")
    ap.add_argument(
        "--nyumba-acks",
        default="frame",
        help='how load.py\'s players join (its --acks): "state/moves" joins as the browser does',
    )
    ap.add_argument(
        "--nyumba-clocks",
        default="0",
        help="nyumba's rooms' clocks (initial ms, 0 none), each a configuration: 0,600000",
    )
    ap.add_argument(
        "--nyumba-env",
        action="append",
        default=[],
        help="NAME=VALUE for nyumba's node (load.py --env), e.g. NYUMBA_LOCAL_FANOUT=0",
    )
    ap.add_argument(
        "--nyumba-roots",
        default="",
        help="other checkouts whose servers to run too, each a configuration (load.py --roots):"
        " /tmp/main measures today's main beside this one",
    )
    ap.add_argument(
        "--nyumba-layout",
        choices=["unset", "current"],
        default="unset",
        help="the store's layout flag (load.py --layout): current runs each checkout's "
        "`nyumba layout current` first (a clocked move is appended from layout 4 on)",
    )
    ap.add_argument("--server-cpus", help="CPUs for the server, e.g. 0")
    ap.add_argument("--generator-cpus", help="CPUs for the load generator, e.g. 1")
    ap.add_argument("--store-cpus", help="CPUs for the store (default: the server's)")
    ap.add_argument(
        "--node",
        default="node",
        help="the Node binary, or several in turn: node,/opt/node22/bin/node",
    )
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "valkey-server")
    ap.add_argument(
        "--check-rules",
        type=int,
        metavar="N",
        help="only check kalah.mjs: replay N random engine games with 4 seeds and N with 6",
    )
    args = ap.parse_args()
    # A SIGTERM (timeout, kill) unwinds like Ctrl-C, so the servers started here are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.check_rules:
        sys.exit(check_rules(args.check_rules, args.node.split(",")[0]))
    if not (APP / "node_modules").is_dir():
        sys.exit(f"no {APP / 'node_modules'}: run `npm ci` in {APP} first (README.md)")

    tmp = Path(tempfile.mkdtemp(prefix="nyumba-peer-"))
    nodes = args.node.split(",")
    clocks = args.nyumba_clocks.split(",")
    configs: list[tuple[str, str, str]] = []
    if args.nyumba:  # a configuration a checkout and a clock: "nyumba /tmp/main clock=600000"
        for root in ["", *filter(None, args.nyumba_roots.split(","))]:
            for c in clocks:
                name = "nyumba" + (f" {root}" if root else "") + (f" clock={c}" if c != "0" else "")
                configs.append((name, c, root))
    for presence in args.presence.split(","):
        for node in nodes:
            version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
            name = f"colyseus {presence}" + (f" node {version.strip()}" if len(nodes) > 1 else "")
            configs.append((name, presence, node))
    results: dict[str, list[dict]] = {}
    for rnd in range(args.rounds):
        for name, presence, node in configs:
            print(
                f"--- round {rnd + 1} {name} rooms={args.rooms} "
                f"rate={args.rate or 'closed loop'} seconds={args.seconds:g} "
                f"load={os.getloadavg()[0]:.1f}",
                flush=True,
            )
            if name.startswith("nyumba"):  # (a nyumba configuration's "presence": its clock)
                got = run_nyumba(args, presence, node)  # (and its "node": the checkout)
            else:
                got = print_colyseus(run_colyseus(args, tmp, presence, node), presence)
            sys.stdout.flush()
            if got:
                results.setdefault(name, []).append(got)
    if args.rounds > 1 or len(results) > 1:
        summarize(results)


if __name__ == "__main__":
    main()
