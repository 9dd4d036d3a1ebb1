"""Background work for the load bench (tests/bench/load.py): computer seats thinking, a local
room asking for hints, post-game analyses running, each until ``stop`` is set."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path

import httpx

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from rawws import RawSocket  # noqa: E402


async def keep_computer_busy(base: str, ws_url: str, level: str, stop: asyncio.Event) -> int:
    """A computer room whose person answers at once, so the computer always thinks."""
    moves = 0
    async with httpx.AsyncClient() as http:
        while not stop.is_set():
            r = (
                await http.post(
                    base + "/api/rooms",
                    json={"game": "kalah", "mode": "computer", "side": "south", "level": level},
                )
            ).json()
            states: asyncio.Queue = asyncio.Queue()
            ws = await RawSocket.connect(
                ws_url, lambda m: states.put_nowait(m) if m.t == "state" else None
            )
            ws.send({"t": "join", "room": r["room"], "token": r["token"]})
            rng = random.Random(moves)
            while not stop.is_set():
                try:
                    msg = await asyncio.wait_for(states.get(), 0.5)
                except TimeoutError:
                    continue
                if msg.outcome is not None:
                    break
                if msg.last is not None and msg.last["side"] == 1:
                    moves += 1
                if msg.to_move == 0:
                    ws.send(
                        {
                            "t": "move",
                            "room": r["room"],
                            "version": msg.version,
                            "move": rng.choice(msg.legal).move,
                            "id": f"c{msg.version}",
                        }
                    )
            await ws.close()
    return moves


async def ask_hints(base: str, ws_url: str, stop: asyncio.Event, latencies: list[float]) -> int:
    """A local Kalah room that asks for a hint, plays it, waits a second, again."""
    async with httpx.AsyncClient() as http:
        while not stop.is_set():
            r = (
                await http.post(base + "/api/rooms", json={"game": "kalah", "mode": "local"})
            ).json()
            inbox: asyncio.Queue = asyncio.Queue()
            ws = await RawSocket.connect(ws_url, inbox.put_nowait)
            ws.send({"t": "join", "room": r["room"], "token": r["token"]})
            state = None
            while not stop.is_set():
                try:
                    msg = await asyncio.wait_for(inbox.get(), 1.0)
                except TimeoutError:
                    continue
                if msg.t != "state" or (state is not None and msg.version <= state.version):
                    continue
                state = msg
                if state.outcome is not None:
                    break
                await asyncio.sleep(1.0)
                t0 = time.perf_counter()
                ws.send({"t": "hint", "room": r["room"], "id": f"h{state.version}"})
                try:
                    while (msg := await asyncio.wait_for(inbox.get(), 30)).t != "hint":
                        pass
                except TimeoutError:
                    print("no hint within 30 s", file=sys.stderr)
                    break
                latencies.append(time.perf_counter() - t0)
                ws.send(
                    {
                        "t": "move",
                        "room": r["room"],
                        "version": state.version,
                        "move": msg.move,
                        "id": f"m{state.version}",
                    }
                )
            await ws.close()
    return 0


def _record(seed: int) -> bytes:
    """A finished random Kalah game as a nyumba record (new content for each seed)."""
    import engine
    from engine import records

    game, rng = engine.load("kalah"), random.Random(seed)
    state, moves = game.start(), []
    while game.outcome(state) is None:
        move = rng.choice(list(game.legal_moves(state)))
        moves.append(move)
        state = game.play(state, move)
    return records.dumps(game, moves).encode()


async def keep_analysing(base: str, who: int, stop: asyncio.Event, took: list[float]) -> int:
    """Post-game analyses one after another (a new random game each, so none is cached), as
    client address 10.9.0.``who`` (a node runs one per address): returns how many finished."""
    finished, n = 0, int(time.time() * 1000) % 10**9  # new games in every run: none cached
    headers = {"X-Forwarded-For": f"10.9.0.{who}", "Content-Type": "application/json"}
    async with httpx.AsyncClient(timeout=30) as http:
        while not stop.is_set():
            n += 1
            body = _record(who * 10**10 + n)
            t0 = time.perf_counter()
            r = await http.post(base + "/api/analysis", content=body, headers=headers)
            if r.status_code in (
                429,
                503,
            ):  # busy: this address's, or the node's analyses all taken
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                continue
            status = r.json()
            token = status.get("cancel_token")  # only the POST's answer has it
            while status["status"] == "running" and not stop.is_set():
                await asyncio.sleep(0.5)
                status = (
                    await http.get(f"{base}/api/analysis/{status['key']}", headers=headers)
                ).json()
            if status["status"] == "running" and token:  # stopped meanwhile: leave nothing
                auth = {**headers, "Authorization": f"Bearer {token}"}
                await http.delete(f"{base}/api/analysis/{status['key']}", headers=auth)
            elif status["status"] == "done":
                finished += 1
                took.append(time.perf_counter() - t0)
            else:
                print(f"analysis {status['status']}: {json.dumps(status)[:200]}", file=sys.stderr)
    return finished


class AnalysesApart:
    """``count`` analysers (``keep_analysing``) in a process of their own until ``stop()``:
    in the load generator's own loop their HTTP clients took 0.9 s of its CPU in 21 s, and
    a generator busy with them reads its rooms' states late, which counted as the server's
    latency."""

    def __init__(self, base: str, count: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_analyse_apart, args=(base, count, child), daemon=True)
        self.proc.start()

    def stop(self) -> tuple[int, list[float]]:
        """(analyses finished, seconds each)."""
        self.conn.send("stop")
        done, took = self.conn.recv()
        self.proc.join(10)
        return done, took


def _analyse_apart(base: str, count: int, conn: object) -> None:
    async def run() -> None:
        stop, took = asyncio.Event(), []
        tasks = [asyncio.create_task(keep_analysing(base, i + 1, stop, took)) for i in range(count)]
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # type: ignore[attr-defined]
        stop.set()
        done = sum(await asyncio.gather(*tasks))
        conn.send((done, took))  # type: ignore[attr-defined]

    asyncio.run(run())
