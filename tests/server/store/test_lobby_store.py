"""The lobby's and the clocks' scripts against a real (embedded) Valkey: a stale seek is passed
over and dropped, not paired; compatibility and sides as ``server/rooms/seeks.py`` says; a due
deadline is claimed by one caller only, and comes back when its claim's lease ends."""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import msgspec
import pytest
from asynckit import run

from server.rooms import seeks as S
from server.store.deadlines import Deadlines
from server.store.embedded import EmbeddedValkey
from server.store.lobby import LobbyStore, seek_rules
from server.store.store import Store


@pytest.fixture(scope="module")
def valkey_url(tmp_path_factory):
    store = EmbeddedValkey(tmp_path_factory.mktemp("valkey")).start()
    yield store.url
    store.stop()


def rec(
    seek_id: str, side: S.SidePref = "random", conn: str = "", player: str | None = None
) -> S.SeekRec:
    return S.SeekRec(
        seek_id, "oware", {}, None, side, False, "pool1", "node", conn or seek_id, "h", "addr",
        player=player,
    )  # fmt: skip


def test_a_stale_seek_is_passed_over_and_dropped_and_sides_follow_preferences(valkey_url):
    async def scenario():
        store = Store(valkey_url, f"t{uuid.uuid4().hex[:6]}:")
        lobby = LobbyStore(store.link, store.prefix, False)
        try:
            # A seek whose node stopped refreshing it (a lease of 1 ms), then a live one.
            assert (
                await lobby.seek("stale", S.encode_rec(rec("stale")), seek_rules(1, 10, "r0", 0))
            )[0] == "open"
            await asyncio.sleep(0.01)
            live = rec("live", side="north")
            assert (await lobby.seek("live", S.encode_rec(live), seek_rules(60_000, 10, "r1", 0)))[
                0
            ] == "open"
            # Both want North: not a pair. The same player: not a pair either.
            assert (
                await lobby.seek(
                    "n2", S.encode_rec(rec("n2", "north")), seek_rules(60_000, 10, "r2", 0)
                )
            )[0] == "open"
            kind, pairing = await lobby.seek(
                "x", S.encode_rec(rec("x", "random")), seek_rules(60_000, 10, "r3", 1)
            )
            assert kind == "paired" and pairing is not None
            made = S.decode_pairing(pairing)
            # The stale seek was passed over; the oldest live compatible one got its North.
            assert made.room == "r3" and [s.id for s in made.seeks] == ["x", "live"]
            assert [S.decode_rec(r).id for r in await lobby.open_seeks()] == ["n2"]
            assert await store.link.execute("HEXISTS", lobby.keys + "seeks", "stale") == 0
            # A resend of a paired seek finds its pairing; a cancelled one is gone.
            assert await lobby.seek(
                "x", S.encode_rec(rec("x")), seek_rules(60_000, 10, "r9", 0)
            ) == (
                "paired",
                pairing,
            )
            assert (await lobby.cancel("n2"))[0] == "cancelled"
            assert await lobby.open_seeks() == []
            assert await lobby.refresh(["live", "n2"], 60_000) == [pairing, b""]
        finally:
            await store.close()

    run(scenario())


def test_a_due_deadline_is_claimed_once_and_comes_back_after_its_lease(valkey_url):
    async def scenario():
        store = Store(valkey_url, f"t{uuid.uuid4().hex[:6]}:")
        deadlines = Deadlines(store.link, store.prefix)
        try:
            now = int(time.time() * 1000)
            await deadlines.put("room", now + 60_000)
            await deadlines.put("room", now - 5)  # only ever earlier
            await deadlines.put("room", now + 90_000)
            claims = await asyncio.gather(*(deadlines.claim(200) for _ in range(5)))
            assert sorted(len(due) for _, due in claims) == [0, 0, 0, 0, 1]
            assert (await deadlines.claim(200))[1] == []
            await asyncio.sleep(0.3)  # the claimer died: its lease ends, the deadline is back
            assert [r for r, _ in (await deadlines.claim(200))[1]] == ["room"]
            await deadlines.release("room", now + 60_000)
            assert (await deadlines.claim(200))[1] == []
        finally:
            await store.link.execute("DEL", deadlines.index, deadlines.claimed)
            await store.close()

    run(scenario())


def test_the_pairing_script_pairs_as_seeks_nearest_says_ties_past_its_scan_included(valkey_url):
    """``server/rooms/seeks.py`` ``nearest`` against the script: 150 seeks for North on three
    ratings (more equals than the script looks at in one direction, so its oldest-first reading
    of a cut group of equals is used), then newcomers for South of random ratings."""

    async def scenario():
        store = Store(valkey_url, f"t{uuid.uuid4().hex[:6]}:")
        lobby = LobbyStore(store.link, store.prefix, False)
        rng = random.Random(47)
        try:
            waiting: dict[str, S.SeekRec] = {}
            for i in range(150):
                w = msgspec.structs.replace(rec(f"w{i:03}", "north"), rating=rng.choice(RATINGS))
                rules = seek_rules(60_000, 1000, f"r{i}", 0, rating=S.rating_of(w), flights=1000)
                assert (await lobby.seek(w.id, S.encode_rec(w), rules))[0] == "open"
                waiting[w.id] = w
            for i in range(60):
                me = msgspec.structs.replace(
                    rec(f"n{i:03}", "south"), rating=rng.choice([None, *range(1200, 1900, 50)])
                )
                posted = [
                    (int(await store.link.execute("ZSCORE", lobby.keys + "pool:pool1", w)), s)
                    for w, s in waiting.items()
                ]
                expected = S.nearest(me, posted)
                rules = seek_rules(60_000, 1000, f"m{i}", 0, rating=S.rating_of(me), flights=1000)
                kind, pairing = await lobby.seek(me.id, S.encode_rec(me), rules)
                assert kind == "paired" and pairing is not None and expected is not None
                got = next(s for s in S.decode_pairing(pairing).seeks if s.id != me.id)
                assert got.id == expected.id, (me.rating, got.rating, expected.rating)
                del waiting[got.id]
        finally:
            await store.close()

    run(scenario())


RATINGS = [1400, 1500, 1500, 1500, 1600]
