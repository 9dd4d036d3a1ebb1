"""The archive's writes and reads on a real SQLite file and a real PostgreSQL server: a
finished game is written once with its ratings, however many writers race; a reopened game's
later end replaces its row; a deleted player's games stay, anonymous; the migrations make the
schema the queries declare."""

from __future__ import annotations

import asyncio

import msgspec
import pytest
from archivekit import opened
from asynckit import run
from sqlalchemy import func, select

from server.archive import games, players, schema, standings
from server.archive.db import Database
from server.archive.schema import metadata
from server.ratings import glicko2 as G
from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms.finished import record_text

NOW = 1_800_000_000_000


def finished_game(
    room_id: str, seats: list[tuple[str | None, str | None]], rated: bool, winner: int = 0
) -> R.Finished:
    """A friend game between ``seats`` ((player, name) each) that ``1 - winner`` resigned."""
    room, _, _ = R.create(room_id, "kalah", {}, "friend", "south", "beginner", NOW)
    linked = [R.SeatRec("person", f"t{i}", None, NOW, name, p) for i, (p, name) in enumerate(seats)]
    # A rated game as its start fixed it (server/rooms/ratedstart.py).
    fixed = "rated" if rated else ""
    room = opened(msgspec.structs.replace(room, seats=linked, rated=rated, ratedness=fixed))
    ctx = R.Context(sides=[1 - winner], who="k", now_ms=NOW + 60_000)
    return J.judge(room, P.Resign(room=room_id, id="r"), ctx).room.waiting[0]


async def _two_players(db: Database) -> tuple[str, str]:
    a, _ = await players.create(db, NOW, "Amina")
    b, _ = await players.create(db, NOW, "Baraka")
    return a.id, b.id


def test_a_finished_game_is_written_once_with_its_ratings(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        a, b = await _two_players(db)
        entry = finished_game("room-1", [(a, "Amina"), (b, "Baraka")], rated=True)
        record = record_text(msgspec.msgpack.encode(entry))
        first = await games.write(db, entry, record, NOW)
        again = [await games.write(db, entry, record, NOW) for _ in range(3)]
        game = await games.game(db, entry.id)
        standing = {s.player: s for s in await standings.standings(db, a, NOW)}
        await db.close()
        return first, again, game, standing

    first, again, game, standing = run(go())
    assert first == "written" and again == ["known"] * 3
    assert game.outcome["winner"] == 0 and game.outcome["reason"] == "resignation"
    assert [s.name for s in game.seats] == ["Amina", "Baraka"]
    south, _ = G.game(G.Rating(), G.Rating(), 1.0)
    mine = next(iter(standing.values()))
    assert mine.games == 1 and mine.rating == pytest.approx(south.rating)
    assert game.seats[0].rating_before == 1500 and game.seats[0].rating_after == mine.rating


def test_writers_racing_write_each_game_once_and_move_ratings_once(db_url):
    """Two databases handles (two connection pools, as two nodes have) write the same ten
    games at the same moment: one row each, and each game moves the ratings once."""

    async def go():
        one, two = Database(db_url), Database(db_url)
        await asyncio.gather(one.start(), two.start())
        a, b = await _two_players(one)
        results = []
        for i in range(10):
            entry = finished_game(f"race-{i}", [(a, "A"), (b, "B")], rated=True, winner=i % 2)
            record = record_text(msgspec.msgpack.encode(entry))
            results += await asyncio.gather(
                games.write(one, entry, record, NOW), games.write(two, entry, record, NOW)
            )
        rows = await games.count(one)
        standing = await standings.rating_of(one, [a, b], "kalah", NOW)
        await one.close()
        await two.close()
        return results, rows, standing

    results, rows, standing = run(go())
    assert sorted(results) == ["known"] * 10 + ["written"] * 10
    assert rows == 10
    assert [s.games for s in standing.values()] == [10, 10]
    expected = (G.Rating(), G.Rating())
    for i in range(10):
        expected = G.game(expected[0], expected[1], 1.0 if i % 2 == 0 else 0.0)
    assert sorted(s.rating for s in standing.values()) == pytest.approx(
        sorted(r.rating for r in expected)
    )


def test_a_reopened_game_that_ends_again_replaces_its_row(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        first = finished_game("undone", [(None, "x"), (None, None)], rated=False, winner=0)
        later = msgspec.structs.replace(first, version=first.version + 3, moves=["c", "f", "B"])
        record = record_text(msgspec.msgpack.encode(later))
        out = [
            await games.write(db, first, record_text(msgspec.msgpack.encode(first)), NOW),
            await games.write(db, later, record, NOW),
            await games.write(db, first, record_text(msgspec.msgpack.encode(first)), NOW),
        ]
        game = await games.game(db, first.id)
        await db.close()
        return out, game

    out, game = run(go())
    assert out == ["written", "replaced", "known"]
    assert game.plies == 3 and len(game.seats) == 2


def test_deleting_a_player_leaves_their_games_anonymous(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        a, b = await _two_players(db)
        entry = finished_game("gone", [(a, "Amina"), (b, "Baraka")], rated=True)
        await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), NOW)
        await players.delete_player(db, a)
        game = await games.game(db, entry.id)
        theirs, _ = await games.played(db, b)
        gone = await players.get(db, a)
        await db.close()
        return game, theirs, gone

    game, theirs, gone = run(go())
    assert gone is None
    assert (game.seats[0].player, game.seats[0].name) == (None, None)
    assert game.seats[1].name == "Baraka"
    assert theirs[0].opponent.player is None and theirs[0].opponent.name is None


def test_a_players_games_are_listed_newest_first_a_page_at_a_time(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        a, b = await _two_players(db)
        for i in range(games.PAGE + 3):
            entry = finished_game(f"page-{i}", [(a, None), (b, None)], rated=False)
            entry = msgspec.structs.replace(entry, ended_ms=NOW + i)
            await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), NOW)
        first, more = await games.played(db, a, 0)
        second, more2 = await games.played(db, a, 1)
        await db.close()
        return first, more, second, more2

    first, more, second, more2 = run(go())
    assert len(first) == games.PAGE and more and len(second) == 3 and not more2
    ends = [g.ended_ms for g in first + second]
    assert ends == sorted(ends, reverse=True)


