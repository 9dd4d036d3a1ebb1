"""Identity benchmark: how soon an ended session is refused elsewhere, what the check costs a
join, and what an identity flood gets.

    python tests/bench/identity.py [--rounds 20] [--joins 300] [--flood 750]

Two nodes (``nyumba serve``) on one embedded Valkey and one SQLite archive, on 127.0.0.1.

1. **Refused on the other node.** A player made on node A takes a seat on node B (B remembers
   the cookie), is deleted on A, and B is asked at once, again and again, to seat the cookie
   (a room made over HTTP, and a seat taken over the WebSocket); the figures: at which attempt
   B seats nobody, and when that attempt began after the DELETE's answer, over ``--rounds``
   players.
2. **A join's cost.** ``--joins`` visitors join rooms on B over the WebSocket, with a cookie
   B remembers and without one, in turn: the join round trips' medians and p99s (the cookie's
   join asks the store whether its session was revoked).
3. **A flood.** ``--flood`` ``POST /api/me`` without a cookie from one address, on both nodes
   in turn, at the default ``NYUMBA_IDENTITIES_PER_MINUTE``: how many players it got, in how
   long.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from archivekit import Player, seated_as  # noqa: E402
from pgkit import sqlite_url  # noqa: E402
from serverproc import ServerProcess  # noqa: E402
from wsclient import Client, create_room  # noqa: E402

from server.run.cli import embedded_valkey  # noqa: E402


def p99(xs: list[float]) -> float:
    return sorted(xs)[max(0, int(len(xs) * 0.99) - 1)]


def seats(node: ServerProcess, player: Player) -> bool:
    """Whether ``node`` still links a seat to ``player``'s cookie (HTTP or WebSocket)."""
    return seated_as(node, player) != (None, None)


def refused_after(a: ServerProcess, b: ServerProcess, rounds: int) -> list[tuple[int, float]]:
    """Per player: the attempt at which B refused it, and when that attempt began (ms after the
    DELETE's answer; 0 for the first: a probe takes tens of milliseconds of its own)."""
    out = []
    for _ in range(rounds):
        player = Player(a.url)
        assert seats(b, player)
        assert player.request("DELETE", "/api/me").status_code == 204
        start = time.perf_counter()
        attempt, began = 1, 0.0
        while seats(b, player):
            assert time.perf_counter() - start < 120
            attempt, began = attempt + 1, (time.perf_counter() - start) * 1000
        out.append((attempt, began))
    return out


def join_ms(node: ServerProcess, player: Player | None, n: int) -> list[float]:
    out = []
    headers = player.cookie if player else None
    for _ in range(n):
        room = create_room(node.url, "kalah", mode="friend")
        c = Client(node.ws_url, headers=headers)
        start = time.perf_counter()
        c.send(t="join", room=room["room"])
        c.expect("welcome")
        out.append((time.perf_counter() - start) * 1000)
        c.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--joins", type=int, default=300)
    ap.add_argument("--flood", type=int, default=750)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, embedded_valkey(Path(tmp) / "valkey") as url:
        env = {"DATABASE_URL": sqlite_url(Path(tmp)), "NYUMBA_KEY_PREFIX": "bench-identity:"}
        a, b = (
            ServerProcess(redis_url=url, data_dir=Path(tmp) / f"n{i}", env=env).start()
            for i in range(2)
        )
        try:
            refused = refused_after(a, b, args.rounds)
            first = sum(attempt == 1 for attempt, _ in refused)
            print(
                f"refused on the other node: at the first attempt after the DELETE's answer "
                f"for {first} of {args.rounds} players; the latest refusing attempt began "
                f"{max(began for _, began in refused):.1f} ms after it"
            )
            player = Player(a.url)
            assert seats(b, player)
            anon, known = [], []
            for _ in range(args.joins // 50):
                anon += join_ms(b, None, 50)
                known += join_ms(b, player, 50)
            for what, xs in (("without a cookie", anon), ("with a remembered cookie", known)):
                print(
                    f"join {what}: median {statistics.median(xs):.2f} ms, p99 {p99(xs):.2f} ms "
                    f"({len(xs)} joins)"
                )
        finally:
            a.stop()
            b.stop()
        env["NYUMBA_IDENTITIES_PER_MINUTE"] = "120"  # the default, over serverproc's lifting
        env["NYUMBA_KEY_PREFIX"] = "bench-identity-flood:"  # a budget nothing spent yet
        a, b = (
            ServerProcess(redis_url=url, data_dir=Path(tmp) / f"f{i}", env=env).start()
            for i in range(2)
        )
        try:
            start = time.perf_counter()
            codes = [
                httpx.post((a, b)[i % 2].url + "/api/me", timeout=10).status_code
                for i in range(args.flood)
            ]
            took = time.perf_counter() - start
            print(
                f"flood: {args.flood} POST /api/me in {took:.1f} s: {codes.count(201)} players "
                f"made, {codes.count(429)} refused (429)"
            )
        finally:
            a.stop()
            b.stop()


if __name__ == "__main__":
    main()
