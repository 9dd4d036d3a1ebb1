"""The store's scripts, against a real (embedded) Valkey: presence refresh and pruning."""

from __future__ import annotations

import time

import pytest
from asynckit import run

from server.store.embedded import EmbeddedValkey
from server.store.store import Store


@pytest.fixture(scope="module")
def valkey_url(tmp_path_factory):
    store = EmbeddedValkey(tmp_path_factory.mktemp("valkey")).start()
    yield store.url
    store.stop()


def test_pruning_drops_ended_entries_but_each_sides_last_seen(valkey_url, key_prefix):
    async def scenario():
        store = Store(valkey_url, key_prefix)
        try:
            now = int(time.time() * 1000)
            assert await store.create("r1", 0, b"room", now + 60_000)
            ended = {
                "0:a": now - 50,
                "0:b": now - 10,
                "1:c": now - 20,
                "1:d": now - 5,
                "w:e": now - 1,
                "w:f": now - 2,
            }
            live = {"1:g": now + 5_000, "w:h": now + 5_000}
            [(alive, entries, _, _)] = await store.touch_many(
                [("r1", {**ended, **live}, now + 60_000)]
            )
            assert alive and len(entries) == 8
            [(alive, entries, _, _)] = await store.touch_many(
                [("r1", {}, now + 60_000)], prune_before_ms=now
            )
            kept = {m.decode(): int(s) for m, s in entries}
            # South has no live connection: its latest ended entry stays as "last seen".
            # North is live: its ended entries go. Ended spectators go; live ones stay.
            assert kept == {"0:b": now - 10, "1:g": now + 5_000, "w:h": now + 5_000}
            # A store that forgot its scripts (a restart) gets them again.
            await store.link.execute("SCRIPT", "FLUSH")
            [(alive, entries, _, _)] = await store.touch_many(
                [("r1", {}, now + 60_000)], prune_before_ms=now
            )
            assert alive and len(entries) == 3
            [(alive, _, _, _)] = await store.touch_many([("gone", {"0:x": now}, now + 60_000)])
            assert not alive
        finally:
            await store.link.execute("DEL", store.room_key("r1"), store.presence_key("r1"))
            await store.close()

    run(scenario())


def test_a_compare_and_set_indexes_the_rooms_deadline_in_its_own_script(valkey_url, key_prefix):
    """The deadline goes into the index with the write that gives it (``_CAS``'s ARGV[12]):
    only moving earlier, never by a refused write, and with the waiting set left alone."""

    async def scenario():
        store = Store(valkey_url, key_prefix)
        try:
            index = f"{key_prefix}clock:{{deadlines}}"
            waiting = store.waiting_key("r1")
            now = int(time.time() * 1000)
            assert await store.create("r1", 0, b"room", now + 60_000)
            assert await store.cas("r1", 0, 1, b"r1", now + 60_000, b"", deadline=now + 9_000) == 0
            assert await store.link.execute("ZSCORE", index, "r1") == str(now + 9_000).encode()
            assert await store.cas("r1", 1, 2, b"r2", now + 60_000, b"", deadline=now + 5_000) == 0
            assert await store.cas("r1", 2, 3, b"r3", now + 60_000, b"", deadline=now + 7_000) == 0
            assert await store.link.execute("ZSCORE", index, "r1") == str(now + 5_000).encode()
            refused = await store.cas("r1", 1, 2, b"rx", now + 60_000, b"", deadline=now + 1)
            assert refused == 1  # another node wrote first: nothing indexed
            assert await store.link.execute("ZSCORE", index, "r1") == str(now + 5_000).encode()
            assert await store.link.execute("ZSCORE", waiting, "r1") is None
            store.sharded = True  # a Cluster's index has a slot of its own: not in the script
            with pytest.raises(ValueError, match="own slot"):
                await store.cas("r1", 3, 4, b"r4", now + 60_000, b"", deadline=now)
            store.sharded = False
        finally:
            await store.close()

    run(scenario())
