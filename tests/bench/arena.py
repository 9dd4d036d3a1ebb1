"""One arena under load, against real ``nyumba serve`` processes (a script, not a test).

    python tests/bench/arena.py [--players 1000] [--nodes 3] [--seconds 60] [--think-ms 500]
                                [--database postgresql|sqlite]

Starts ``--nodes`` nodes on one store (an embedded Valkey of the bench's own) and one archive
(a schema of its own in the machine's PostgreSQL, or a SQLite file they share), makes
``--players`` players (``POST /api/me``), creates one arena of 3-seed Kalah 1+0 lasting
``--seconds`` that starts once they have had time to join, and connects each player's socket
(a lean asyncio client, ``rawws.py``) to a node in turn: it watches the arena (``arena``), joins
it (``arena-join``), joins every room it is paired into and moves a random legal move about
``--think-ms`` after its turn comes, and says ``arena-join`` again as soon as a game is over,
as the example bot (``examples/arena_bot.py``) and the room page do. One more socket per node
only watches. Prints, all times taken on this machine's clock as the messages arrive:

* **end -> next pairing**: from the state that ends a player's game reaching their socket to
  their next ``arena-paired`` (p50/p99/max; pairings after the arena's end are impossible);
* **standings lateness**: from that same state to the first arena view whose row for the
  player counts the game (points included), on the player's own socket (``me``) and on the
  watchers' sockets (the rows their updates carry); p50/p99/max and how many were seen;
* games played, rooms paired other than exactly twice, players paired while still in a game
  (both must be 0), refusals by code, the CPU of the nodes and of this generator, and
  ``/proc/loadavg`` (the machine is shared) before, during and after.

Measured 6 Dec on the 2-core development VM shared with other engineers' work (load average
7-15 throughout), 3 nodes, embedded Valkey, PostgreSQL, 60 s arenas, think 500 ms:

    players  end -> next pairing      own row lateness      games   nodes' CPU
    100      p50  31 ms, p99 1.7 s    p50 240 ms, p99 0.5 s   206   4 s each
    400      p50  45 ms, p99 0.8 s    p50 264 ms, p99 0.8 s   781   11 s each
    1,000    p50 125-163 ms, p99 1.1-1.3 s  p50 450-500 ms, p99 3.2-3.5 s  1,732-1,861  19-21 s each

No wait over 5 s, no room paired other than twice, nobody paired while playing.

Each watcher's own row read in one round trip per update (not one each, i50-exact), 1,000
players, 5 runs each interleaved with main's on 6 Dec (load average 1-15: other benches):

    load     own row lateness: main / one trip        end -> next pairing: main / one trip
    7-15     p50 375-449 / 289-306 ms, p99 2.5-4.7 / 1.2-3.2 s   p50 114-135 / 156-325 ms
    2-10     p50 375 / 275 ms, p99 4.7 / 0.7 s          p50 117 / 102 ms, p99 1.2 / 0.8 s
    1-4      p50 252 / 261 ms, p99 0.58 / 0.50 s        p50 24 / 24 ms, p99 159 / 158 ms
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import msgspec

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from pgkit import own_schema, postgres_url, sqlite_url  # noqa: E402
from rawws import Legal, RawSocket  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

CLOCK = {"initial_ms": 60000, "increment_ms": 0}


class Row(msgspec.Struct):
    player: str
    points: int = 0
    games: int = 0


class Msg(msgspec.Struct):
    """The fields of the server's messages the bench reads (others are skipped)."""

    t: str
    room: str | None = None  # state, arena-paired
    version: int = -1
    to_move: int | None = None
    legal: list[Legal] = []
    outcome: Any = None
    adjudication: str | None = None
    sides: list[int] = []  # welcome
    token: str | None = None  # arena-paired
    status: str | None = None  # arena view
    me: Row | None = None
    standings: list[Row] = []
    code: str | None = None  # error


decode = msgspec.json.Decoder(Msg).decode


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(name: str, ms: list[float]) -> None:
    if not ms:
        print(f"{name}: none measured")
        return
    print(
        f"{name}: n={len(ms)} p50={statistics.median(ms):.0f} ms p99={pct(ms, 0.99):.0f} ms "
        f"max={max(ms):.0f} ms",
        flush=True,
    )


