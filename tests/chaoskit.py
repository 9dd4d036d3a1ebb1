"""Chaos: three nodes, many games, clients that drop and resend, a node
SIGKILLed and restarted, the store SIGKILLed and restarted on its append-only
file with moves in flight (a ``redis-server`` of the run's own).

Used by tests/server/live/test_chaos.py (a short sample) and tests/bench/chaos.py.
Afterwards every room's history is replayed through the engine to its stored
position, and every intent a client saw acknowledged must be in it exactly
once; and every move acknowledged from the store's kill on must have reached
both players within ``DELIVERY_S`` of the later of its ack and the store's
return. Players wait for states as a browser does (a quiet socket that still
answers pings is kept), so a state the server fails to send is never seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import signal
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path

import httpx
from serverproc import ServerProcess, free_port
from websockets.asyncio.client import connect

import engine

DELIVERY_S = 3.0  # every acknowledged move reaches both players this soon after the store's return


class Store:
    """A store of the chaos run's own on a fixed port, with append-only persistence,
    that can be SIGKILLed and started again on the same files: a ``redis-server``
    (as deployments run), or where none is installed the embedded Valkey.
    Never the machine's shared Redis."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.port = free_port()
        self.binary = shutil.which("redis-server")
        self.proc: subprocess.Popen | None = None
        self.embedded = None
        if self.binary is None:
            from server.store.embedded import EmbeddedValkey

            self.embedded = EmbeddedValkey(data_dir, port=self.port, fsync="always")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def kind(self) -> str:
        return "redis-server" if self.binary else "embedded Valkey"

    def start(self, timeout: float = 15.0) -> None:
        if self.embedded is not None:
            self.embedded.start()
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.data_dir),
                "--appendonly",
                "yes",
                # Every write on disk before its reply: with "everysec" a SIGKILL can lose
                # acknowledged writes (Redis postpones the AOF write while a slow fsync runs;
                # seen here as one lost move in a run).
                "--appendfsync",
                "always",
                "--save",
                "",
                "--daemonize",
                "no",
                "--logfile",
                str(self.data_dir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the chaos store did not start")

    def kill(self) -> None:
        """SIGKILL: no chance to flush anything (the append-only file has every write)."""
        if self.embedded is not None:
            proc = self.embedded.proc
        else:
            proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)

    def stop(self) -> None:
        if self.embedded is not None:
            self.embedded.stop()
        elif self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class Player:
    """One side of one game: plays random legal moves, drops its connection at
    random, reconnects to a random node and resends what was not acknowledged."""

    def __init__(self, chaos: Chaos, room: str, token: str | None, rng: random.Random):
        self.chaos, self.room, self.token, self.rng = chaos, room, token, rng
        self.side: int | None = None
        self.ws = None
        self.state: dict | None = None
        self.acked: dict[str, int] = {}
        self.acked_at: dict[str, float] = {}  # intent -> when its ack arrived
        self.seen: list[tuple[float, int]] = []  # (when, version) of every state received
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
            if msg["t"] == "state":
                self.seen.append((time.monotonic(), msg["version"]))
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
                        # Wait as a browser does: a silent socket that answers pings is
                        # not dropped, so a state the server never sends is never seen.
                        with contextlib.suppress(TimeoutError):
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
                    self.acked_at[intent] = time.monotonic()
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
        store_down_s: float = 2.5,
    ):
        self.store_down_s = store_down_s  # the store stays dead this long
        self.tmp, self.games, self.seconds, self.drop_rate = tmp, games, seconds, drop_rate
        self.think = think  # a player waits up to this long before each move
        self.rng = random.Random(seed)
        self.game = game
        self.counts: Counter = Counter()
        self.nodes: list[ServerProcess] = []
        # Anything with url/start/stop: a redis-server of the run's own by default (or the
        # embedded Valkey); a Cluster or a Sentinel group (tests/clusterkit.py) with a
        # disaster of its own.
        self.store = store or Store(tmp / "store")
        self.n_nodes = nodes
        self.extra_env = env or {}
        self.disasters = disasters or Chaos._disasters
        self.room_ids: list[str] = []
        self.store_killed_at = self.store_back_at = float("inf")  # set by a store kill
        self.until = 0.0

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
        # On the loop's own thread: an embedded store dies with the thread that started it.
        self.store_killed_at = time.monotonic()
        self.store.kill()
        await asyncio.sleep(self.store_down_s)
        self.store.start()
        self.store_back_at = time.monotonic()
        self.counts["store-restarts"] += 1
        self.counts["intents-at-store-restart"] = self.counts.pop("moves-before-store-restart")

    async def _run(self) -> list[tuple[str, list[Player]]]:
        until = self.until = time.monotonic() + self.seconds
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
        # Close every socket while this loop runs: one left open is collected later, in
        # whichever test is running then, as an "unclosed transport" warning (pytest: an error).
        for _, players in rooms:
            for p in players:
                await p._drop()
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

    def _deliveries(self, players: list[Player]) -> tuple[int, float]:
        """Moves acknowledged from the store's kill on: how many reached a player of
        the room more than ``DELIVERY_S`` after the later of their ack and the store's
        return (or never), and the slowest such delivery in seconds. Acks too close to
        the end of play to judge are left out."""
        late, slowest, judged = 0, 0.0, 0
        for mover in players:
            for intent, version in mover.acked.items():
                acked = mover.acked_at[intent]
                if acked < self.store_killed_at:
                    continue
                due = max(acked, self.store_back_at)
                if due + DELIVERY_S > self.until:
                    continue
                judged += 1
                for p in players:
                    # The state may overtake its ack: any state this new counts.
                    got = next((t for t, v in p.seen if v >= version), None)
                    wait = max(0.0, (got if got is not None else self.until) - due)
                    slowest = max(slowest, wait)
                    if got is None or wait > DELIVERY_S:
                        late += 1
        self.counts["acked-after-store-kill"] += judged
        return late, slowest

    def _verify(self, rooms, elapsed) -> dict:
        lost = duplicated = mismatched = finished = moves = late_after_store = 0
        slowest_after_store = 0.0
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
            late, slowest = self._deliveries(players)
            late_after_store += late
            slowest_after_store = max(slowest_after_store, slowest)
        return {
            "games": len(rooms),
            "finished": finished,
            "moves": moves,
            "seconds": round(elapsed, 1),
            "lost": lost,
            "duplicated": duplicated,
            "mismatched": mismatched,
            "store": getattr(self.store, "kind", type(self.store).__name__),
            "late-after-store-return": late_after_store,
            "slowest-after-store-return-s": round(slowest_after_store, 2),
            **dict(self.counts),
        }