def test_the_migrations_make_the_schema_the_queries_declare(db_url):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    async def go():
        db, other = Database(db_url), Database(db_url)
        await asyncio.gather(db.start(), other.start())  # two nodes starting at once
        async with db.read() as conn:
            diff = await conn.run_sync(
                lambda c: compare_metadata(MigrationContext.configure(c), metadata)
            )
        await db.close()
        await other.close()
        return diff

    assert run(go()) == []


def test_retention_forgets_old_sessions_and_the_players_nobody_can_sign_in_as(db_url):
    async def go():
        db = Database(db_url)
        await db.start()
        a, b = await _two_players(db)  # both made at NOW, each with a session
        entry = finished_game("kept", [(a, "Amina"), (b, "Baraka")], rated=False)
        await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), NOW)
        later = NOW + players.SESSION_DAYS * players.DAY_MS + 1
        await players.open_session(db, b, later)  # b came back; a never did
        gone = await players.prune(db, later)
        game = await games.game(db, entry.id)
        kept = await players.get(db, b), await players.get(db, a)
        await db.close()
        return gone, game, kept

    gone, game, (b, a) = run(go())
    assert gone == 1 and a is None and b is not None
    assert [s.name for s in game.seats] == [None, "Baraka"]


def test_retention_forgets_unused_players_and_challenges_within_a_day(db_url):
    """Every first visit makes a player (the start page): one that never took a seat, sought
    a game or made a room, and has no passkey and no game, goes a day after it was made, its
    session with it; a challenge goes once expired (docs/privacy.md, Retention)."""

    async def go():
        db = Database(db_url)
        await db.start()
        idle, idle_token = await players.create(db, NOW)  # looked, left
        named, _ = await players.create(db, NOW, "Amina")  # named, never played
        seated, _ = await players.create(db, NOW)  # took a seat (test_identity_nodes.py)
        await players.mark_used(db, seated.id, NOW + 60_000)
        keyed, _ = await players.create(db, NOW)  # added a passkey
        await players.add_passkey(db, players.Passkey("cred-1", keyed.id, b"k", 0, None), NOW)
        played, _ = await players.create(db, NOW)  # a game in the archive (before this rule)
        entry = finished_game("r", [(played.id, None), (None, "guest")], rated=False)
        await games.write(db, entry, record_text(msgspec.msgpack.encode(entry)), NOW)
        await players.put_challenge(db, b"c" * 32, None, NOW)
        # A page asking who it is (GET /api/me), even hours later, is no use of the player.
        later = NOW + 2 * players.SEEN_EVERY_MS
        assert await players.by_session(db, idle_token, later) is not None
        early = await players.prune(db, NOW + players.CHALLENGE_MS + 1)  # a day not yet over
        gone = await players.prune(db, NOW + players.DAY_MS + 1)
        left = {p.id: await players.get(db, p.id) for p in (idle, named, seated, keyed, played)}
        session = await players.by_session(db, idle_token, NOW + players.DAY_MS + 2)
        async with db.read() as conn:
            counts = [
                (await conn.execute(select(func.count()).select_from(t))).scalar_one()
                for t in (schema.sessions, schema.challenges)
            ]
        await db.close()
        return early, gone, left, session, counts

    early, gone, left, session, (sessions, challenges) = run(go())
    assert early == 0 and gone == 2 and session is None
    assert [p is None for p in left.values()] == [True, True, False, False, False]
    assert sessions == 3 and challenges == 0