class Tally:
    """What every socket saw, by player: the k-th scored game's end, when a view first
    counted it (own row and watchers'), and the pairing waits."""

    def __init__(self) -> None:
        self.ends: dict[str, list[float]] = {}
        self.own: dict[str, dict[int, float | None]] = {}
        self.watched: dict[str, dict[int, float | None]] = {}
        self.waits: list[float] = []
        self.rooms: Counter[str] = Counter()
        self.overlaps = 0
        self.aborted = 0
        self.refusals: Counter[str] = Counter()
        self.finished = asyncio.Event()

    def seen(self, where: dict[str, dict[int, float | None]], row: Row, now: float) -> None:
        """A view shows ``row`` at ``now``. Its games count is new if the row was last seen
        with one game fewer; seen first, or after several games (a watcher's rows come and go
        with the top 20), it says nothing of when each game was counted (None)."""
        mine = where.get(row.player)
        if mine is None:
            where[row.player] = {row.games: None}
        elif row.games > (last := max(mine)):
            mine[row.games] = now if row.games == last + 1 else None

    def lateness(self, where: dict[str, dict[int, float | None]]) -> list[float]:
        return [
            (at - self.ends[player][k - 1]) * 1000
            for player, seen in where.items()
            for k, at in seen.items()
            if at is not None and k <= len(self.ends.get(player, ()))
        ]


class Bot:
    """One player's socket: watch, join, play each pairing, join again."""

    def __init__(self, player: str, arena: str, think_s: float, tally: Tally, seed: int):
        self.player, self.arena, self.think_s, self.tally = player, arena, think_s, tally
        self.rng = random.Random(seed)
        self.ws: RawSocket | None = None
        self.room: str | None = None
        self.sides: list[int] = []
        self.moved_at = -1
        self.ended: float | None = None  # when the last game's end reached us
        tally.ends[player] = []

    async def connect(self, url: str, cookie: str) -> None:
        self.ws = await RawSocket.connect(url, self.on_message, {"cookie": cookie}, decode=decode)
        self.ws.send({"t": "arena", "arena": self.arena})
        self.ws.send({"t": "arena-join", "arena": self.arena})

    def on_message(self, msg: Msg) -> None:
        now, tally = time.perf_counter(), self.tally
        if msg.t == "state" and msg.room == self.room:
            if msg.outcome is not None:
                self.room = None
                if msg.adjudication == "aborted":
                    tally.aborted += 1  # no points, not a game: not in the lateness either
                else:
                    tally.ends[self.player].append(now)
                self.ended = now
                self.ws.send({"t": "arena-join", "arena": self.arena})
            elif msg.to_move in self.sides and msg.version > self.moved_at and msg.legal:
                self.moved_at = msg.version
                move = self.rng.choice(msg.legal).move
                frame = {"t": "move", "room": msg.room, "version": msg.version, "move": move}
                delay = self.think_s * self.rng.uniform(0.5, 1.5)
                asyncio.get_running_loop().call_later(delay, self.send, frame | {"id": f"m{now}"})
        elif msg.t == "welcome":
            self.sides = msg.sides
        elif msg.t == "arena-paired":
            tally.rooms[msg.room] += 1
            if self.room is not None:
                tally.overlaps += 1
            if self.ended is not None:
                tally.waits.append((now - self.ended) * 1000)
            self.room, self.moved_at, self.ended = msg.room, -1, None
            self.send({"t": "join", "room": msg.room, "token": msg.token})
        elif msg.t == "arena":
            if msg.me is not None:
                tally.seen(tally.own, msg.me, now)
            if msg.status == "finished":
                tally.finished.set()
        elif msg.t == "error":
            tally.refusals[msg.code or "?"] += 1

    def send(self, frame: dict) -> None:
        if self.ws is not None and not self.ws.closed:
            self.ws.send(frame)


async def watcher(url: str, arena: str, tally: Tally) -> RawSocket:
    def on(msg: Msg) -> None:
        if msg.t == "arena":
            now = time.perf_counter()
            for row in msg.standings:
                tally.seen(tally.watched, row, now)
            if msg.status == "finished":
                tally.finished.set()

    ws = await RawSocket.connect(url, on, decode=decode)
    ws.send({"t": "arena", "arena": arena})
    return ws


async def make_players(nodes: list[ServerProcess], n: int) -> list[tuple[str, str]]:
    gate = asyncio.Semaphore(16)

    async def one(i: int) -> tuple[str, str]:
        async with gate, httpx.AsyncClient(timeout=60) as http:  # a cookie jar each
            r = await http.post(nodes[i % len(nodes)].url + "/api/me")
            assert r.status_code == 201, r.text
            return r.json()["player"], f"nyumba_player={r.cookies['nyumba_player']}"

    return await asyncio.gather(*(one(i) for i in range(n)))


