"""Arenas in the store for tests: scenarios over stores of their own (``scenario``), arenas on
the store's clock, and a crowd of players pairing and playing through several connections at
once (``crowd``), with what it saw checked against the store's own record (``check_crowd``)."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import uuid
from dataclasses import dataclass, field

from asynckit import run

from server.rooms import arena as A
from server.rooms.clock import Control
from server.store.arena import ArenaStore
from server.store.store import Store

LEASE_MS = 30_000


async def store_ms(link) -> int:
    # (a script: a Cluster routes a keyless one to any master; TIME itself names no key)
    seconds, micros = await link.execute("EVAL", "return redis.call('TIME')", 0)
    return int(seconds) * 1000 + int(micros) // 1000


async def until_store_ms(link, at_ms: int, timeout: float = 10.0) -> None:
    """Wait until the store's clock reaches ``at_ms`` (the scripts' clock, not ours)."""
    deadline = time.monotonic() + timeout
    while await store_ms(link) < at_ms:
        assert time.monotonic() < deadline, f"the store's clock never reached {at_ms}"
        await asyncio.sleep(0.01)


def scenario(shared_store, body, connections: int = 1):
    """Run ``body(arenas, *more)`` over ``connections`` stores of their own with one prefix."""

    async def go():
        prefix = f"ta{uuid.uuid4().hex[:6]}:"
        stores = [Store(shared_store, prefix) for _ in range(connections)]
        for s in stores:
            await s.start()
        try:
            return await body(*(ArenaStore(s.link, s.prefix, s.sharded) for s in stores))
        finally:
            cursor = None
            while cursor != 0:  # a shared Redis keeps nobody's keys: only this prefix's
                cursor, found = await stores[0].link.execute(
                    "SCAN", cursor or 0, "MATCH", prefix + "*", "COUNT", 1000
                )
                cursor = int(cursor)
                if found:
                    await stores[0].link.execute("DEL", *found)
            for s in stores:
                await s.close()

    return run(go())


async def new_arena(
    arenas: ArenaStore, starts_in_ms: int = -1000, lasts_ms: int = 600_000, **changes
) -> A.ArenaSpec:
    now = await store_ms(arenas.link)
    spec = A.ArenaSpec(
        "t" + uuid.uuid4().hex[:10], "Test arena", "kalah", {}, Control(60_000, 0), True,
        False, now + starts_in_ms, now + starts_in_ms + lasts_ms, now - 5000,
    )  # fmt: skip
    if changes:
        import msgspec

        spec = msgspec.structs.replace(spec, **changes)
    assert await arenas.create(spec)
    return spec


@dataclass
class Crowd:
    """What a crowd saw: every pairing delivered (by room), how many times each room's
    ``finish`` answered True, the pairings made by the sweep."""

    pairings: dict[str, A.Pairing] = field(default_factory=dict)
    scored: dict[str, int] = field(default_factory=dict)
    swept: int = 0
    duplicates: int = 0


async def crowd(
    nodes: list[ArenaStore],
    arena: str,
    players: list[str],
    seconds: float,
    rematch_ms: int = 10**9,
    seed: int = 1,
) -> Crowd:
    """Each player on node ``i % len(nodes)`` (its own connection) waits, is paired (by its own
    ``wait``, another's, or the sweep; delivered by the answer or its node's ``refresh``),
    plays a short game whose south reports the result (sometimes twice, from two nodes at
    once), and waits again, for ``seconds``. Then every game still open is finished."""
    rng = random.Random(seed)
    seen = Crowd()
    inbox = {p: asyncio.Queue() for p in players}
    done = {}
    stop = time.monotonic() + seconds
    node_of = {p: nodes[i % len(nodes)] for i, p in enumerate(players)}
    node_id = {id(n): f"node{i}" for i, n in enumerate(nodes)}

    def deliver(pairing: A.Pairing) -> None:
        if pairing.room in seen.pairings:
            assert seen.pairings[pairing.room] == pairing
            seen.duplicates += 1
            return
        seen.pairings[pairing.room] = pairing
        done[pairing.room] = asyncio.Event()
        for side in pairing.sides:
            inbox[side.player].put_nowait(pairing)

    async def finish(pairing: A.Pairing, store: ArenaStore) -> None:
        result = rng.choice([["win", "loss"], ["loss", "win"], ["draw", "draw"], None])
        berserk = [rng.random() < 0.2, rng.random() < 0.2]
        players_ = [s.player for s in pairing.sides]
        ended = await store_ms(store.link)
        calls = [store.finish(arena, pairing.room, 0, players_, result, berserk, ended)]
        if rng.random() < 0.3:  # the node that ended it and a sweep both report it
            other = nodes[rng.randrange(len(nodes))]
            calls.append(other.finish(arena, pairing.room, 0, players_, result, berserk, ended))
        oks = await asyncio.gather(*calls)
        seen.scored[pairing.room] = seen.scored.get(pairing.room, 0) + sum(oks)
        done[pairing.room].set()

    async def player(p: str) -> None:
        store = node_of[p]
        while time.monotonic() < stop:
            kind, pairing = await store.why_wait(
                arena, p, "h-" + p, node_id[id(store)], LEASE_MS, secrets.token_urlsafe(9),
                rng.randrange(2), rematch_ms,
            )  # fmt: skip
            assert kind in ("paired", "waiting"), kind
            if pairing is not None:
                deliver(pairing)
            try:
                got = await asyncio.wait_for(inbox[p].get(), max(0.01, stop - time.monotonic()))
            except TimeoutError:
                await store.unwait(arena, p)
                return
            if got.sides[0].player == p:
                await asyncio.sleep(rng.random() * 0.01)  # the game being played
                await finish(got, store)
            else:  # its south reports it; a game paired as the time ran out, the end does
                try:
                    await asyncio.wait_for(
                        done[got.room].wait(), max(0.01, stop - time.monotonic())
                    )
                except TimeoutError:
                    return

    async def node_loop(store: ArenaStore, sweeps: bool) -> None:
        while time.monotonic() < stop:
            for pairing in await store.refresh(node_id[id(store)], LEASE_MS, [arena]):
                deliver(pairing)
            if sweeps:
                now = await store_ms(store.link)
                made = await store.sweep(
                    now, lambda: secrets.token_urlsafe(9), rematch_ms, 10**9, [arena]
                )
                seen.swept += len(made)
                for pairing in made:
                    deliver(pairing)
            await asyncio.sleep(0.02)

    loops = [asyncio.create_task(node_loop(n, i == 0)) for i, n in enumerate(nodes)]
    await asyncio.gather(*(player(p) for p in players))
    await asyncio.gather(*loops)
    for pairing in await nodes[0].refresh("node0", LEASE_MS, [arena]):
        deliver(pairing)
    for i in range(1, len(nodes)):
        for pairing in await nodes[i].refresh(f"node{i}", LEASE_MS, [arena]):
            deliver(pairing)
    for room, pairing in list(seen.pairings.items()):
        if not done[room].is_set():
            await finish(pairing, nodes[0])
    return seen


async def check_crowd(arenas: ArenaStore, arena: str, seen: Crowd, rematch_ms: int) -> None:
    """The store's record agrees with what the crowd saw and with the rules: each game scored
    once, no player in two games at once, no immediate rematch, standings as recomputed."""
    results = await arenas.results(arena)
    assert sorted(r.room for r in results) == sorted(seen.pairings)
    assert set(seen.scored.values()) == {1}
    assert await arenas.playing(arena) == [] and await arenas.playing_rooms(arena) == []
    by_player: dict[str, list[tuple[int, int, str, A.GameResult]]] = {}
    for r in results:
        at = seen.pairings[r.room].at_ms
        assert r.scored_ms >= at
        for side, p in enumerate(r.players):
            by_player.setdefault(p, []).append((at, r.scored_ms, r.players[1 - side], r))
    for p, games in by_player.items():
        games.sort(key=lambda g: (g[0], g[1]))
        for before, after in zip(games, games[1:], strict=False):
            assert after[0] >= before[1], f"{p} was paired before their game ended"
            if rematch_ms >= 10**9:
                assert after[2] != before[2], f"{p} met {after[2]} twice in a row"
    # The standings, recomputed from the results in the order each player's games ended.
    rows = {row.player: row for row in await arenas.standings(arena, 0, 10_000)}
    for p, games in by_player.items():
        streak, sheet, doubled = 0, [], []
        for _, _, _, r in sorted(games, key=lambda g: g[1]):
            if r.result is None:
                continue
            side = r.players.index(p)
            doubled.append(A.doubled(streak, r.result[side]))
            points, streak = A.score(streak, r.result[side], r.berserk[side])
            sheet.append(points)
        assert (rows[p].sheet, rows[p].points) == (sheet, sum(sheet)), p
        assert rows[p].doubled == doubled, p
        assert rows[p].fire == (streak >= 2)
    ranked = sorted(rows.values(), key=lambda r: r.rank)
    assert [r.rank for r in ranked] == list(range(1, len(ranked) + 1))
    assert all(a.points >= b.points for a, b in zip(ranked, ranked[1:], strict=False))
