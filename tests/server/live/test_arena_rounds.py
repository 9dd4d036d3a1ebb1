"""The arenas' rounds against a real (embedded) Valkey, for what the nodes' test cannot time: a
game whose node wrote its end and died before scoring it is scored by any node's round, once;
a game whose room was never made (both players' nodes died at the pairing) is released as
aborted past the join and first-move windows; an arena past its end with nothing left playing
is finished once (server/live/arenarounds.py)."""

from __future__ import annotations

import time
import uuid

import msgspec
import pytest
from asynckit import run

from server.live.arena import Arenas
from server.live.arenarounds import HOOK_MS, Rounds
from server.ops.config import Settings
from server.rooms import arena as A
from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms import stored
from server.rooms.arenaroom import room_of
from server.rooms.clock import Control
from server.store.embedded import EmbeddedValkey
from server.store.store import Store


@pytest.fixture(scope="module")
def valkey_url(tmp_path_factory):
    store = EmbeddedValkey(tmp_path_factory.mktemp("valkey")).start()
    yield store.url
    store.stop()


def _now() -> int:
    return int(time.time() * 1000)


def _spec(ends_in_ms: int) -> A.ArenaSpec:
    now = _now()
    return A.ArenaSpec(
        A.arena_id(), "t", "kalah", {"seeds": 3, "empty_capture": False}, Control(60_000, 0),
        True, True, now - 1000, now + ends_in_ms, now - 2000, "creator",
    )  # fmt: skip


async def _paired(arenas: Arenas, spec: A.ArenaSpec) -> A.Pairing:
    store = arenas.store
    assert await store.create(spec)
    for player in ("amina", "baraka"):
        await store.join(spec.id, player, player.title(), None)
    await store.wait(spec.id, "amina", "h1", "n1", 60_000, "r-a", 0)
    pairing = await store.wait(spec.id, "baraka", "h2", "n1", 60_000, f"r{uuid.uuid4().hex[:8]}", 0)
    assert pairing is not None
    return pairing


def _ended(room: R.Room, at: int) -> R.Room:
    """Two moves a side, then South resigns: North wins (judged as a node judges it)."""
    counts = [0, 0]
    while min(counts) < 2:
        side = R.Position(room).to_move
        move = R.Position(room).choices[0].move
        room = J.judge(
            room,
            P.Move(room=room.id, version=room.version, move=move, id=f"m{room.version}"),
            R.Context(sides=[side], who=str(side), now_ms=at),
        ).room
        counts[side] += 1
    return J.judge(room, P.Resign(room=room.id), R.Context(sides=[0], who="0", now_ms=at)).room


def test_a_game_ended_by_a_node_that_died_before_scoring_it_is_scored_once_by_a_round(valkey_url):
    async def scenario() -> None:
        store = Store(valkey_url, f"t{uuid.uuid4().hex[:6]}:")
        await store.start()
        made: list[str] = []

        async def create_room(room: R.Room) -> bool:
            made.append(room.id)
            return await store.create(
                room.id, room.rev, stored.whole(room, store.layout), _now() + 60_000, room.stamp
            )

        arenas = Arenas(Settings(), store, "n1", create_room, _now)
        rounds = Rounds(Settings(), store, arenas, None, _now)
        try:
            spec = _spec(60_000)
            pairing = await _paired(arenas, spec)
            # The room as the dead node last wrote it: ended HOOK_MS and more ago, never scored.
            room = _ended(room_of(spec, pairing, 30_000), _now() - HOOK_MS - 500)
            assert room.outcome is not None and room.outcome.winner == 1
            await create_room(room)
            assert await rounds.check_playing(spec, _now()) == 0
            north = pairing.sides[1].player
            row = await arenas.store.row(spec.id, north)
            assert row is not None and (row.points, row.games, row.wins) == (2, 1, 1)
            assert await arenas.store.playing(spec.id) == []
            assert await rounds.check_playing(spec, _now()) == 0  # scored once, whoever asks
            row = await arenas.store.row(spec.id, north)
            assert row is not None and row.games == 1
            # Ended just now: left to its own node's hook for HOOK_MS.
            again = await _paired_again(arenas, spec)
            fresh = _ended(room_of(spec, again, 30_000), _now())
            await create_room(fresh)
            assert await rounds.check_playing(spec, _now()) == 1
        finally:
            await arenas.stop()
            await store.close()

    run(scenario())


async def _paired_again(arenas: Arenas, spec: A.ArenaSpec) -> A.Pairing:
    store = arenas.store
    await store.wait(spec.id, "amina", "h1", "n1", 60_000, "x", 0, rematch_ms=0)
    pairing = await store.wait(
        spec.id, "baraka", "h2", "n1", 60_000, f"r{uuid.uuid4().hex[:8]}", 0, rematch_ms=0
    )
    assert pairing is not None
    return pairing


def test_a_room_never_made_is_released_as_aborted_and_the_arena_finishes_once(valkey_url):
    async def scenario() -> None:
        store = Store(valkey_url, f"t{uuid.uuid4().hex[:6]}:")
        await store.start()
        settings = Settings(join_deadline_ms=100, abort_ms=1000)
        arenas = Arenas(settings, store, "n1", lambda room: _never(), _now)
        rounds = Rounds(settings, store, arenas, None, _now)
        try:
            spec = _spec(60_000)
            await _paired(arenas, spec)
            assert await rounds.check_playing(spec, _now()) == 1  # (it may yet be made)
            late = _now() + 100 + 2 * 1000 + 5000  # past the windows and a lease
            assert await rounds.check_playing(spec, late) == 0
            assert await arenas.store.playing(spec.id) == []
            row = await arenas.store.row(spec.id, "amina")
            assert row is not None and (row.games, row.points) == (0, 0)  # aborted: not a game
            # Past its end, nothing playing: finished (once: the claim).
            ended = msgspec.structs.replace(spec, ends_ms=_now() - 1)
            await rounds.finalize(ended)
            assert await arenas.store.is_finished(spec.id)
            await rounds.finalize(ended)  # a second node, or round: nothing more
        finally:
            await arenas.stop()
            await store.close()

    run(scenario())


async def _never() -> bool:
    return False