async def run(nodes: list[ServerProcess], args: argparse.Namespace) -> None:
    started = time.perf_counter()
    players = await make_players(nodes, args.players + 1)
    print(f"{args.players} players made in {time.perf_counter() - started:.1f} s", flush=True)
    host_cookie = players.pop()[1]
    lead_ms = 10_000 + 40 * args.players  # time to connect and join everyone before it starts
    body = {
        "name": "Bench arena",
        "game": "kalah",
        "options": {"seeds": 3},
        "clock": CLOCK,
        "starts_in_ms": lead_ms,
        "duration_ms": int(args.seconds * 1000),
        "rated": False,
        "berserk": False,
    }
    async with httpx.AsyncClient(timeout=60) as http:
        made = await http.post(
            nodes[0].url + "/api/arenas", json=body, headers={"cookie": host_cookie}
        )
    assert made.status_code == 201, made.text
    spec = made.json()
    tally = Tally()
    cpu0, mine0, wall0 = [cpu_s(n.proc.pid) for n in nodes], time.process_time(), time.time()
    watchers = [await watcher(n.ws_url, spec["id"], tally) for n in nodes]
    bots = [
        Bot(player, spec["id"], args.think_ms / 1000, tally, i)
        for i, (player, _) in enumerate(players)
    ]
    gate = asyncio.Semaphore(32)

    async def connect(i: int) -> None:
        async with gate:
            await bots[i].connect(nodes[i % len(nodes)].ws_url, players[i][1])

    await asyncio.gather(*(connect(i) for i in range(len(bots))))
    late = time.time() * 1000 - spec["starts_ms"]
    print(
        f"{len(bots)} sockets joined in {time.time() - wall0:.1f} s"
        + (f", {late / 1000:.1f} s after the start" if late > 0 else "")
        + f"; loadavg {loadavg()}",
        flush=True,
    )
    ends_at = spec["ends_ms"] / 1000
    while time.time() < ends_at:
        await asyncio.sleep(min(10.0, max(0.1, ends_at - time.time())))
        games = sum(len(e) for e in tally.ends.values()) // 2
        print(
            f"  {time.time() - spec['starts_ms'] / 1000:5.0f} s: {games} games over, "
            f"{len(tally.waits)} pairings after a game; loadavg {loadavg()}",
            flush=True,
        )
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(tally.finished.wait(), 60 + 60 * args.think_ms / 1000)
    cpu = [cpu_s(n.proc.pid) - c for n, c in zip(nodes, cpu0, strict=True)]
    print(f"arena {'finished' if tally.finished.is_set() else 'NOT finished'}; loadavg {loadavg()}")
    label = f"{args.players} players, {len(nodes)} nodes"
    summary(f"end -> next pairing ({label})", tally.waits)
    if tally.waits:
        late = [sum(1 for w in tally.waits if w > limit) for limit in (100, 1000, 5000)]
        print(f"  waits over 0.1 s: {late[0]}, over 1 s: {late[1]}, over 5 s: {late[2]}")
    summary("standings lateness, the player's own row", tally.lateness(tally.own))
    summary("standings lateness, watchers' updates", tally.lateness(tally.watched))
    games = sum(len(e) for e in tally.ends.values())
    print(
        f"games: {games // 2} scored (+{tally.aborted // 2} aborted), "
        f"{games / max(1, len(bots)):.1f} a player; rooms not paired exactly twice: "
        f"{sum(1 for c in tally.rooms.values() if c != 2)}; paired while playing: "
        f"{tally.overlaps}; refusals: {dict(tally.refusals) or 'none'}"
    )
    mine, wall = time.process_time() - mine0, time.time() - wall0
    print(
        f"CPU: nodes {', '.join(f'{c:.0f} s' for c in cpu)}, this generator {mine:.0f} s, "
        f"in {wall:.0f} s of wall time"
    )
    for ws in watchers + [b.ws for b in bots if b.ws is not None]:
        await ws.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60.0, help="the arena's duration")
    ap.add_argument("--think-ms", type=float, default=500.0, help="a bot's time a move, about")
    ap.add_argument("--database", choices=("postgresql", "sqlite"), default="postgresql")
    args = ap.parse_args()
    from server.run.cli import embedded_valkey

    print(f"loadavg at start {loadavg()}", flush=True)
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        store = stack.enter_context(embedded_valkey(tmp / "valkey"))
        if args.database == "postgresql":
            database = stack.enter_context(own_schema(stack.enter_context(postgres_url(tmp))))
        else:
            database = sqlite_url(tmp)
        env = {
            "NYUMBA_KEY_PREFIX": "bench-arena:",
            "DATABASE_URL": database,
            "NYUMBA_ARENA_CREATOR_GAMES": "0",  # the bench's host has no rated games
            "NYUMBA_ARENA_MIN_MS": "1000",
            "NYUMBA_RATE_MESSAGES": "1000000000",  # bots move faster than a person
        }
        nodes = []
        try:
            for i in range(args.nodes):
                node = ServerProcess(redis_url=store, data_dir=tmp / f"n{i}", env=env)
                nodes.append(node.start())
            asyncio.run(run(nodes, args))
        finally:
            for n in nodes:
                n.stop(kill=True)


if __name__ == "__main__":
    main()
