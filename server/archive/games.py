"""Finished games in the archive: written once, with their ratings; read back for the game's
page and a player's page; and the analyses computed of them (the ratings as they are read:
``standings``).

``write`` is the one way in. A game is keyed by (room, game number): whichever node writes it
first inserts it, and every later try — the same node after a lost answer, another node's
sweep, two nodes racing — finds it there (``INSERT … ON CONFLICT DO NOTHING``: the second
insert waits for the first's transaction and then does nothing) and changes nothing. A rated
game's ratings are updated in the same transaction as its row, so they move exactly once per
game: both rows are read locked, the update is Glicko-2 (``server/ratings/glicko2.py``).

A game is rated from both ratings as time away left them (``standings.grown``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta
from sqlalchemy import and_, delete, func, or_, select, update

from server.archive.db import Database
from server.archive.schema import analyses, game_seats, games, players, ratings
from server.archive.standings import grown
from server.ratings import glicko2 as G
from server.rooms.finished import south_score
from server.rooms.room import Finished

Written = Literal["written", "known", "replaced"]
PAGE = 20  # games on one page of a player's list
Moved = tuple[float, float, float]  # a seat's rating before and after its game, deviation after


async def write(db: Database, entry: Finished, record: str, now_ms: int) -> Written:
    """Archive ``entry`` with its ``record`` (text, without names): ``written`` the first
    time, ``known`` when it is there already, ``replaced`` for a later end of a game that was
    reopened (a computer or local game undone after its end; ``version`` orders the ends)."""
    values = {
        "version": entry.version,
        "game": entry.game,
        "options": entry.options,
        "mode": entry.mode,
        "rated": entry.rated,
        "winner": entry.outcome.winner,
        "reason": entry.outcome.reason,
        "adjudication": entry.outcome.adjudication,
        "outcome": msgspec.to_builtins(entry.outcome),
        "plies": len(entry.moves),
        "record": record,
        "clock": entry.clock,
        "started_ms": entry.started_ms,
        "ended_ms": entry.ended_ms,
        "archived_ms": now_ms,
        "arena": entry.arena or None,
        "berserk": list(entry.berserk) or None,
    }
    async with db.write() as conn:
        key = and_(games.c.room == entry.room, games.c.game_no == entry.game_no)
        row = (await conn.execute(select(games.c.id, games.c.version).where(key))).first()
        if row is not None:
            if row.version >= entry.version:
                return "known"
            await conn.execute(update(games).where(games.c.id == row.id).values(**values))
            await conn.execute(delete(game_seats).where(game_seats.c.game == row.id))
            await _seats(conn, db, row.id, entry, None)
            return "replaced"
        inserted = await conn.execute(
            db.insert(games)
            .values(id=entry.id, room=entry.room, game_no=entry.game_no, **values)
            .on_conflict_do_nothing()
        )
        if inserted.rowcount != 1:  # another node's transaction inserted it first
            return "known"
        known = await _existing(conn, entry.players)
        seated = [p if p in known else None for p in entry.players]
        moved = None
        if entry.rated and None not in seated and seated[0] != seated[1]:
            moved = await _rate(conn, db, entry, [p for p in seated if p is not None], now_ms)
        await _seats(conn, db, entry.id, entry, moved, seated)
        return "written"


async def _existing(conn: Any, ids: list[str | None]) -> set[str]:
    """Those of ``ids`` that are players (one may have deleted their identity meanwhile)."""
    wanted = [p for p in ids if p is not None]
    if not wanted:
        return set()
    rows = await conn.execute(select(players.c.id).where(players.c.id.in_(wanted)))
    return {r.id for r in rows}


async def _seats(
    conn: Any,
    db: Database,
    game_id: str,
    entry: Finished,
    moved: list[Moved] | None,
    seated: list[str | None] | None = None,
) -> None:
    if seated is None:
        known = await _existing(conn, entry.players)
        seated = [p if p in known else None for p in entry.players]
    rows = []
    for side, player in enumerate(seated):
        before, after, deviation = moved[side] if moved else (None, None, None)
        # A player who deleted their identity before the game was written is anonymous here too.
        gone = entry.players[side] is not None and player is None
        rows.append(
            {
                "game": game_id,
                "side": side,
                "player": player,
                "name": None if gone else entry.names[side],
                "holder": entry.holders[side],
                "level": entry.levels[side],
                "ended_ms": entry.ended_ms,
                "rating_before": before,
                "rating_after": after,
                "deviation_after": deviation,
            }
        )
    await conn.execute(db.insert(game_seats), rows)


async def _rate(
    conn: Any, db: Database, entry: Finished, pair: list[str], now_ms: int
) -> list[Moved]:
    """Both players' ratings after the game, written; (before, after, deviation after) per
    side."""
    fresh = G.Rating()
    await conn.execute(
        db.insert(ratings)
        .values(
            [
                {
                    "player": p,
                    "game": entry.game,
                    "rating": fresh.rating,
                    "deviation": fresh.deviation,
                    "volatility": fresh.volatility,
                    "games": 0,
                    "updated_ms": now_ms,
                }
                for p in pair
            ]
        )
        .on_conflict_do_nothing()
    )
    query = select(ratings).where(ratings.c.game == entry.game, ratings.c.player.in_(pair))
    rows = {r.player: r for r in await conn.execute(db.locked(query))}
    now = [grown(rows[p], now_ms) for p in pair]  # each as time away left it
    after = G.game(now[0], now[1], south_score(entry.outcome))
    for p, r in zip(pair, after):
        await conn.execute(
            update(ratings)
            .where(ratings.c.player == p, ratings.c.game == entry.game)
            .values(
                rating=r.rating,
                deviation=r.deviation,
                volatility=r.volatility,
                games=rows[p].games + 1,
                updated_ms=now_ms,
            )
        )
    return [(now[i].rating, after[i].rating, after[i].deviation) for i in range(2)]


# -- reading ---------------------------------------------------------------------------------


class SeatRow(msgspec.Struct):
    """A seat of an archived game; ``provisional``: the rating the game left was provisional
    (its deviation after the game above ``glicko2.PROVISIONAL_RD``; false for an unrated seat
    and for seats archived before deviations were kept, ``deviation_after`` null)."""

    side: int
    player: str | None
    name: str | None
    holder: str
    level: str | None
    rating_before: float | None
    rating_after: float | None
    deviation_after: Annotated[
        float | None, Meta(description="the deviation the game left (null: unrated, or older)")
    ] = None
    provisional: Annotated[bool, Meta(description="deviation_after above 110: shown '?'")] = False


class GameRow(msgspec.Struct):
    """An archived game as its page shows it (``GET /api/archive/{id}``)."""

    id: str
    room: str
    game_no: int
    game: str
    options: dict[str, Any]
    mode: str
    rated: bool
    outcome: dict[str, Any]
    plies: int
    clock: Any
    started_ms: int
    ended_ms: int
    seats: list[SeatRow]
    arena: Annotated[
        str | None, Meta(description="the arena it was played in (its page: /t/{arena}), or null")
    ] = None
    berserk: Annotated[
        list[bool] | None,
        Meta(description="an arena game's berserk by side [south, north]; null: not allowed"),
    ] = None


class StoredGame(GameRow):
    """An archived game with its record's text, as kept."""

    record: str = ""


