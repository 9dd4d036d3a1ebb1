"""Finished arenas in the archive: the final standings written once, read back for the
arena's permanent page (``/t/{id}``) and the list of arenas; an arena's archived games; and
the standings recomputed from those games alone (``recompute``: a check on the live ones).

``finalize`` is the one way in. Whichever node first sees an arena over writes its spec and
its rows in one transaction; the arena's row is inserted ``ON CONFLICT DO NOTHING``, so a
second call — the same node after a lost answer, another node racing it — waits for the
first's transaction, inserts nothing, and writes no row either (``False``).

An arena's games are ordinary archived games (``server/archive/games.py``) whose ``arena``
column names it; they are written as they end, whether or not the arena is finished.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from sqlalchemy import select

from server.archive.db import Database
from server.archive.schema import arena_rows, arenas, game_seats, games, players
from server.rooms.arena import FIRE_AFTER, ArenaSpec, Result, Row, doubled, score

PODIUM = 3


class FinalArena(msgspec.Struct):
    """A finished arena as the list of arenas shows it: its spec and its podium."""

    arena: ArenaSpec
    podium: list[Row]  # the first three of the final standings (fewer with fewer players)
    players: int  # everyone in the final standings
    finished_ms: int


class ArenaGameRow(msgspec.Struct):
    """One archived game of an arena: who played it (``players``: their ids, null where the
    seat had no player or its player was deleted since; ``names`` as the game's page shows
    them), how it ended, each side's berserk (null: not allowed)."""

    id: str
    room: str
    players: list[str | None]
    names: list[str | None]
    winner: int | None  # the side that won; null: a draw
    reason: str
    adjudication: str | None
    berserk: list[bool] | None
    started_ms: int
    ended_ms: int
    rated: bool


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def finalize(
    db: Database, spec: ArenaSpec, rows: list[Row], finished_ms: int | None = None
) -> bool:
    """Keep ``spec`` and its final standings ``rows``: ``True`` when this call wrote them,
    ``False`` when they were there already (nothing is written then)."""
    values: dict[str, Any] = {
        "id": spec.id,
        "spec": msgspec.to_builtins(spec),
        "starts_ms": spec.starts_ms,
        "ends_ms": spec.ends_ms,
        "finished_ms": _now_ms() if finished_ms is None else finished_ms,
        "players": len(rows),
    }
    async with db.write() as conn:
        inserted = await conn.execute(db.insert(arenas).values(**values).on_conflict_do_nothing())
        if inserted.rowcount != 1:  # finalized before, or by another node's transaction
            return False
        if rows:
            await conn.execute(db.insert(arena_rows), [_row_values(spec.id, r) for r in rows])
        return True


def _row_values(arena: str, r: Row) -> dict[str, Any]:
    return {"arena": arena, **{f: getattr(r, f) for f in _ROW_COLUMNS}}


_ROW_COLUMNS = (
    "rank",
    "player",
    "name",
    "points",
    "games",
    "wins",
    "draws",
    "losses",
    "fire",
    "berserks",
    "sheet",
    "doubled",
    "paused",
    "rating",
)


def _row(r: Any) -> Row:
    return Row(**{f: getattr(r, f) for f in _ROW_COLUMNS})


async def final(db: Database, arena_id: str) -> tuple[ArenaSpec, list[Row]] | None:
    """A finished arena's spec and its final standings (by rank); ``None``: not finished (or
    unknown)."""
    async with db.read() as conn:
        found = (await conn.execute(select(arenas.c.spec).where(arenas.c.id == arena_id))).first()
        if found is None:
            return None
        rows = await conn.execute(
            select(arena_rows).where(arena_rows.c.arena == arena_id).order_by(arena_rows.c.rank)
        )
        return msgspec.convert(found.spec, ArenaSpec), [_row(r) for r in rows]


async def recent(db: Database, n: int) -> list[FinalArena]:
    """The ``n`` arenas finished last, newest first, each with its podium."""
    async with db.read() as conn:
        found = list(
            await conn.execute(
                select(arenas).order_by(arenas.c.finished_ms.desc(), arenas.c.id).limit(n)
            )
        )
        if not found:
            return []
        podiums: dict[str, list[Row]] = {a.id: [] for a in found}
        rows = await conn.execute(
            select(arena_rows)
            .where(arena_rows.c.arena.in_(list(podiums)), arena_rows.c.rank <= PODIUM)
            .order_by(arena_rows.c.arena, arena_rows.c.rank)
        )
        for r in rows:
            podiums[r.arena].append(_row(r))
    return [
        FinalArena(msgspec.convert(a.spec, ArenaSpec), podiums[a.id], a.players, a.finished_ms)
        for a in found
    ]


