"""An arena across real nodes (issue 50, server/PROTOCOL.md "Arenas"): players on three nodes
join one short arena and play to its end with bots (tests/arenakit.py); then every game was
paired once, no player was in two games at once (by the archive's start and end times and by
the pairings the bots saw), the standings equal a recomputation from the archive's rows alone
(``server/archive/arenas.py`` ``recompute``), no pairing came after the end and games still
running at the end counted. One node is SIGKILLed during the arena: no game or point is lost.

CI runs ``PLAYERS`` (40) players; ``NYUMBA_ARENA_PLAYERS=200`` runs the issue's 200.
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import threading
import time
from collections import defaultdict

import httpx
from arenabots import Bot, new_player, wait_for
from asynckit import run
from pgkit import sqlite_url

from server.archive.arenas import ArenaGameRow, recompute

PLAYERS = int(os.environ.get("NYUMBA_ARENA_PLAYERS", "40"))
MOVE_S = float(os.environ.get("NYUMBA_ARENA_MOVE_S", "0.1"))  # a bot's time to move
SECONDS = float(os.environ.get("NYUMBA_ARENA_SECONDS", "25"))
ARCHIVE_WAIT_S = 150.0  # how long the archive may take to catch up after the arena
# What a bot may be answered: the end, and moves raced by the other side's resignation, a
# flag or its own stale view (a bot's reconnection: its move resent, or a room that ended).
ALLOWED_ERRORS = {"arena-over", "game-over", "stale", "not-your-turn", "no-room", "id-reused"}
# How far a node's reckoning of the store's clock may be off (server/live/local.py: measured
# at start and each minute, within half a round trip, which a loaded machine makes long: 101 ms
# seen with 200 bots at a load of 9 on two cores). The bots' own order is exact.
SKEW_MS = 250
ENV = {
    "NYUMBA_ARENA_MIN_MS": "5000",
    "NYUMBA_ARENA_CREATOR_GAMES": "0",
    "NYUMBA_ABORT_MS": "4000",
    "NYUMBA_ARENA_REMATCH_MS": "1500",
    "NYUMBA_ARCHIVE_RETRY_MS": "1000",
    # Bots play a game a second on one socket each, all from one address.
    "NYUMBA_RATE_MESSAGES": "1000000",
    "NYUMBA_RATE_MESSAGES_PER_ADDRESS": "100000000",
    "NYUMBA_JOINS_PER_MINUTE": "1000000",
}


def archived_games(url: str, arena: str) -> list[ArenaGameRow]:
    """The arena's games in the archive (SQLite), read as ``games_of`` reads them."""
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        rows = db.execute(
            "select g.id, g.room, g.winner, g.reason, g.adjudication, g.berserk, g.started_ms,"
            " g.ended_ms, g.rated, s.side, s.player, s.name from games g join game_seats s"
            " on s.game = g.id where g.arena = ? order by g.ended_ms, g.id, s.side",
            (arena,),
        ).fetchall()
    out: dict[str, ArenaGameRow] = {}
    for gid, room, winner, reason, adj, berserk, started, ended, rated, side, player, name in rows:
        g = out.setdefault(
            gid,
            ArenaGameRow(
                gid,
                room,
                [None, None],
                [None, None],
                winner,
                reason,
                adj,
                None if berserk is None else __import__("json").loads(berserk),
                started,
                ended,
                bool(rated),
            ),  # fmt: skip
        )
        g.players[side], g.names[side] = player, name
    return list(out.values())


def play(bots: list[Bot], arena: str, until: float) -> None:
    async def all_of() -> None:
        await asyncio.gather(*(b.run(arena, until) for b in bots))

    run(all_of())