async def game(db: Database, game_id: str) -> StoredGame | None:
    async with db.read() as conn:
        row = (await conn.execute(select(games).where(games.c.id == game_id))).first()
        if row is None:
            return None
        seats = await conn.execute(
            select(game_seats, players.c.name.label("player_name"))
            .join(players, players.c.id == game_seats.c.player, isouter=True)
            .where(game_seats.c.game == game_id)
            .order_by(game_seats.c.side)
        )
        return StoredGame(
            id=row.id,
            room=row.room,
            game_no=row.game_no,
            game=row.game,
            options=row.options,
            mode=row.mode,
            rated=row.rated,
            outcome=row.outcome,
            plies=row.plies,
            clock=row.clock,
            started_ms=row.started_ms,
            ended_ms=row.ended_ms,
            seats=[_seat(s) for s in seats],
            arena=row.arena,
            berserk=row.berserk,
            record=row.record,
        )


async def is_kept(db: Database, game_id: str) -> bool:
    async with db.read() as conn:
        return (
            await conn.execute(select(games.c.id).where(games.c.id == game_id))
        ).first() is not None


def _seat(s: Any) -> SeatRow:
    """A seat as shown: an identified player by the name they go by now (a seat's own name
    where they never chose one), anyone else by the name the seat had."""
    name = s.player_name or s.name
    after = s.deviation_after
    provisional = after is not None and after > G.PROVISIONAL_RD
    return SeatRow(
        s.side,
        s.player,
        name,
        s.holder,
        s.level,
        s.rating_before,
        s.rating_after,
        after,
        provisional,
    )