async def games_of(db: Database, arena_id: str) -> list[ArenaGameRow]:
    """The arena's archived games, in the order they ended."""
    query = (
        select(games, game_seats.c.side, game_seats.c.player, game_seats.c.name, players.c.name)
        .join(game_seats, game_seats.c.game == games.c.id)
        .join(players, players.c.id == game_seats.c.player, isouter=True)
        .where(games.c.arena == arena_id)
        .order_by(games.c.ended_ms, games.c.id, game_seats.c.side)
    )
    out: dict[str, ArenaGameRow] = {}
    async with db.read() as conn:
        for r in await conn.execute(query):
            m = r._mapping
            g = out.get(m[games.c.id])
            if g is None:
                g = out[m[games.c.id]] = ArenaGameRow(
                    id=m[games.c.id],
                    room=m[games.c.room],
                    players=[None, None],
                    names=[None, None],
                    winner=m[games.c.winner],
                    reason=m[games.c.reason],
                    adjudication=m[games.c.adjudication],
                    berserk=m[games.c.berserk],
                    started_ms=m[games.c.started_ms],
                    ended_ms=m[games.c.ended_ms],
                    rated=m[games.c.rated],
                )
            side = m[game_seats.c.side]
            g.players[side] = m[game_seats.c.player]
            g.names[side] = m[players.c.name] or m[game_seats.c.name]
    return list(out.values())


class _Tally:
    """One player's standings line as their games, in order, make it."""

    def __init__(self, player: str, first_ms: int) -> None:
        self.player = player
        self.first_ms = first_ms  # when their first game ended
        self.name: str | None = None
        self.points = self.wins = self.draws = self.losses = self.berserks = self.streak = 0
        self.sheet: list[int] = []
        self.doubled: list[bool] = []  # per game of sheet: its points doubled
        self.reached_ms = 0  # when the points last changed

    def add(self, result: Result, berserked: bool, name: str | None, ended_ms: int) -> int:
        self.doubled.append(doubled(self.streak, result))
        points, self.streak = score(self.streak, result, berserked)
        self.sheet.append(points)
        self.wins += result == "win"
        self.draws += result == "draw"
        self.losses += result == "loss"
        self.berserks += berserked
        self.name = name if name is not None else self.name
        if points:
            self.points += points
            self.reached_ms = ended_ms
        return points


def _scored(played: Iterable[ArenaGameRow]) -> tuple[dict[str, _Tally], dict[str, list[int]]]:
    """Each player's tally and each game's points by side, the games taken in the order they
    ended."""
    tallies: dict[str, _Tally] = {}
    points: dict[str, list[int]] = {}
    for g in sorted(played, key=lambda g: (g.ended_ms, g.id)):
        points[g.id] = [0, 0]
        if g.adjudication == "aborted":
            continue
        for side, player in enumerate(g.players):
            if player is None:
                continue
            result: Result = "draw" if g.winner is None else "win" if g.winner == side else "loss"
            berserked = bool(g.berserk and g.berserk[side])
            t = tallies.get(player) or tallies.setdefault(player, _Tally(player, g.ended_ms))
            points[g.id][side] = t.add(result, berserked, g.names[side], g.ended_ms)
    return tallies, points


def points_of(played: Iterable[ArenaGameRow]) -> dict[str, list[int]]:
    """The points each game of ``played`` (one arena's archived games) earned each side, by
    game id (``[south, north]``; 0 for a side without a player and in an aborted game)."""
    return _scored(played)[1]


def recompute(
    played: Iterable[ArenaGameRow], joined_ms: Mapping[str, int] | None = None
) -> list[Row]:
    """The standings ``played`` (one arena's archived games) make on their own: each player's
    games scored in the order they ended (``rooms.arena.score``), ranked as the live standings
    are — points, then who reached them first, then player id. An aborted game counts for
    nobody; a seat without a player is in no row.

    The archive does not know when a player joined, which orders those without points: give
    ``joined_ms`` (player -> ms, the store's) to order them as the live standings do; without
    it they go by the end of their first game. Nor does it know who joined and finished no
    game (no row), who paused (``paused`` false) or the rating they joined with (null)."""
    tallies, _ = _scored(played)
    joined = joined_ms or {}
    ordered = sorted(
        tallies.values(),
        key=lambda t: (
            -t.points,
            t.reached_ms if t.points else joined.get(t.player, t.first_ms),
            t.player,
        ),
    )
    return [
        Row(
            rank=rank,
            player=t.player,
            name=t.name,
            points=t.points,
            games=len(t.sheet),
            wins=t.wins,
            draws=t.draws,
            losses=t.losses,
            fire=t.streak >= FIRE_AFTER,
            berserks=t.berserks,
            sheet=t.sheet,
            doubled=t.doubled,
            paused=False,
            rating=None,
        )
        for rank, t in enumerate(ordered, 1)
    ]