def run_arena(lobby_nodes, tmp_path, players: int, seconds: float, kill: bool) -> None:
    url = sqlite_url(tmp_path)
    nodes = lobby_nodes(3, DATABASE_URL=url, **ENV)
    bases = [n.url for n in nodes]
    made = [new_player(bases[i % 3], f"Bot{i}") for i in range(players)]
    creator = {"cookie": f"nyumba_player={made[0][1]}"}
    r = httpx.post(
        bases[0] + "/api/arenas",
        json={"game": "kalah", "options": {"seeds": 3}, "clock": {"initial_ms": 20000,
              "increment_ms": 0}, "starts_in_ms": 4000, "duration_ms": int(seconds * 1000),
              "rated": True, "berserk": True},
        headers=creator, timeout=10,
    )  # fmt: skip
    assert r.status_code == 201, r.text
    spec = r.json()
    arena, ends_ms = spec["id"], spec["ends_ms"]
    bots = [
        Bot(p, s, bases, i % 3, random.Random(i), delay=0.5 if i % 10 == 9 else MOVE_S,
            berserk_odds=0.2)
        for i, (p, s) in enumerate(made)
    ]  # fmt: skip
    if kill:  # a node dies a third of the way into the arena, its sockets with it
        at = spec["starts_ms"] / 1000 + seconds / 3
        threading.Timer(max(0.0, at - time.time()), nodes[2].stop, kwargs={"kill": True}).start()
    started = time.monotonic()
    play(bots, arena, ends_ms / 1000 + 1.5)
    live = [b for i, b in enumerate(nodes) if not (kill and i == 2)]
    final = wait_for(
        lambda: (a := httpx.get(live[0].url + f"/api/arenas/{arena}", timeout=10).json())
        and a["status"] == "finished" and a,
        60, "the arena to be finalized",
    )  # fmt: skip
    for page in range(1, (players + 99) // 100):
        more = httpx.get(live[0].url + f"/api/arenas/{arena}?page={page}", timeout=10).json()
        final["standings"] += more["standings"]
    elapsed = time.monotonic() - started
    scored = sum(row["games"] for row in final["standings"]) // 2  # each game in two rows
    # Archived as they end, by their nodes (or a retry) — in the replay pool's processes, at
    # nice 19, so behind the moves: while the 200 bots and three nodes fill this
    # machine's two cores the archive falls behind (measured: 93 of 1,230 games written when
    # the arena was finalized, all 1,230 35 s later; a 30 s bound failed 2 runs in about 20).
    # Every scored game must arrive; the bound only stops a test that would wait forever.
    games = wait_for(
        lambda: (found := archived_games(url, arena)) and len(found) >= scored and found,
        ARCHIVE_WAIT_S, "every scored game in the archive",
    )  # fmt: skip
    assert len(games) == scored
    final["games"] = httpx.get(live[0].url + f"/api/arenas/{arena}", timeout=10).json()["games"]
    # Every game paired once: each room the bots were paired into, by two players, sides 0 and 1.
    by_room: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for bot in bots:
        rooms = [g.room for g in bot.games]
        assert len(rooms) == len(set(rooms)), f"{bot.player} paired twice into one room"
        for g in bot.games:
            by_room[g.room].append((bot.player, g.side))
            assert g.paired_at <= ends_ms / 1000 + 0.5, "paired after the end"
    for room, seats in by_room.items():
        assert sorted(side for _, side in seats) == [0, 1] or len(seats) == 1, (room, seats)
    # No player in two games at once: the pairings each bot saw, and the archive's times.
    for bot in bots:
        for a, b in zip(bot.games, bot.games[1:]):
            assert a.ended_at is not None and a.ended_at <= b.paired_at, (bot.player, a, b)
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for g in games:
        assert g.room in by_room, f"an archived game nobody was paired into: {g.room}"
        for p in g.players:
            spans[p].append((g.started_ms, g.ended_ms))
    for p, times in spans.items():
        times.sort()
        for (_, end), (start, _) in zip(times, times[1:]):
            # (a game's end is the judging node's reckoning of the store's clock, its start the
            # store's own: they may differ by a few ms, never by a game)
            assert end <= start + SKEW_MS, f"{p} played two games at once"
    assert len({g.room for g in games}) == len(games), "a room archived two arena games"
    # The standings equal the archive's recomputation (players with games; order too).
    standings = [row for row in final["standings"] if row["games"]]
    again = recompute(games)
    assert [
        (r["player"], r["points"], r["games"], r["sheet"], r["doubled"]) for r in standings
    ] == [(r.player, r.points, r.games, r.sheet, r.doubled) for r in again]
    assert final["players"] == players
    # Games still running at the end counted; none started after it.
    late = [g for g in games if g.ended_ms > ends_ms]
    assert all(g.started_ms <= ends_ms + 100 for g in games)
    assert late, "no game outlasted the arena (the slow bots' games should)"
    assert {p for g in late for p in g.players} <= {r["player"] for r in standings}
    # Asking for a game after the end is refused (the late games' players did).
    codes = {e["code"] for b in bots for e in b.errors}
    assert "arena-over" in codes and codes <= ALLOWED_ERRORS, codes
    podium = final["podium"]
    assert [r["player"] for r in podium] == [r.player for r in again[:3]]
    totals: dict[str, int] = defaultdict(int)  # the final page's games, with their points
    for g in final["games"]:
        for side, p in enumerate(g["players"]):
            totals[p] += g["points"][side]
    assert len(final["games"]) == len(games)
    assert {p: v for p, v in totals.items() if v} == {
        r["player"]: r["points"] for r in standings if r["points"]
    }
    listed = httpx.get(live[-1].url + "/api/arenas", timeout=10).json()
    kept = next(a for a in listed["finished"] if a["arena"]["id"] == arena)
    assert kept["podium"] == podium and kept["players"] == players
    assert arena not in {a["id"] for a in listed["upcoming"] + listed["running"]}
    berserked = sum(1 for g in games if g.berserk and any(g.berserk))
    gaps = sorted(  # a game's end (as its bot heard it) to that bot's next pairing
        b.paired_at - a.ended_at for bot in bots for a, b in zip(bot.games, bot.games[1:])
        if a.ended_at is not None
    )  # fmt: skip
    p50, p99 = (gaps[int(q * (len(gaps) - 1))] * 1000 for q in (0.5, 0.99)) if gaps else (0, 0)
    report = (
        f"{players} players, {len(games)} archived games ({len(late)} ended after the end), "
        f"{len(by_room)} pairings, {berserked} with berserk, {sum(b.reconnects for b in bots)} "
        f"reconnections, {elapsed:.1f} s; end to next pairing p50 {p50:.0f} ms, p99 {p99:.0f} ms"
    )
    if not kill:
        assert not any(b.closes for b in bots), [b.closes for b in bots if b.closes][:3]
    print(report)
    (tmp_path / "figures.txt").write_text(report)


def test_players_on_three_nodes_play_an_arena_to_its_end(lobby_nodes, tmp_path):
    run_arena(lobby_nodes, tmp_path, PLAYERS, SECONDS, kill=False)


def test_a_node_killed_during_the_arena_loses_no_game_or_point(lobby_nodes, tmp_path):
    run_arena(lobby_nodes, tmp_path, PLAYERS, SECONDS, kill=True)