class PlayedGame(msgspec.Struct):
    """One line of a player's list: the game, the player's side, the opponent, the result."""

    id: str
    game: str
    mode: str
    rated: bool
    side: int
    winner: int | None
    reason: str
    adjudication: str | None
    plies: int
    ended_ms: int
    opponent: SeatRow | None
    rating_before: float | None
    rating_after: float | None


async def played(db: Database, player: str, page: int = 0) -> tuple[list[PlayedGame], bool]:
    """A player's games, newest first, ``PAGE`` a page; and whether an older page follows.
    A game in which the player held both seats (two on one device) is listed once, by South."""
    mine = game_seats.alias("mine")
    other = game_seats.alias("other")
    them = players.alias("them")
    query = (
        select(games, mine.c.side, mine.c.rating_before, mine.c.rating_after, other, them.c.name)
        .join(mine, mine.c.game == games.c.id)
        .join(other, and_(other.c.game == games.c.id, other.c.side != mine.c.side), isouter=True)
        .join(them, them.c.id == other.c.player, isouter=True)
        .where(
            mine.c.player == player,
            or_(other.c.player.is_distinct_from(player), mine.c.side < other.c.side),
        )
        .order_by(mine.c.ended_ms.desc(), games.c.id)
        .offset(page * PAGE)
        .limit(PAGE + 1)
    )
    async with db.read() as conn:
        rows = list(await conn.execute(query))
    out = []
    for r in rows[:PAGE]:
        m = r._mapping
        opponent = None
        if m[other.c.side] is not None:
            opponent = SeatRow(
                m[other.c.side],
                m[other.c.player],
                m[them.c.name] or m[other.c.name],
                m[other.c.holder],
                m[other.c.level],
                m[other.c.rating_before],
                m[other.c.rating_after],
            )
        out.append(
            PlayedGame(
                id=m[games.c.id],
                game=m[games.c.game],
                mode=m[games.c.mode],
                rated=m[games.c.rated],
                side=m[mine.c.side],
                winner=m[games.c.winner],
                reason=m[games.c.reason],
                adjudication=m[games.c.adjudication],
                plies=m[games.c.plies],
                ended_ms=m[games.c.ended_ms],
                opponent=opponent,
                rating_before=m[mine.c.rating_before],
                rating_after=m[mine.c.rating_after],
            )
        )
    return out, len(rows) > PAGE


async def count(db: Database) -> int:
    async with db.read() as conn:
        return int((await conn.execute(select(func.count()).select_from(games))).scalar_one())


# -- analyses --------------------------------------------------------------------------------


async def analysis(db: Database, key: str) -> bytes | None:
    async with db.read() as conn:
        row = (await conn.execute(select(analyses.c.analysis).where(analyses.c.key == key))).first()
        return row.analysis.encode() if row is not None else None


async def keep_analysis(db: Database, key: str, data: bytes, now_ms: int) -> None:
    async with db.write() as conn:
        await conn.execute(
            db.insert(analyses)
            .values(key=key, analysis=data.decode(), created_ms=now_ms)
            .on_conflict_do_nothing()
        )
