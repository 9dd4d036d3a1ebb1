"""Abuse benchmark: each attack of issue 16 against one live node while victims play.

    python tests/bench/abuse.py [--victims 20] [--seconds 12] [--attacks ping,replay,...]

One ``nyumba serve`` on its embedded Valkey. The victims (one client address,
``X-Forwarded-For`` from the trusted local proxy address) play ``--victims``
friend rooms at 1 move/s each, ask for a hint in a local room every 2 s and
play a computer room (a reply waited for every move). Each attack (another
address) then runs for ``--seconds`` after a baseline of the same length, and
the bench prints the victims' move round trip p99 before and during, the
target max(3 x before, 25 ms), the victims' hint and computer-reply times,
and what the attacker got (answers, refusals, closes):

    ping     two sockets sending pings as fast as the socket takes them
    replay   four connections replaying a 28 KB record nonstop (a new body each time)
    sockets  3,000 WebSockets from one address (127.0.0.2, held open)
    hints    a local room's 8 sockets asking for hints nonstop
    computer 30 computer rooms (advanced) whose person answers at once
    bodies   four 50 MiB POST bodies at once (rooms and replay), answers read while sending

Each attack runs in a process of its own, as an attacker on another machine
would: sharing the victims' event loop, an attack's own work (3,000 connects
at once) delayed the victims' clock and was counted against the server
(``--same-process`` puts it back there, to compare). Figures depend on the
machine's load (a shared 2-core VM here): compare the before and during of
one run, not runs.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from attacks import ATTACKS  # noqa: E402
from serverproc import ServerProcess  # noqa: E402
from victims import Victims, _r, pct  # noqa: E402


def _attack_main(name: str, node: SimpleNamespace, go, stop, results) -> None:
    """An attack in a process of its own: waits for ``go``, runs until ``stop``."""

    async def run() -> str:
        here = asyncio.Event()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, go.wait)

        async def relay() -> None:
            await loop.run_in_executor(None, stop.wait)
            here.set()

        relaying = asyncio.create_task(relay())
        try:
            return await ATTACKS[name](node, here)
        finally:
            await relaying

    results.put("ready")
    try:
        results.put(asyncio.run(run()))
    except Exception as exc:
        results.put(f"attack failed: {exc!r}")


class Attacker:
    """One attack in a child process (spawned: nothing of the victims' loop is inherited)."""

    def __init__(self, name: str, node: ServerProcess):
        ctx = multiprocessing.get_context("spawn")
        self.go, self.stop, self.results = ctx.Event(), ctx.Event(), ctx.Queue()
        seen = SimpleNamespace(
            url=node.url,
            ws_url=node.ws_url,
            port=node.port,
            proc=SimpleNamespace(pid=node.proc.pid),
        )
        self.proc = ctx.Process(
            target=_attack_main, args=(name, seen, self.go, self.stop, self.results), daemon=True
        )
        self.proc.start()

    async def ready(self) -> None:
        got = await asyncio.get_running_loop().run_in_executor(None, self.results.get, True, 60)
        assert got == "ready", got

    async def outcome(self) -> str:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(None, self.results.get, True, 60)
        except Exception as exc:
            return f"attack failed: {exc!r}"
        finally:
            await loop.run_in_executor(None, self.proc.join, 10)


async def bench(node: ServerProcess, args) -> list[dict]:
    victims = Victims(node, args.victims)
    playing = asyncio.create_task(victims.run())
    await asyncio.sleep(6)  # rooms open, workers warm
    rows = []
    for name in args.attacks.split(","):
        if not args.same_process:
            attacker = Attacker(name, node)  # started (and its imports paid) before the baseline
            await attacker.ready()
            await asyncio.sleep(1)
        t0 = time.perf_counter()
        await asyncio.sleep(args.seconds)
        t1 = time.perf_counter()
        if args.same_process:
            stop = asyncio.Event()
            attack = asyncio.create_task(ATTACKS[name](node, stop))
            await asyncio.sleep(args.seconds)
            t2 = time.perf_counter()
            stop.set()
            try:
                outcome = await asyncio.wait_for(attack, 60)
            except Exception as exc:
                outcome = f"attack failed: {exc!r}"
        else:
            attacker.go.set()
            await asyncio.sleep(args.seconds)
            t2 = time.perf_counter()
            attacker.stop.set()
            outcome = await attacker.outcome()
        before = Victims.window(victims.moves, t0, t1)
        during = Victims.window(victims.moves, t1, t2)
        p_before, p_during = pct(before, 99), pct(during, 99)
        target = max(3 * p_before, 25.0)
        row = {
            "attack": name,
            "moves": (len(before), len(during)),
            "p99_before_ms": round(p_before, 1),
            "p99_during_ms": round(p_during, 1),
            "target_ms": round(target, 1),
            "ok": p_during <= target,
            "hint_max_ms": (
                _r(pct(Victims.window(victims.hints, t0, t1), 100)),
                _r(pct(Victims.window(victims.hints, t1, t2), 100)),
            ),
            "computer_reply_max_ms": (
                _r(pct(Victims.window(victims.replies, t0, t1), 100)),
                _r(pct(Victims.window(victims.replies, t1, t2), 100)),
            ),
            "attacker": outcome,
            "victim_failures": [f for at, f in victims.failures if t1 <= at < t2][:3],
        }
        rows.append(row)
        print(
            f"{name:9s} victim p99 {p_before:7.1f} -> {p_during:7.1f} ms (target {target:5.1f}) "
            f"{'ok' if row['ok'] else 'OVER'}  moves {len(before)}/{len(during)}  "
            f"hint max {row['hint_max_ms'][0]} -> {row['hint_max_ms'][1]} ms  "
            f"computer reply max {row['computer_reply_max_ms'][0]} -> {row['computer_reply_max_ms'][1]} ms\n"
            f"          attacker: {outcome}"
            + (
                f"\n          victim failures: {row['victim_failures']}"
                if row["victim_failures"]
                else ""
            ),
            flush=True,
        )
        await asyncio.sleep(2)
    victims.stop.set()
    await asyncio.wait_for(playing, 120)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--victims", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=12)
    ap.add_argument("--attacks", default=",".join(ATTACKS))
    ap.add_argument(
        "--same-process",
        action="store_true",
        help="run each attack in the victims' own process and event loop (as before)",
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nyumba-abuse-"))
    node = ServerProcess(
        redis_url=None,
        data_dir=tmp,
        env={
            "NYUMBA_KEY_PREFIX": f"abuse-{os.getpid()}:",
            "NYUMBA_ROOMS_PER_MINUTE": "1000000",
            "NYUMBA_SOCKETS_PER_ADDRESS": "100",  # the default (test servers lift it)
        },
    ).start()
    print(f"one node, embedded Valkey; load average {os.getloadavg()[0]:.1f} at start")
    try:
        asyncio.run(bench(node, args))
    finally:
        node.stop()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
