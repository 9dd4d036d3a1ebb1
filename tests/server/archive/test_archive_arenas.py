"""Arenas in the archive, on a real SQLite file and a real PostgreSQL server: a database of the
release before (a003) with games is migrated and keeps them (no arena); an arena game written
by the replay worker carries its arena and berserk, and the game's API shows them; a finished
arena's standings are written once however often and however many nodes finalize it; and the
standings are recomputed from the archive's rows alone."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import httpx
import msgspec
from archivekit import opened
from asynckit import run
from serverproc import ServerProcess
from sqlalchemy import func, insert, select

import engine
from server.archive import arenas, games, players, worker
from server.archive.db import Database
from server.archive.schema import arena_rows, game_seats
from server.archive.schema import games as games_table
from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms.arena import ArenaSpec, Row
from server.rooms.clock import Control
from server.rooms.finished import record_text

NOW = 1_800_000_000_000
A003_COLUMNS = [c.name for c in games_table.columns if c.name not in ("arena", "berserk")]


def arena_game(
    room_id: str,
    seats: list[tuple[str | None, str | None]],
    winner: int | None,
    ended_ms: int,
    arena: str = "",
    berserk: tuple[bool, ...] = (),
) -> R.Finished:
    """A rated friend game between ``seats`` ((player, name) each) as the judge hands it to
    the archive: ``1 - winner`` resigned, or (``winner`` None) a draw agreed."""
    room, _, _ = R.create(room_id, "kalah", {}, "friend", "south", "beginner", NOW)
    linked = [R.SeatRec("person", f"t{i}", None, NOW, name, p) for i, (p, name) in enumerate(seats)]
    room = opened(msgspec.structs.replace(room, seats=linked, rated=True, ratedness="rated"))
    room = msgspec.structs.replace(room, arena=arena, berserk=list(berserk))
    ctx = R.Context(sides=[1 - (winner or 0)], who="k", now_ms=ended_ms)
    entry = J.judge(room, P.Resign(room=room_id, id="r"), ctx).room.waiting[0]
    if winner is None:
        entry = msgspec.structs.replace(
            entry, outcome=engine.Outcome(winner=None, reason="agreement", adjudication="agreement")
        )
    return entry


async def _write(db: Database, entry: R.Finished) -> str:
    return await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), NOW)


def _upgrade_to(connection, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "server.archive:migrations")
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


async def _old_write(db: Database, entry: R.Finished) -> None:
    """``entry``'s row and seats as a node of the release before writes them: an insert
    naming only the columns it knows."""
    row = {
        "id": entry.id,
        "room": entry.room,
        "game_no": entry.game_no,
        "version": entry.version,
        "game": entry.game,
        "options": entry.options,
        "mode": entry.mode,
        "rated": False,
        "winner": entry.outcome.winner,
        "reason": entry.outcome.reason,
        "adjudication": entry.outcome.adjudication,
        "outcome": msgspec.to_builtins(entry.outcome),
        "plies": len(entry.moves),
        "record": record_text(msgspec.msgpack.encode(entry)),
        "clock": None,
        "started_ms": entry.started_ms,
        "ended_ms": entry.ended_ms,
        "archived_ms": NOW,
    }
    assert sorted(row) == sorted(A003_COLUMNS)
    seats = [
        {"game": entry.id, "side": s, "player": None, "name": entry.names[s]}
        | {"holder": "person", "level": None, "ended_ms": entry.ended_ms}
        for s in (0, 1)
    ]
    async with db.write() as conn:
        await conn.execute(insert(games_table).values(row))
        await conn.execute(insert(game_seats), seats)


def test_the_migration_keeps_the_games_of_a_database_before_arenas(db_url):
    """A database at a003 with a game is upgraded on start: the game is there, in no arena;
    and a node of the release before still writes games into the migrated table."""
    before = arena_game("old-room", [(None, "Amina"), (None, "Baraka")], 0, NOW + 1)
    after = arena_game("old-after", [(None, "Amina"), (None, "Baraka")], 1, NOW + 2)

    async def go():
        db = Database(db_url)
        async with db.write() as conn:  # the release before's schema, and a game in it
            await conn.run_sync(_upgrade_to, "a003")
        await _old_write(db, before)
        await db.start()  # this release migrates (a004)
        await _old_write(db, after)  # an old node's write after the upgrade
        async with db.read() as conn:
            head = (
                await conn.exec_driver_sql("SELECT version_num FROM alembic_version")
            ).scalar_one()
            arena = select(games_table.c.id, games_table.c.arena, games_table.c.berserk)
            columns = [tuple(r) for r in await conn.execute(arena)]
        kept = [await games.game(db, g.id) for g in (before, after)]
        listed = await arenas.games_of(db, "")
        await db.close()
        return head, columns, kept, listed

    head, columns, kept, listed = run(go())
    assert head == "a004"
    assert sorted(columns) == sorted([(before.id, None, None), (after.id, None, None)])
    for g in kept:
        assert g is not None and (g.arena, g.berserk) == (None, None)
        assert [s.name for s in g.seats] == ["Amina", "Baraka"]
    assert listed == []


def test_a_database_a_later_release_migrated_is_used_as_it_is(db_url):
    """A node of this release started on a database a later release migrated (a rollback, a
    node rescheduled mid-rollout) starts and writes games: the later migrations only add."""

    async def go():
        db = Database(db_url)
        await db.start()
        async with db.write() as conn:  # what a later release's migration leaves
            await conn.exec_driver_sql("UPDATE alembic_version SET version_num = 'z999'")
        await db.close()
        later = Database(db_url)
        ready = await later.ready()
        written = await _write(later, arena_game("later", [(None, "A"), (None, "B")], 0, NOW))
        async with later.read() as conn:
            head = (
                await conn.exec_driver_sql("SELECT version_num FROM alembic_version")
            ).scalar_one()
        await later.close()
        return ready, written, head

    assert run(go()) == (True, "written", "z999")


def test_an_arena_game_written_by_the_replay_worker_carries_its_arena(
    db_url, shared_store, key_prefix, tmp_path
):
    """``worker.write_job`` (in a spawned process, as the replay pool runs it) writes an arena
    game's arena and berserk into its row; ``games_of`` lists it, the other game not; and a
    node's ``GET /api/archive/{id}`` shows both fields."""

    async def seated() -> tuple[str, str]:
        db = Database(db_url)
        await db.start()
        a, _ = await players.create(db, NOW, "Amina")
        b, _ = await players.create(db, NOW, "Baraka")
        await db.close()
        return a.id, b.id

    a, b = run(seated())
    seats = [(a, "Amina"), (b, "Baraka")]
    in_arena = arena_game("ar-1", seats, 0, NOW + 5, arena="Arena_1", berserk=(True, False))
    plain = arena_game("plain-1", seats, 1, NOW + 6)
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        answers = [
            pool.submit(worker.write_job, db_url, msgspec.msgpack.encode(e), NOW).result()
            for e in (in_arena, plain, in_arena)
        ]
    assert answers == [("written", ""), ("written", ""), ("known", "")]

    async def read():
        db = Database(db_url)
        out = await games.game(db, in_arena.id), await games.game(db, plain.id)
        listed = await arenas.games_of(db, "Arena_1")
        await db.close()
        return out, listed

    (row, other), listed = run(read())
    assert (row.arena, row.berserk) == ("Arena_1", [True, False])
    assert (other.arena, other.berserk) == (None, None)
    assert listed == [
        arenas.ArenaGameRow(
            id=in_arena.id,
            room="ar-1",
            players=[a, b],
            names=["Amina", "Baraka"],
            winner=0,
            reason="resignation",
            adjudication="resignation",
            berserk=[True, False],
            started_ms=in_arena.started_ms,
            ended_ms=NOW + 5,
            rated=True,
        )
    ]
    env = {"DATABASE_URL": db_url, "NYUMBA_KEY_PREFIX": key_prefix + "arena-api:"}
    node = ServerProcess(redis_url=shared_store, data_dir=tmp_path / "node", env=env).start()
    try:
        shown = [httpx.get(f"{node.url}/api/archive/{g.id}", timeout=10) for g in (in_arena, plain)]
    finally:
        node.stop()
    assert [r.status_code for r in shown] == [200, 200]
    assert shown[0].json()["game"]["arena"] == "Arena_1"
    assert shown[0].json()["game"]["berserk"] == [True, False]
    assert (shown[1].json()["game"]["arena"], shown[1].json()["game"]["berserk"]) == (None, None)


