"""An arena creator's claim and the rows read at once, in a real store
(server/store/arena.py): however many creations one player asks at once, one arena is made
and listed until its end; ``rows`` reads many players' rows in one round trip, as ``row``
reads one; a closed socket unlists its player only if the waiter is still that socket's."""

from __future__ import annotations

import asyncio

import pytest
from arenakit import new_arena, scenario, store_ms, until_store_ms

from server.rooms import arena as A
from server.rooms.clock import Control
from server.store.arena import ArenaStore


def test_ten_creations_at_once_by_one_player_make_one_arena_until_its_end(shared_store):
    async def body(*links: ArenaStore):
        now = await store_ms(links[0].link)
        asks = [
            A.ArenaSpec(
                f"c{i}-{now}",
                "Mine",
                "kalah",
                {},
                Control(60_000, 0),
                True,
                False,
                now,
                now + 1500,
                now,
                "juma",
            )  # fmt: skip
            for i in range(10)
        ]
        answers = await asyncio.gather(
            *(arenas.create(spec) for arenas, spec in zip(links, asks, strict=True)),
            return_exceptions=True,
        )
        made = [spec.id for spec, ok in zip(asks, answers, strict=True) if ok is True]
        assert len(made) == 1, answers
        refused = [a for a in answers if isinstance(a, A.ArenaRefused)]
        assert len(refused) == 9 and {r.code for r in refused} == {"arena-limit"}
        assert all(made[0] in r.message for r in refused)
        arenas = links[0]
        assert [s.id for s in await arenas.listing(now) if s.by == "juma"] == made
        for spec in asks:  # the refused ones are gone, unlisted
            assert (await arenas.get(spec.id) is None) == (spec.id not in made)
        # The operator's schedule is not limited; another player is not.
        assert await new_arena(arenas, by=None)
        assert await new_arena(arenas, by="neema")
        # Past its end (ending, then finished) the player may create again.
        with pytest.raises(A.ArenaRefused):
            await new_arena(arenas, by="juma")
        await until_store_ms(arenas.link, now + 1500)
        assert (await new_arena(arenas, by="juma")).by == "juma"

    scenario(shared_store, body, connections=10)


def test_rows_reads_many_rows_as_row_reads_one(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        for p in ("a", "b", "c"):
            await arenas.join(spec.id, p, p.upper(), 1500)
        await arenas.finish(spec.id, "r1", 1, ["a", "b"], ["win", "loss"], [False, False], 1)
        rows = await arenas.rows(spec.id, ["b", "a", "nobody", "c"])
        assert list(rows) == ["b", "a", "c"]
        for p, row in rows.items():
            assert row == await arenas.row(spec.id, p)
        assert rows["a"].points == 2 and rows["a"].rank == 1
        assert await arenas.rows(spec.id, []) == {}

    scenario(shared_store, body)


def test_a_closed_socket_unlists_its_player_only_if_still_their_waiter(shared_store):
    async def body(arenas: ArenaStore):
        spec = await new_arena(arenas)
        await arenas.join(spec.id, "p", None, None)
        assert await arenas.why_wait(spec.id, "p", "h2", "n2", 30_000, "r", 0) == ("waiting", None)
        waiter = arenas.keys(spec.id) + "waiter"
        # An older socket of theirs on n1 closes: they wait on n2 since.
        assert await arenas.unwait(spec.id, "p", "n1", "h1") is False
        assert await arenas.unwait(spec.id, "p", "n2", "h1") is False
        assert await arenas.link.execute("HEXISTS", waiter, "p") == 1
        assert await arenas.unwait(spec.id, "p", "n2", "h2") is True
        assert await arenas.link.execute("HEXISTS", waiter, "p") == 0

    scenario(shared_store, body)
