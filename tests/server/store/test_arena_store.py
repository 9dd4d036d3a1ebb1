"""Arenas in a real store (the embedded Valkey, and the Redis at REDIS_URL when set): creating
and listing, joining and pausing, the pairing script's rules (nearest in points then rating, no
immediate rematch, sides by souths, nothing after the end), scoring each game once, the sweep,
and 200 players pairing at once through eight connections."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from arenakit import check_crowd, crowd, new_arena, scenario, store_ms, until_store_ms

from server.rooms import arena as A
from server.store.arena import ArenaStore
from server.store.store import Store

LEASE = 30_000


async def joined(arenas: ArenaStore, arena: str, *players: str, rating: int = 1500) -> None:
    for p in players:
        await arenas.join(arena, p, p.upper(), rating)


async def wait(arenas: ArenaStore, arena: str, player: str, coin: int = 0, rematch: int = 10**9):
    return await arenas.why_wait(
        arena, player, "h-" + player, "n1", LEASE, "r-" + uuid.uuid4().hex[:8], coin, rematch
    )


async def win(arenas: ArenaStore, arena: str, winner: str, loser: str, room: str) -> None:
    """A game between the two scored (the pairing need not be the store's)."""
    assert await arenas.finish(arena, room, 0, [winner, loser], ["win", "loss"], [], 0)


def test_create_is_once_get_and_the_listing_leaves_out_finished_arenas(shared_store):
    async def body(arenas: ArenaStore):
        first = await new_arena(arenas)
        later = await new_arena(arenas, starts_in_ms=3_600_000)
        assert not await arenas.create(first)
        assert await arenas.get(first.id) == first and await arenas.get("nope") is None
        assert [a.id for a in await arenas.listing(0)] == [first.id, later.id]
        assert await arenas.claim(first.id, "n1", 60_000)
        assert not await arenas.claim(first.id, "n2", 60_000)
        await arenas.mark_finished(first.id)
        assert await arenas.is_finished(first.id) and not await arenas.is_finished(later.id)
        assert [a.id for a in await arenas.listing(0)] == [later.id]

    scenario(shared_store, body)


def test_join_refuses_an_unknown_or_ended_arena_and_a_pause_keeps_the_row(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        with pytest.raises(A.ArenaRefused) as no:
            await arenas.join("nope", "p1", None, None)
        assert no.value.code == "no-arena"
        ended = await new_arena(arenas, starts_in_ms=-5000, lasts_ms=1000)
        with pytest.raises(A.ArenaRefused) as over:
            await arenas.join(ended.id, "p1", None, None)
        assert over.value.code == "arena-over" and await arenas.players(ended.id) == 0
        row = await arenas.join(spec.id, "p1", "Amy", 1612)
        assert row == A.Row(1, "p1", "Amy", 0, 0, 0, 0, 0, False, 0, [], [], False, 1612)
        assert (await wait(arenas, spec.id, "p1"))[0] == "waiting"
        paused = await arenas.pause(spec.id, "p1")
        assert paused is not None and paused.paused
        assert await wait(arenas, spec.id, "p1") == ("paused", None)
        assert await arenas.pause(spec.id, "stranger") is None
        assert await wait(arenas, spec.id, "stranger") == ("not-joined", None)
        again = await arenas.join(spec.id, "p1", None, None)  # resumes; keeps name and rating
        assert (again.paused, again.name, again.rating) == (False, "Amy", 1612)
        assert await arenas.players(spec.id) == 1
        await arenas.mark_finished(spec.id)
        with pytest.raises(A.ArenaRefused) as final:
            await arenas.join(spec.id, "p2", None, None)
        assert final.value.code == "arena-over"

    scenario(shared_store, body)


def test_pairing_takes_the_nearest_in_points_then_in_rating(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas, starts_in_ms=400)
        await joined(arenas, spec.id, "x", "y")
        for p, rating in {"w4": 1500, "w2a": 1400, "w2b": 1700, "w0": 1500, "n2": 1500}.items():
            await arenas.join(spec.id, p, None, rating)
        for n, (w, loser) in enumerate([("w4", "x"), ("w4", "y"), ("w2a", "x"), ("w2b", "y")]):
            await win(arenas, spec.id, w, loser, f"seed{n}")
        await win(arenas, spec.id, "n2", "x", "seed9")
        # Before the start, waiting players are listed, not paired.
        for p in ("w4", "w2a", "w2b", "w0"):
            assert await wait(arenas, spec.id, p) == ("waiting", None)
        await until_store_ms(arenas.link, spec.starts_ms)
        # n2 (2 points, 1500): w2a and w2b have 2 too; w2a's 1400 is the nearer rating.
        kind, made = await wait(arenas, spec.id, "n2")
        assert kind == "paired" and made is not None
        assert {s.player for s in made.sides} == {"n2", "w2a"}
        # x (0 points): w0 (0) before w2b (2) and w4 (4).
        _, made = await wait(arenas, spec.id, "x")
        assert made is not None and {s.player for s in made.sides} == {"x", "w0"}
        _, made = await wait(arenas, spec.id, "y")  # 0 points: w2b (2) before w4 (4)
        assert made is not None and {s.player for s in made.sides} == {"y", "w2b"}
        games = await arenas.playing(spec.id)
        assert sorted(sorted(g.players) for g in games) == [
            ["n2", "w2a"],
            ["w0", "x"],
            ["w2b", "y"],
        ]
        assert await wait(arenas, spec.id, "x") == ("playing", None)

    scenario(shared_store, body)


def test_sides_the_one_with_fewer_souths_takes_south_the_coin_on_equal(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await joined(arenas, spec.id, "a", "b", "c")
        await wait(arenas, spec.id, "a")
        _, first = await wait(arenas, spec.id, "b", coin=0)  # equal: coin 0, the longer waiter
        assert first is not None and [s.player for s in first.sides] == ["a", "b"]
        assert await arenas.finish(spec.id, first.room, 0, ["a", "b"], ["draw", "draw"], [], 0)
        await wait(arenas, spec.id, "c")
        _, second = await wait(arenas, spec.id, "a", coin=0)  # a has a south, c none
        assert second is not None and [s.player for s in second.sides] == ["c", "a"]
        assert [s.token_hash for s in second.sides] == ["h-c", "h-a"]
        await arenas.finish(spec.id, second.room, 0, ["c", "a"], ["win", "loss"], [], 0)
        await wait(arenas, spec.id, "b")
        _, third = await wait(arenas, spec.id, "c", coin=1)  # b none, c one: the coin is not asked
        assert third is not None and [s.player for s in third.sides] == ["b", "c"]
        await joined(arenas, spec.id, "d", "e")
        await wait(arenas, spec.id, "d")
        _, fourth = await wait(arenas, spec.id, "e", coin=1)  # equal: coin 1, the newcomer
        assert fourth is not None and [s.player for s in fourth.sides] == ["e", "d"]

    scenario(shared_store, body)


def test_never_the_previous_opponent_until_both_waited_the_rematch_time(shared_store):
    async def body(arenas: ArenaStore):
        async def played(spec: A.ArenaSpec) -> None:
            await joined(arenas, spec.id, "a", "b")
            await wait(arenas, spec.id, "a")
            _, game = await wait(arenas, spec.id, "b")
            assert game is not None
            await win(arenas, spec.id, "a", "b", game.room)
            assert await wait(arenas, spec.id, "a", rematch=300) == ("waiting", None)
            assert await wait(arenas, spec.id, "b", rematch=300) == ("waiting", None)
            now = await store_ms(arenas.link)
            assert await arenas.sweep(now, lambda: "never", 300, 10**9, [spec.id]) == []

        # A third player is paired at once, with the nearer in points (b: 0, as c).
        spec = await new_arena(arenas)
        await played(spec)
        await arenas.join(spec.id, "c", None, 1500)
        kind, third = await wait(arenas, spec.id, "c", rematch=300)
        assert kind == "paired" and third is not None
        assert {s.player for s in third.sides} == {"b", "c"}
        # Once both have waited the rematch time, a wait sent again pairs them ...
        spec = await new_arena(arenas)
        await played(spec)
        await until_store_ms(arenas.link, await store_ms(arenas.link) + 320)
        kind, again = await wait(arenas, spec.id, "a", rematch=300)
        assert again is not None and {s.player for s in again.sides} == {"a", "b"}
        # ... and so does the sweep, with nobody sending anything.
        spec = await new_arena(arenas)
        await played(spec)
        now = await store_ms(arenas.link)
        await until_store_ms(arenas.link, now + 320)
        swept = await arenas.sweep(now, lambda: "rematch", 300, 10**9, [spec.id])
        assert [(m.room, {s.player for s in m.sides}) for m in swept] == [("rematch", {"a", "b"})]
        assert await arenas.playing_rooms(spec.id) == ["rematch"]

    scenario(shared_store, body)


def test_a_stale_waiter_is_dropped_not_paired(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await joined(arenas, spec.id, "gone", "here")
        assert (await arenas.why_wait(spec.id, "gone", "h", "dead", 1, "r0", 0))[0] == "waiting"
        await until_store_ms(arenas.link, await store_ms(arenas.link) + 5)
        assert await wait(arenas, spec.id, "here") == ("waiting", None)
        assert await arenas.link.execute("ZSCORE", arenas.keys(spec.id) + "lease", "gone") is None

    scenario(shared_store, body)


def test_no_pairing_after_the_end_and_the_sweep_lets_the_waiters_go(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas, starts_in_ms=-1000, lasts_ms=1400)
        await joined(arenas, spec.id, "a", "b", "c", "d")
        await wait(arenas, spec.id, "a")
        _, game = await wait(arenas, spec.id, "b")
        assert game is not None
        assert await wait(arenas, spec.id, "c") == ("waiting", None)
        await until_store_ms(arenas.link, spec.ends_ms)
        assert await wait(arenas, spec.id, "d") == ("over", None)
        now = await store_ms(arenas.link)
        assert await arenas.sweep(now, lambda: "late", 0, 10**9, [spec.id]) == []
        assert await arenas.link.execute("ZCARD", arenas.keys(spec.id) + "waiting") == 0
        # The game in progress still counts.
        assert await arenas.finish(spec.id, game.room, 0, ["a", "b"], ["win", "loss"], [], now)
        assert [(r.player, r.points) for r in await arenas.standings(spec.id)][0] == ("a", 2)

    scenario(shared_store, body)


def test_finish_scores_once_aborted_games_count_nothing_and_keep_the_streak(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await joined(arenas, spec.id, "a", "b")
        heard: list[dict] = []
        listener = Store(shared_store, arenas.prefix)
        await listener.start()
        pubsub = listener.pubsub()
        pubsub.deliver = lambda channel, data: heard.append(json.loads(data))
        await pubsub.subscribe(arenas.channel(spec.id))
        try:
            await wait(arenas, spec.id, "a")
            _, g1 = await wait(arenas, spec.id, "b")
            assert g1 is not None
            players = [s.player for s in g1.sides]
            first = players.index("a")
            result: list[A.Result] = ["win", "loss"] if first == 0 else ["loss", "win"]
            args = (spec.id, g1.room, 0, players, result, [False, False], 10)
            five = await asyncio.gather(*(arenas.finish(*args) for _ in range(5)))
            assert sorted(five) == [False, False, False, False, True]
            assert not await arenas.finish(*args)
            rows = {r.player: r for r in await arenas.standings(spec.id)}
            assert (rows["a"].points, rows["a"].games, rows["b"].games) == (2, 1, 1)
            assert await arenas.link.execute("HLEN", arenas.keys(spec.id) + "playing") == 0
            # win, (aborted), win, win: 2, -, 2, 4 (the abort neither counts nor breaks it).
            await arenas.finish(spec.id, "ab", 0, ["a", "b"], None, [True, False], 20)
            await win(arenas, spec.id, "a", "b", "w2")
            await arenas.finish(spec.id, "w3", 0, ["b", "a"], ["loss", "win"], [False, True], 30)
            row = await arenas.row(spec.id, "a")
            assert row is not None and (row.sheet, row.points, row.games) == ([2, 2, 5], 9, 3)
            assert (row.wins, row.berserks, row.fire, row.rank) == (3, 1, True, 1)
            assert row.doubled == [False, False, True]  # the third win, berserked: 4 + 1
            # An abort by b's missing first move pauses b at once.
            await arenas.finish(spec.id, "ab2", 0, ["a", "b"], None, [False, False], 40, 1)
            b = await arenas.row(spec.id, "b")
            assert b is not None and b.paused and b.games == 3 and b.points == 0
            deadline = asyncio.get_running_loop().time() + 5
            while len([h for h in heard if h["k"] == "finished"]) < 5:
                assert asyncio.get_running_loop().time() < deadline, heard
                await asyncio.sleep(0.01)
            kinds = [h["k"] for h in heard]
            assert kinds.count("paired") == 1 and kinds.count("finished") == 5
            assert heard[-1] == {
                "k": "finished", "room": "ab2", "players": ["a", "b"], "points": [0, 0],
                "paused": "b",
            }  # fmt: skip
        finally:
            await pubsub.aclose()
            await listener.close()

    scenario(shared_store, body)


def test_each_row_says_which_games_points_were_doubled(shared_store):
    """The row's ``doubled`` runs beside its sheet: the third win in a row and a draw on fire
    are doubled; the loss that ends a streak and the games after it are not; an aborted game is
    in neither."""

    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await joined(arenas, spec.id, "a", "b")
        games: list[tuple[str, A.Result | None]] = [
            ("g1", "win"), ("g2", "win"), ("g3", "win"), ("g4", "draw"), ("g5", "win"),
            ("g6", "win"), ("ab", None), ("g7", "loss"), ("g8", "win"),
        ]  # fmt: skip
        lost: dict[A.Result, A.Result] = {"win": "loss", "draw": "draw", "loss": "win"}
        for n, (room, r) in enumerate(games):
            result = None if r is None else [r, lost[r]]
            assert await arenas.finish(spec.id, room, 0, ["a", "b"], result, [False, False], n)
        a, b = await arenas.row(spec.id, "a"), await arenas.row(spec.id, "b")
        assert a is not None and b is not None
        assert a.sheet == [2, 2, 4, 2, 2, 2, 0, 2]
        assert a.doubled == [False, False, True, True, False, False, False, False]
        # b: five losses, the draw, a win then (no streak before it).
        assert (b.sheet, b.doubled) == ([0, 0, 0, 1, 0, 0, 2, 0], [False] * 8)
        assert [r.doubled for r in await arenas.standings(spec.id)] == [a.doubled, b.doubled]

    scenario(shared_store, body)


def test_the_sweep_pauses_an_absent_player_not_a_waiting_or_playing_one(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await joined(arenas, spec.id, "absent", "p1", "p2", "waits")
        await wait(arenas, spec.id, "p1")
        _, game = await wait(arenas, spec.id, "p2")
        assert game is not None
        await wait(arenas, spec.id, "waits")
        now = await store_ms(arenas.link)
        assert await arenas.sweep(now, lambda: "x", 10**9, 200, [spec.id]) == []
        assert not (await arenas.row(spec.id, "absent")).paused  # type: ignore[union-attr]
        await until_store_ms(arenas.link, now + 250)
        await arenas.refresh("n1", LEASE, [spec.id])  # "waits"'s node renews its lease
        await arenas.sweep(now, lambda: "x", 10**9, 200, [spec.id])
        rows = {r.player: r.paused for r in await arenas.standings(spec.id)}
        assert rows == {"absent": True, "p1": False, "p2": False, "waits": False}

    scenario(shared_store, body)


def test_two_hundred_players_pair_at_once_each_in_one_game_at_a_time(shared_store):
    async def body(*nodes: ArenaStore):
        spec = await new_arena(nodes[0])
        players = [f"p{i:03d}" for i in range(200)]
        await asyncio.gather(
            *(nodes[i % 8].join(spec.id, p, None, 1500 + i) for i, p in enumerate(players))
        )
        seen = await crowd(list(nodes), spec.id, players, seconds=4.0)
        print(f"{len(seen.pairings)} games, {seen.swept} by the sweep, {seen.duplicates} twice")
        assert len(seen.pairings) > 400, len(seen.pairings)
        await check_crowd(nodes[0], spec.id, seen, 10**9)

    scenario(shared_store, body, connections=8)


def test_the_sweep_pairs_those_who_waited_for_the_start_by_standing(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas, starts_in_ms=300)
        for p, rating in {"a": 1900, "b": 1200, "c": 1500, "d": 1600}.items():
            await arenas.join(spec.id, p, None, rating)
        await win(arenas, spec.id, "a", "b", "before")  # (a score before the start: a test's)
        await win(arenas, spec.id, "c", "d", "before2")
        for p in "abcd":
            assert await wait(arenas, spec.id, p) == ("waiting", None)
        now = await store_ms(arenas.link)
        assert await arenas.sweep(now, lambda: "early", 0, 10**9) == []  # not started: not swept
        await until_store_ms(arenas.link, spec.starts_ms)
        rooms = iter(["first", "second"])
        swept = await arenas.sweep(spec.starts_ms, lambda: next(rooms), 10**9, 10**9, [spec.id])
        # Down the standings: a (2) with c (2), then b (0) with d (0); none met before.
        assert [(m.room, {s.player for s in m.sides}) for m in swept] == [
            ("first", {"a", "c"}), ("second", {"b", "d"}),
        ]  # fmt: skip

    scenario(shared_store, body)


def test_a_pairing_reaches_the_other_players_node_by_its_refresh_once(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await joined(arenas, spec.id, "here", "there")
        await arenas.why_wait(spec.id, "there", "h2", "n2", LEASE, "r0", 0)
        kind, made = await arenas.why_wait(spec.id, "here", "h1", "n1", LEASE, "r1", 0)
        assert kind == "paired" and made is not None and made.room == "r1"
        assert await arenas.refresh("n1", LEASE, [spec.id]) == []  # n1 had the answer
        assert await arenas.refresh("n2", LEASE, [spec.id]) == [made]
        assert await arenas.refresh("n2", LEASE) == []
        # A waiter whose node stopped refreshing is dropped by the sweep too.
        await arenas.join(spec.id, "stale", None, None)
        await arenas.why_wait(spec.id, "stale", "h3", "n3", 1, "r2", 0)
        now = await store_ms(arenas.link)
        await until_store_ms(arenas.link, now + 5)
        assert await arenas.sweep(now, lambda: "x", 0, 10**9, [spec.id]) == []
        assert await arenas.link.execute("HLEN", arenas.keys(spec.id) + "waiter") == 0

    scenario(shared_store, body)