def spec(arena_id: str, ends_ms: int = NOW) -> ArenaSpec:
    return ArenaSpec(
        id=arena_id,
        name=f"Arena {arena_id}",
        game="kalah",
        options={},
        clock=Control(180_000, 2000),
        rated=True,
        berserk=True,
        starts_ms=ends_ms - 1_800_000,
        ends_ms=ends_ms,
        created_ms=ends_ms - 3_600_000,
        by=None,
        schedule="kalah 3+2 hourly 30m",
    )


def standings(names: list[str], points: list[int]) -> list[Row]:
    return [
        Row(
            i + 1,
            p,
            p.upper(),
            pts,
            2,
            pts // 2,
            0,
            2 - pts // 2,
            i == 0,
            0,
            [pts, 0],
            [pts == 4, False],
            False,
            None,
        )  # fmt: skip
        for i, (p, pts) in enumerate(zip(names, points))
    ]


def test_finalizing_twice_writes_the_standings_once(db_url):
    rows = standings(["p1", "p2", "p3", "p4"], [4, 2, 2, 0])

    async def go():
        db = Database(db_url)
        await db.start()
        first = await arenas.finalize(db, spec("once"), rows, finished_ms=NOW + 10)
        second = await arenas.finalize(db, spec("once"), rows[:2], finished_ms=NOW + 20)
        empty = await arenas.finalize(db, spec("empty", NOW + 5), [], finished_ms=NOW + 30)
        kept = await arenas.final(db, "once")
        unknown = await arenas.final(db, "nope")
        listed = await arenas.recent(db, 20)
        one = await arenas.recent(db, 1)
        await db.close()
        return first, second, empty, kept, unknown, listed, one

    first, second, empty, kept, unknown, listed, one = run(go())
    assert (first, second, empty, unknown) == (True, False, True, None)
    assert kept == (spec("once"), rows)
    assert [(f.arena.id, f.players, f.finished_ms) for f in listed] == [
        ("empty", 0, NOW + 30),
        ("once", 4, NOW + 10),
    ]
    assert listed[1].podium == rows[:3] and listed[0].podium == []
    assert [f.arena.id for f in one] == ["empty"]


