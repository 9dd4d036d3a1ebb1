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
import collections
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import httpx

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from rawws import Msg, RawSocket, frame  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

VICTIM = "10.0.0.1"
ATTACKER = "10.66.6.6"
TAG = {"X-Forwarded-For": VICTIM}
EVIL = {"X-Forwarded-For": ATTACKER}


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p / 100))] * 1000


def _r(ms: float) -> int | None:
    return None if ms != ms else round(ms)  # NaN: no sample in the window


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Seat:
    def __init__(self) -> None:
        self.ws: RawSocket | None = None
        self.version = -1
        self.state: Msg | None = None
        self.inbox: asyncio.Queue[Msg] = asyncio.Queue()
        self.waiters: dict[int, asyncio.Future] = {}

    def on_message(self, msg: Msg) -> None:
        if msg.t == "state" and msg.version >= self.version:
            self.version, self.state = msg.version, msg
            for v in [v for v in self.waiters if v <= msg.version]:
                fut = self.waiters.pop(v)
                if not fut.done():
                    fut.set_result(msg)
        elif msg.t != "state":
            self.inbox.put_nowait(msg)

    def wait_version(self, v: int) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        if self.version >= v:
            fut.set_result(self.state)
        else:
            self.waiters[v] = fut
        return fut


async def open_room(http, node, headers, mode="friend", **body) -> tuple[dict, list[Seat]]:
    r = (
        await http.post(
            node.url + "/api/rooms", json={"game": "kalah", "mode": mode, **body}, headers=headers
        )
    ).json()
    seats = []
    for token in (r["token"], None) if mode == "friend" else (r["token"],):
        s = Seat()
        s.ws = await RawSocket.connect(node.ws_url, s.on_message, headers)
        s.ws.send({"t": "join", "room": r["room"], "token": token})
        seats.append(s)
    for s in seats:
        await asyncio.wait_for(s.wait_version(0), 30)
    return r, seats


class Victims:
    """Friend rooms at 1 move/s, a local room asking hints, a computer room: all timed."""

    def __init__(self, node: ServerProcess, rooms: int):
        self.node, self.rooms = node, rooms
        self.moves: list[tuple[float, float]] = []  # (sent at, round trip s)
        self.hints: list[tuple[float, float]] = []
        self.replies: list[tuple[float, float]] = []
        self.failures: list[tuple[float, str]] = []
        self.stop = asyncio.Event()

    async def run(self) -> None:
        async with httpx.AsyncClient(timeout=60) as http:
            await asyncio.gather(
                *(self._friend(http, i) for i in range(self.rooms)),
                self._hints(http),
                self._computer(http),
            )

    async def _friend(self, http, i: int) -> None:
        while not self.stop.is_set():
            try:
                await self._friend_games(http, i)
            except Exception as exc:  # a victim that failed is counted, and plays on
                self.failures.append((time.perf_counter(), repr(exc)))
                await asyncio.sleep(1.0)

    async def _friend_games(self, http, i: int) -> None:
        rng = random.Random(i)
        await asyncio.sleep(rng.random())
        while not self.stop.is_set():
            r, seats = await open_room(http, self.node, TAG)
            next_at = time.perf_counter()
            while not self.stop.is_set():
                st = max((s.state for s in seats), key=lambda m: m.version)
                if st.outcome is not None:
                    break
                next_at += 1.0
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                mover = seats[st.to_move]
                t0 = time.perf_counter()
                mover.ws.send(
                    {
                        "t": "move",
                        "room": r["room"],
                        "version": st.version,
                        "move": rng.choice(st.legal).move,
                        "id": f"v{st.version}",
                    }
                )
                try:
                    await asyncio.wait_for(mover.wait_version(st.version + 1), 30)
                except TimeoutError:
                    self.moves.append((t0, 30.0))
                    break
                self.moves.append((t0, time.perf_counter() - t0))
            for s in seats:
                await s.ws.close()

    async def _hints(self, http) -> None:
        while not self.stop.is_set():
            r, (seat,) = await open_room(http, self.node, TAG, mode="local")
            while not self.stop.is_set() and seat.state.outcome is None:
                await asyncio.sleep(2.0)
                st = seat.state
                t0 = time.perf_counter()
                seat.ws.send({"t": "hint", "room": r["room"], "id": f"h{st.version}"})
                try:
                    while (m := await asyncio.wait_for(seat.inbox.get(), 30)).t not in (
                        "hint",
                        "error",
                    ):
                        pass
                except TimeoutError:
                    self.hints.append((t0, 30.0))
                    continue
                self.hints.append((t0, time.perf_counter() - t0))
                move = m.move if m.t == "hint" else st.legal[0].move
                seat.ws.send(
                    {
                        "t": "move",
                        "room": r["room"],
                        "version": st.version,
                        "move": move,
                        "id": f"m{st.version}",
                    }
                )
                await asyncio.wait_for(seat.wait_version(st.version + 1), 30)
            await seat.ws.close()

    async def _computer(self, http) -> None:
        while not self.stop.is_set():
            r, (seat,) = await open_room(
                http, self.node, TAG, mode="computer", side="south", level="intermediate"
            )
            while not self.stop.is_set() and seat.state.outcome is None:
                st = seat.state
                if st.to_move != 0:
                    await seat.wait_version(st.version + 1)
                    continue
                await asyncio.sleep(1.0)
                seat.ws.send(
                    {
                        "t": "move",
                        "room": r["room"],
                        "version": st.version,
                        "move": st.legal[0].move,
                        "id": f"c{st.version}",
                    }
                )
                mine = await asyncio.wait_for(seat.wait_version(st.version + 1), 30)
                if mine.outcome is not None or mine.to_move == 0:
                    continue
                t0 = time.perf_counter()
                try:
                    await asyncio.wait_for(seat.wait_version(mine.version + 1), 60)
                except TimeoutError:
                    self.replies.append((t0, 60.0))
                    continue
                self.replies.append((t0, time.perf_counter() - t0))
            await seat.ws.close()

    @staticmethod
    def window(samples, t0, t1) -> list[float]:
        return [rtt for at, rtt in samples if t0 <= at < t1]


