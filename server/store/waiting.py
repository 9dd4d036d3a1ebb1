"""Rooms holding finished games the archive does not have yet: a sorted set every node sweeps.

    <prefix>archive:{waiting}   sorted set: room id -> when a node should try it (ms)

The games themselves wait in their rooms (``Room.waiting``); this set only says which rooms
to look in, so that a game is written even when the node that finished it died before
writing it, or the database was down, and nobody is left in the room to notice
(``server/live/archiving.py``). A room enters it before its first write is tried and leaves
it once nothing of it waits. While its games wait, a room outlives its idle expiry
(``hold_room``): a database outage longer than a room's life loses nothing either.
"""

from __future__ import annotations

from server.store.store import Store


def _key(store: Store) -> str:
    return f"{store.prefix}archive:{{waiting}}"


async def due_at(store: Store, room_id: str, at_ms: int) -> None:
    """Look at ``room_id`` again at ``at_ms``."""
    await store.link.execute("ZADD", _key(store), at_ms, room_id)


async def due(store: Store, now_ms: int, limit: int = 50) -> list[str]:
    """Rooms whose time to be looked at has come, the longest waiting first."""
    rooms = await store.link.execute(
        "ZRANGE", _key(store), "-inf", now_ms, "BYSCORE", "LIMIT", 0, limit
    )
    return [r.decode() if isinstance(r, bytes) else r for r in rooms]


async def done(store: Store, room_id: str) -> None:
    await store.link.execute("ZREM", _key(store), room_id)


async def count(store: Store) -> int:
    return int(await store.link.execute("ZCARD", _key(store)))


async def hold_room(store: Store, room_id: str, until_ms: int) -> None:
    """Keep the room (and its presence) at least until ``until_ms`` (never shortened)."""
    key = store.room_key(room_id)
    await store.link.execute_many(
        [("PEXPIREAT", key, until_ms, "GT"), ("PEXPIREAT", key + ":presence", until_ms, "GT")]
    )
