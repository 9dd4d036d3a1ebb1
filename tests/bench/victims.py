"""The victims of the abuse bench (tests/bench/abuse.py): friend rooms at 1 move/s, a local
room asking for hints, a computer room, every answer timed; and the addresses both sides use."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from pathlib import Path

import httpx

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from rawws import Msg, RawSocket  # noqa: E402
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
        self.playing: set[str] = set()  # friend rooms in play (the churn bench joins them)
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
            self.playing.add(r["room"])
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
            self.playing.discard(r["room"])
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