def test_two_nodes_finalizing_at_once_write_one_set_of_rows(db_url):
    """Two handles (two nodes' connection pools) finalize each of ten arenas at the same moment,
    with standings that differ (as two nodes' reads of the store a moment apart might): one
    wins each time, and the rows are all its own."""

    async def go():
        one, two = Database(db_url), Database(db_url)
        await asyncio.gather(one.start(), two.start())
        out = []
        for i in range(10):
            mine = standings([f"a{i}", f"b{i}"], [2, 0])
            theirs = standings([f"a{i}", f"b{i}", f"c{i}"], [4, 2, 0])
            won = await asyncio.gather(
                arenas.finalize(one, spec(f"race{i}"), mine),
                arenas.finalize(two, spec(f"race{i}"), theirs),
            )
            kept = await arenas.final(one, f"race{i}")
            out.append((won, kept[1], mine, theirs))
        async with one.read() as conn:
            total = (await conn.execute(select(func.count()).select_from(arena_rows))).scalar_one()
        await one.close()
        await two.close()
        return out, total

    out, total = run(go())
    expected_total = 0
    for won, kept, mine, theirs in out:
        assert sorted(won) == [False, True]
        assert kept == (mine if won[0] else theirs)
        expected_total += len(kept)
    assert total == expected_total


def row(
    g: str, players: list[str | None], winner: int | None, ended: int, **kw
) -> arenas.ArenaGameRow:
    return arenas.ArenaGameRow(
        id=g,
        room=f"room-{g}",
        players=players,
        names=[p.upper() if p else "guest" for p in players],
        winner=winner,
        reason=kw.get("reason", "resignation"),
        adjudication=kw.get("adjudication", "resignation"),
        berserk=kw.get("berserk", [False, False]),
        started_ms=ended - 50,
        ended_ms=ended,
        rated=True,
    )