def test_a_replay_worker_writes_a_game_once_and_says_when_the_database_is_down(db_url):
    """``worker.write_job`` as the replay pool runs it (in a process of its own, from the
    configured URL): the game and its ratings written once, and an unreachable database an
    answer, not an exception (the drivers' exceptions need not survive pickling)."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from server.archive import worker

    async def seated() -> tuple[str, str]:
        db = Database(db_url)
        await db.start()  # the node migrates before it hands a game over
        pair = await _two_players(db)
        await db.close()
        return pair

    a, b = run(seated())
    entry = finished_game("room-w", [(a, "Amina"), (b, "Baraka")], rated=True)
    data = msgspec.msgpack.encode(entry)
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        answers = [pool.submit(worker.write_job, db_url, data, NOW).result() for _ in range(2)]
        down = pool.submit(
            worker.write_job, "postgresql://nyumba@127.0.0.1:9/none", data, NOW
        ).result()
    assert answers == [("written", ""), ("known", "")]
    assert down[0] == "down" and down[1]

    async def read():
        db = Database(db_url)
        game = await games.game(db, entry.id)
        standing = await standings.standings(db, a, NOW)
        await db.close()
        return game, standing

    game, standing = run(read())
    assert game is not None and [s.name for s in game.seats] == ["Amina", "Baraka"]
    assert [s.games for s in standing] == [1]


def test_a_challenge_is_taken_once_and_a_counter_only_moves_forward(db_url):
    """Two handles (two nodes' pools) race twenty times for one challenge: one gets it. The
    signature counter moves by compare-and-set: forward only, an always-0 one stays 0, and a
    passkey kept before its relying party was (a002, NULL) gets the one it was checked with."""

    async def go():
        one, two = Database(db_url), Database(db_url)
        await asyncio.gather(one.start(), two.start())
        player, _ = await players.create(one, NOW)
        cid = await players.put_challenge(one, b"c" * 32, None, NOW)
        taken = await asyncio.gather(
            *(players.take_challenge(db, cid, NOW) for db in [one, two] * 10)
        )
        counting = players.Passkey("k1", player.id, b"pk", 5, None, "localhost")
        zero = players.Passkey("k0", player.id, b"pk", 0, None, None)
        added = [await players.add_passkey(one, k, NOW) for k in (counting, zero, counting)]
        moves = [
            await players.used_passkey(one, counting, 6, "localhost", NOW),
            await players.used_passkey(two, counting, 6, "localhost", NOW),  # the same count
            await players.used_passkey(one, counting, 5, "localhost", NOW),  # behind
            await players.used_passkey(one, zero, 0, "localhost", NOW),
            await players.used_passkey(two, zero, 0, "localhost", NOW),
        ]
        kept = [await players.passkey(one, k) for k in ("k1", "k0")]
        await one.close()
        await two.close()
        return taken, added, moves, kept

    taken, added, moves, (k1, k0) = run(go())
    assert [t for t in taken if t is not None] == [(b"c" * 32, None)]
    assert added == [True, True, False]
    assert moves == [True, False, False, True, True]
    assert (k1.sign_count, k1.rp_id) == (6, "localhost")
    assert (k0.sign_count, k0.rp_id) == (0, "localhost")