# ---------------------------------------------------------------- attacks


async def ping_flood(node, stop: asyncio.Event) -> str:
    pongs = [0]
    batch = b"".join(frame(b'{"t":"ping","n":%d}' % i) for i in range(500))

    def counted(msg: Msg) -> None:
        pongs[0] += msg.t == "pong"

    socks = [await RawSocket.connect(node.ws_url, counted, EVIL) for _ in range(2)]
    t0 = time.perf_counter()
    while not stop.is_set() and not all(s.closed for s in socks):
        for s in socks:
            if not s.closed and s._proto.transport.get_write_buffer_size() < 1 << 20:
                s.send_raw(batch)
        await asyncio.sleep(0.001)
    took = time.perf_counter() - t0
    codes = [s.close_code for s in socks]
    for s in socks:
        await s.close()
    return f"{pongs[0]} pongs in all; closed with {codes} after {took * 1000:.0f} ms"


def _record(rng: random.Random, size: int = 28_000) -> bytes:
    import engine
    from engine import records

    game = engine.load("bao-nakakamado-a") if False else engine.load("oware")
    while True:
        state, moves = game.start(), []
        while game.outcome(state) is None and len(moves) < 400:
            m = rng.choice(list(game.legal_moves(state)))
            moves.append(m)
            state = game.play(state, m)
        text = records.dumps(game, moves)
        if len(text) >= size * 0.5:
            return text.encode()


async def replay_spam(node, stop: asyncio.Event) -> str:
    base = json.loads(_record(random.Random(5)))
    codes: dict[int, int] = {}

    async def spam(i: int) -> None:
        n = 0
        async with httpx.AsyncClient(timeout=60) as http:
            while not stop.is_set():
                n += 1
                base["players"] = [f"a{i}-{n}", "b"]  # a new body each time: no cache hits
                r = await http.post(
                    node.url + "/api/replay", content=json.dumps(base), headers=EVIL
                )
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
                if r.status_code == 503:
                    await asyncio.sleep(
                        float(r.headers.get("retry-after", "0")) * 0
                    )  # it does not wait

    t0 = time.perf_counter()
    await asyncio.gather(*(spam(i) for i in range(4)))
    took = time.perf_counter() - t0
    return (
        f"{len(json.dumps(base))} B record; answers {dict(sorted(codes.items()))} in {took:.0f} s"
    )


async def socket_flood(node, stop: asyncio.Event) -> str:
    held, refused = [], 0

    async def one() -> None:
        nonlocal refused
        try:
            # From an address of its own (127.0.0.2), not the trusted proxy's: a directly
            # exposed node closes connections over its per-peer cap at accept.
            connecting = RawSocket.connect(node.ws_url, lambda m: None, None, ("127.0.0.2", 0))
            held.append(await asyncio.wait_for(connecting, 20))
        except Exception:
            refused += 1

    for _start in range(0, 3000, 250):
        if stop.is_set():
            break
        await asyncio.gather(*(one() for _ in range(250)))
    async with httpx.AsyncClient(timeout=10) as http:
        t0 = time.perf_counter()
        health = (await http.get(node.url + "/healthz", headers=TAG)).status_code
        health_ms = (time.perf_counter() - t0) * 1000
    await stop.wait()
    alive = sum(not s.closed for s in held)
    for s in held:
        if not s.closed:
            s._proto.transport.abort()
    return (
        f"3000 tried: {len(held)} accepted, {refused} refused; {alive} still open at the end; "
        f"a new visitor's /healthz {health} in {health_ms:.0f} ms"
    )


