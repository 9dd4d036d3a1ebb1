"""Chaos: three nodes, many games, clients that drop and resend, a node
SIGKILLed and restarted, the store restarted (append-only file on).

Used by tests/server/test_chaos.py (a short sample) and tests/bench/chaos.py.
Afterwards every room's history is replayed through the engine to its stored
position, and every intent a client saw acknowledged must be in it exactly
once.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from collections import Counter
from pathlib import Path

import httpx
from serverproc import ServerProcess, free_port
from websockets.asyncio.client import connect

import engine


class Store:
    """The embedded Valkey with append-only persistence on a fixed port, restartable."""

    def __init__(self, data_dir: Path):
        from server.embedded import EmbeddedValkey

        self.server = EmbeddedValkey(data_dir, port=free_port(), fsync="always")

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> None:
        self.server.start()

    def stop(self) -> None:
        self.server.stop()


class Player:
    """One side of one game: plays random legal moves, drops its connection at
    random, reconnects to a random node and resends what was not acknowledged."""

    def __init__(self, chaos: Chaos, room: str, token: str | None, rng: random.Random):
        self.chaos, self.room, self.token, self.rng = chaos, room, token, rng
        self.side: int | None = None
        self.ws = None
        self.state: dict | None = None
        self.acked: dict[str, int] = {}
        self.pending: tuple[str, int, str] | None = None  # id, version, move
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.reader: asyncio.Task | None = None
        self.n = 0

    async def connect(self) -> None:
        while True:
            url = self.rng.choice(self.chaos.ws_urls())
            try:
                self.ws = await connect(url, open_timeout=3, close_timeout=1)
                await self.ws.send(
                    json.dumps({"t": "join", "room": self.room, "token": self.token})
                )
                welcome = await self._next("welcome", 5)
                if welcome.get("t") == "error":
                    raise ConnectionError(welcome["code"])
                if welcome.get("token"):
                    self.token = welcome["token"]
                self.side = welcome["sides"][0] if welcome["sides"] else None
                return
            except Exception:
                await self._drop()
                self.chaos.counts["reconnect-retries"] += 1
                await asyncio.sleep(0.2)

    async def _drop(self) -> None:
        if self.reader:
            self.reader.cancel()
            self.reader = None
        if self.ws is not None:
            # An abrupt drop, as a network failure would be: no closing handshake.
            self.ws.transport.abort()
            try:
                await asyncio.wait_for(self.ws.wait_closed(), 1)
            except Exception:
                pass
            self.ws = None
        self.inbox = asyncio.Queue()

    async def _next(self, want: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(want)
            raw = await asyncio.wait_for(self.ws.recv(), left)
            msg = json.loads(raw)
            if msg["t"] == "state" and (
                self.state is None
                or msg["version"] >= self.state["version"]
                or msg["game_no"] != self.state["game_no"]
            ):
                self.state = msg
            if msg["t"] == want or (msg["t"] == "error" and want == "welcome"):
                return msg
            if msg["t"] == "error" and self.pending and msg.get("id") == self.pending[0]:
                return msg
            if msg["t"] == "ack" and self.pending and msg["id"] == self.pending[0]:
                return msg

    async def play(self, until: float) -> None:
        try:
            await self._play(until)
        finally:
            await self._drop()

    async def _play(self, until: float) -> None:
        await self.connect()
        while time.monotonic() < until:
            try:
                if self.pending is None:
                    st = self.state
                    if st is None or st["outcome"] is not None or st["to_move"] != self.side:
                        await self._next("state", 2)
                        continue
                    await asyncio.sleep(self.rng.random() * self.chaos.think)
                    self.n += 1
                    move = self.rng.choice(st["legal"])["move"]
                    self.pending = (f"{self.side}-{self.n}", st["version"], move)
                intent, version, move = self.pending
                await self.ws.send(
                    json.dumps(
                        {
                            "t": "move",
                            "room": self.room,
                            "version": version,
                            "move": move,
                            "id": intent,
                        }
                    )
                )
                self.chaos.counts["intents-sent"] += 1
                if self.rng.random() < self.chaos.drop_rate:
                    self.chaos.counts["drops"] += 1
                    await self._drop()  # gone before the answer: must resend
                    await self.connect()
                    self.chaos.counts["resends"] += 1
                    continue
                answer = await self._next("ack", 3)
                if answer["t"] == "ack":
                    self.acked[intent] = answer["version"]
                    self.chaos.counts["acked"] += 1
                    self.pending = None
                elif answer["code"] in ("stale", "not-your-turn", "game-over", "illegal"):
                    # Judged on a view the server had moved past; only possible when a resend
                    # lost a race with nothing (our own earlier try was never applied).
                    self.pending = None
                else:  # internal (store down), busy: try the same intent again
                    self.chaos.counts[f"retry-{answer['code']}"] += 1
                    await asyncio.sleep(0.3)
            except Exception:
                self.chaos.counts["reconnects"] += 1
                await self._drop()
                await asyncio.sleep(0.1)
                await self.connect()
            if (
                self.state is not None
                and self.state["outcome"] is not None
                and self.pending is None
            ):
                return


class Chaos:
    def __init__(
        self,
        tmp: Path,
        *,
        games: int,
        seconds: float,
        drop_rate: float = 0.05,
        seed: int = 1,
        game: str = "oware",
        think: float = 0.3,
        store=None,
        nodes: int = 3,
        env: dict[str, str] | None = None,
        disasters=None,
    ):
        self.tmp, self.games, self.seconds, self.drop_rate = tmp, games, seconds, drop_rate
        self.think = think  # a player waits up to this long before each move
        self.rng = random.Random(seed)
        self.game = game
        self.counts: Counter = Counter()
        self.nodes: list[ServerProcess] = []
        # Anything with url/start/stop: the embedded Valkey by default; a Cluster or a
        # Sentinel group (tests/clusterkit.py) with a disaster of its own.
        self.store = store or Store(tmp / "valkey")
        self.n_nodes = nodes
        self.extra_env = env or {}
        self.disasters = disasters or Chaos._disasters
        self.room_ids: list[str] = []

    def ws_urls(self) -> list[str]:
        return [n.ws_url for n in self.nodes if n.proc and n.proc.poll() is None]

    def _node(self, i: int, port: int | None = None) -> ServerProcess:
        return ServerProcess(
            redis_url=self.store.url,
            data_dir=self.tmp / f"node{i}",
            port=port,
            env={
                "NYUMBA_KEY_PREFIX": "chaos:",
                "NYUMBA_PRESENCE_TTL_MS": "2000",
                "NYUMBA_TICK_MS": "500",
                "NYUMBA_RATE_MESSAGES": "100000",
                **self.extra_env,
            },
        )

    async def _disasters(self, until: float) -> None:
        span = until - time.monotonic()
        await asyncio.sleep(span * 0.25)
        victim = self.nodes[1]
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait(5)
        self.counts["node-kills"] += 1
        await asyncio.sleep(span * 0.1)
        self.nodes[1] = self._node(1, port=victim.port)
        self.nodes[1].start()
        self.counts["node-restarts"] += 1
        await asyncio.sleep(span * 0.15)
        self.counts["moves-before-store-restart"] = self.counts["intents-sent"]
        # On the loop's own thread: the store dies with the thread that started it.
        self.store.stop()
        await asyncio.sleep(1.0)
        self.store.start()
        self.counts["store-restarts"] += 1
        self.counts["intents-at-store-restart"] = self.counts.pop("moves-before-store-restart")

    async def _run(self) -> list[tuple[str, list[Player]]]:
        until = time.monotonic() + self.seconds
        base = self.nodes[0].url
        rooms = []
        async with httpx.AsyncClient() as http:
            for _ in range(self.games):
                r = (await http.post(base + "/api/rooms", json={"game": self.game})).json()
                south = Player(self, r["room"], r["token"], random.Random(self.rng.random()))
                north = Player(self, r["room"], None, random.Random(self.rng.random()))
                rooms.append((r["room"], [south, north]))
        self.room_ids = [room for room, _ in rooms]
        # North must claim its seat before playing: connect everyone first.
        for _, players in rooms:
            for p in players:
                await p.connect()
        chaos = asyncio.create_task(self.disasters(self, until))
        await asyncio.gather(*(p.play(until) for _, ps in rooms for p in ps))
        await chaos
        return rooms

    def run(self) -> dict:
        self.store.start()
        try:
            self.nodes = [self._node(i).start() for i in range(self.n_nodes)]
            t0 = time.monotonic()
            rooms = asyncio.run(self._run())
            elapsed = time.monotonic() - t0
            return self._verify(rooms, elapsed)
        finally:
            for n in self.nodes:
                n.stop(kill=True)
            self.store.stop()

    def _verify(self, rooms, elapsed) -> dict:
        lost = duplicated = mismatched = finished = moves = 0
        base = self.nodes[0].url
        for room, players in rooms:
            rec = httpx.get(f"{base}/api/rooms/{room}/history", timeout=10).json()
            assert "game" in rec, rec
            g = engine.load(rec["game"], **rec["options"])
            state = g.start()
            for text in rec["moves"]:
                state = g.play(state, g.parse(state, text))
            from wsclient import Client

            watcher = Client(self.nodes[0].ws_url)
            watcher.join(room)
            if (
                g.describe(state) != watcher.state["position"]
                or len(rec["moves"]) != watcher.state["plies"]
            ):
                mismatched += 1
            finished += watcher.state["outcome"] is not None
            watcher.close()
            moves += len(rec["moves"])
            ids = Counter(i for i in rec["ids"] if i is not None)
            duplicated += sum(n - 1 for n in ids.values() if n > 1)
            for p in players:
                lost += sum(1 for i in p.acked if ids[i] == 0)
        return {
            "games": len(rooms),
            "finished": finished,
            "moves": moves,
            "seconds": round(elapsed, 1),
            "lost": lost,
            "duplicated": duplicated,
            "mismatched": mismatched,
            **dict(self.counts),
        }