# Worked by hand (win 2, draw 1, loss 0; doubled after two wins in a row; +1 a berserked win):
#   g1  a beats b               a 2 (streak 1)         b 0
#   g2  a beats c, c berserked  a 2 (streak 2)         c 0, a berserk
#   g3  b - c aborted           nothing, for nobody
#   g4  a beats b, a berserked  a on fire: 4 + 1 = 5   b 0
#   g5  b draws c               b 1 (at 400)           c 1 (at 400)
#   g6  c beats a, c berserked  c 2 + 1 = 3 (at 500)   a 0, streak over
#   g7  a beats b               a 2 (streak 1)         b 0
#   g8  a beats a guest         a 2 (streak 2): on fire at the end
#   g9  b beats a guest         b 2
#   g10 b draws a guest         b 1: 4 points at 900, as c's 4 at 500 (c ranks first)
#   g11 e loses to a guest (950), g12 d loses to a guest (1000): no points
GAMES = [
    row("g1", ["a", "b"], 0, 100),
    row("g2", ["a", "c"], 0, 200, berserk=[False, True]),
    row("g3", ["b", "c"], None, 250, adjudication="aborted", reason="first-move"),
    row("g4", ["a", "b"], 0, 300, berserk=[True, False]),
    row("g5", ["b", "c"], None, 400, reason="agreement", adjudication="agreement"),
    row("g6", ["a", "c"], 1, 500, berserk=[False, True]),
    row("g7", ["b", "a"], 1, 600),
    row("g8", ["a", None], 0, 700),
    row("g9", [None, "b"], 1, 800, berserk=None),
    row("g10", ["b", None], None, 900, reason="agreement", adjudication="agreement"),
    row("g11", [None, "e"], 0, 950),
    row("g12", ["d", None], 1, 1000),
]


def test_recompute_scores_each_players_games_in_order():
    F, T = False, True
    shuffled = list(GAMES)
    random.Random(50).shuffle(shuffled)
    got = arenas.recompute(shuffled)
    assert got == [
        # a's g4 on fire is doubled; g6, a loss on fire, is not: there is nothing to double
        Row(1, "a", "A", 13, 6, 5, 0, 1, True, 1, [2, 2, 5, 0, 2, 2], [F, F, T, F, F, F], False, None),
        Row(2, "c", "C", 4, 3, 1, 1, 1, False, 2, [0, 1, 3], [F, F, F], False, None),
        Row(3, "b", "B", 4, 6, 1, 2, 3, False, 0, [0, 0, 1, 0, 2, 1], [F] * 6, False, None),
        Row(4, "e", "E", 0, 1, 0, 0, 1, False, 0, [0], [F], False, None),
        Row(5, "d", "D", 0, 1, 0, 0, 1, False, 0, [0], [F], False, None),
    ]  # fmt: skip
    points = arenas.points_of(shuffled)
    assert [points[g.id] for g in GAMES] == [
        [2, 0], [2, 0], [0, 0], [5, 0], [1, 1], [0, 3], [0, 2], [2, 0], [0, 2], [1, 0],
        [0, 0], [0, 0],
    ]  # fmt: skip
    # those without points go by when they joined, when the store says
    joined = arenas.recompute(GAMES, joined_ms={"d": 10, "e": 20})
    assert [(r.rank, r.player) for r in joined][3:] == [(4, "d"), (5, "e")]


def test_recompute_from_the_archives_rows(db_url):
    """Games of an arena written as the archive writes them, read back by ``games_of`` and
    recomputed: the hand-worked opening of the table above (g1, g2, g4, g5 and g6; aborted g3
    is never archived)."""

    async def go():
        db = Database(db_url)
        await db.start()
        ids = {}
        for name in "abc":
            p, _ = await players.create(db, NOW, name.upper())
            ids[name] = p.id
        for g in GAMES[:6]:
            if g.adjudication == "aborted":
                continue
            seats = [(ids[p], p.upper()) for p in g.players if p]
            entry = arena_game(
                g.room, seats, g.winner, NOW + g.ended_ms, "hand", tuple(g.berserk or ())
            )
            assert await _write(db, entry) == "written"
        await _write(db, arena_game("elsewhere", [(ids["b"], "B"), (ids["c"], "C")], 0, NOW))
        listed = await arenas.games_of(db, "hand")
        await db.close()
        return ids, listed

    ids, listed = run(go())
    assert [g.room for g in listed] == ["room-g1", "room-g2", "room-g4", "room-g5", "room-g6"]
    by_id = {v: k for k, v in ids.items()}
    got = [
        (r.rank, by_id[r.player], r.name, r.points, r.sheet, r.doubled)
        for r in arenas.recompute(listed)
    ]
    assert got == [
        (1, "a", "A", 9, [2, 2, 5, 0], [False, False, True, False]),
        (2, "c", "C", 4, [0, 1, 3], [False, False, False]),
        (3, "b", "B", 1, [0, 0, 1], [False, False, False]),
    ]