async def hint_spam(node, stop: asyncio.Event) -> str:
    async with httpx.AsyncClient(timeout=60) as http:
        r, (first,) = await open_room(http, node, EVIL, mode="local")
    seats = [first]
    for _ in range(7):
        s = Seat()
        s.ws = await RawSocket.connect(node.ws_url, s.on_message, EVIL)
        s.ws.send({"t": "join", "room": r["room"], "token": r["token"]})
        seats.append(s)
    got: dict[str, int] = {}

    async def spam(s: Seat, i: int) -> None:
        n = 0
        while not stop.is_set() and not s.ws.closed:
            n += 1
            s.ws.send({"t": "hint", "room": r["room"], "id": f"{i}-{n}"})
            try:
                m = await asyncio.wait_for(s.inbox.get(), 30)
            except TimeoutError:
                continue
            key = m.t if m.t != "error" else f"error:{m.code}"
            got[key] = got.get(key, 0) + 1

    await asyncio.gather(*(spam(s, i) for i, s in enumerate(seats)))
    closed = sum(s.ws.closed for s in seats)
    for s in seats:
        await s.ws.close()
    return f"8 sockets: {dict(sorted(got.items()))}; {closed} closed"


async def computer_rooms(node, stop: asyncio.Event) -> str:
    moves, refused = [0], [0]

    async def room() -> None:
        async with httpx.AsyncClient(timeout=60) as http:
            while not stop.is_set():
                try:
                    r, (seat,) = await open_room(
                        http, node, EVIL, mode="computer", side="south", level="advanced"
                    )
                except Exception:
                    refused[0] += 1
                    await asyncio.sleep(1)
                    continue
                while not stop.is_set() and seat.state.outcome is None and not seat.ws.closed:
                    st = seat.state
                    if st.to_move == 0:
                        seat.ws.send(
                            {
                                "t": "move",
                                "room": r["room"],
                                "version": st.version,
                                "move": st.legal[0].move,
                                "id": f"x{st.version}",
                            }
                        )
                    try:
                        await asyncio.wait_for(seat.wait_version(st.version + 1), 2)
                    except TimeoutError:
                        continue
                    moves[0] += st.to_move == 1
                await seat.ws.close()

    await asyncio.gather(*(room() for _ in range(30)))
    return f"30 rooms: {moves[0]} computer moves; {refused[0]} refusals"


async def big_bodies(node, stop: asyncio.Event) -> str:
    before = rss_kb(node.proc.pid)
    peak = [before]
    results: list[tuple[str, int]] = []  # (status or "no answer", MiB sent)

    async def post(path: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", node.port)
        size = 50 * 1024 * 1024
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"X-Forwarded-For: {ATTACKER}\r\nContent-Length: {size}\r\n\r\n".encode()
        )
        chunk, sent = b" " * (1 << 20), [0]

        async def send() -> None:
            while sent[0] < size:
                writer.write(chunk)
                await writer.drain()
                sent[0] += len(chunk)

        # Read while sending and stop once answered, as browsers and curl do (a sender that
        # reads only at the end sees no answer whatever the node does: asyncio's stream
        # raises the reset that ends it before the answer it has buffered).
        answer = asyncio.ensure_future(reader.readline())
        sending = asyncio.ensure_future(send())
        await asyncio.wait([answer, sending], timeout=30, return_when=asyncio.FIRST_COMPLETED)
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        try:
            status = (await asyncio.wait_for(answer, 30)).decode().split(" ")[1]
        except Exception:
            status = "no answer"
        results.append((status, sent[0] >> 20))
        writer.close()

    async def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_kb(node.proc.pid))
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    while not stop.is_set():
        await asyncio.gather(*(post(p) for p in ("/api/rooms", "/api/replay") * 2))
        await asyncio.sleep(0.5)
    watcher.cancel()
    return (
        f"node RSS {before >> 10} -> peak {peak[0] >> 10} MiB; {len(results)} posts: "
        f"{dict(collections.Counter(s for s, _ in results))}, "
        f"at most {max((m for _, m in results), default=0)} MiB sent"
    )


ATTACKS = {
    "ping": ping_flood,
    "replay": replay_spam,
    "sockets": socket_flood,
    "hints": hint_spam,
    "computer": computer_rooms,
    "bodies": big_bodies,
}


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
