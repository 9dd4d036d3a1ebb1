"""Rooms holding finished games the archive does not have yet: sorted sets every node sweeps.

    <prefix>archive:{waiting}          sorted set: room id -> when a node should try it (ms)
    <prefix>archive:waiting:{<tag>}    on a Cluster: the same, one set per slot

The games themselves wait in their rooms (``Room.waiting``); these sets only say which rooms
to look in, so that a game is written even when the node that finished it died before
writing it, or the database was down, and nobody is left in the room to notice
(``server/live/archiving.py``). A room's place in line is written by the compare-and-set that
changes what waits in it (``_CAS``, ARGV[10]): the change that ends a game puts the room in
line, the one that removes its last waiting game takes it out, in the same atomic write — a
node that dies right after a game's end leaves the game in line, never only in its room.

A script touches one slot, so on a Cluster a room is queued in its own slot's set
(``Store.waiting_key``; the tags: ``server/store/slots.py``), and the sweep reads the sets a
slice of the slots at a time (``due``), all of them once per ``NYUMBA_ARCHIVE_RETRY_MS``. The
one set is read too: a node from before kept its rooms there.

Whatever else finds a finished room whose games wait (a join: ``queue``) puts it back in line
if it is not, and every try holds the room (``retry_later``): a room whose games wait outlives
its idle expiry, so a database outage longer than a room's life loses nothing either.
"""

from __future__ import annotations

from typing import Any

from server.store.slots import SLOTS, tag_of
from server.store.store import Store

READ_AT_ONCE = 512  # the sets one write of a sweep reads (tests/bench/waiting_sweep.py)

# KEYS: room, its waiting set. ARGV: room id, revision ('' : any). Takes the room out of line
# unless the room was written since that revision (a change that may have put a game in it).
_DONE = """
local rev = redis.call('HGET', KEYS[1], 'rev')
if ARGV[2] == '' or not rev or rev == ARGV[2] then
  return redis.call('ZREM', KEYS[2], ARGV[1])
end
return 0
"""


def _one(store: Store) -> str:
    """The one set (every set of a store that is not a Cluster; older nodes' on a Cluster)."""
    return f"{store.prefix}archive:{{waiting}}"


def _slot_key(store: Store, slot: int) -> str:
    return f"{store.prefix}archive:waiting:{{{tag_of(slot)}}}"


async def queue(store: Store, room_id: str, at_ms: int) -> None:
    """Put the room in line, due at ``at_ms``, unless it is in line already."""
    await store.link.execute("ZADD", store.waiting_key(room_id), "NX", at_ms, room_id)


async def retry_later(store: Store, room_id: str, at_ms: int, hold_until_ms: int) -> None:
    """A node tries the room now: look again at ``at_ms`` if it is still in line (never put it
    in line: its compare-and-set did), and keep the room (and its presence) at least until
    ``hold_until_ms``."""
    key = store.room_key(room_id)
    commands: list[tuple[Any, ...]] = [
        ("ZADD", store.waiting_key(room_id), "XX", at_ms, room_id),
        ("PEXPIREAT", key, hold_until_ms, "GT"),
        ("PEXPIREAT", key + ":presence", hold_until_ms, "GT"),
    ]
    if store.sharded:
        commands.append(("ZADD", _one(store), "XX", at_ms, room_id))
    await store.link.execute_many(commands)


async def done(store: Store, room_id: str, rev: int | None = None) -> None:
    """Out of line: the room is gone (``rev`` None), or nothing of it waited at revision
    ``rev`` — kept in line if it was written since."""
    keys = [store.room_key(room_id), store.waiting_key(room_id)]
    await store.link.script(_DONE)(keys=keys, args=[room_id, "" if rev is None else rev])
    if store.sharded:  # an older node's entry (never a newer node's: theirs are per slot)
        await store.link.execute("ZREM", _one(store), room_id)


def slices(store: Store, tick_ms: int, retry_ms: int) -> int:
    """How many slots' sets one sweep reads on a Cluster: all of them every ``retry_ms``."""
    if not store.sharded:
        return 0
    return min(SLOTS, -(-SLOTS * tick_ms // retry_ms))


async def due(
    store: Store, now_ms: int, first_slot: int = 0, slot_count: int = 0, limit: int = 50
) -> list[str]:
    """Rooms whose time to be looked at has come, the longest waiting first: in the one set,
    and on a Cluster in the sets of ``slot_count`` slots from ``first_slot`` on."""
    keys = [_one(store)]
    keys += [_slot_key(store, (first_slot + i) % SLOTS) for i in range(slot_count)]
    rooms: dict[str, None] = {}
    for at in range(0, len(keys), READ_AT_ONCE):  # each batch a few ms: moves go in between
        replies = await store.link.execute_many(
            [
                ("ZRANGE", k, "-inf", now_ms, "BYSCORE", "LIMIT", 0, limit)
                for k in keys[at : at + READ_AT_ONCE]
            ]
        )
        rooms.update(dict.fromkeys(_text(r) for rs in replies for r in rs))
    return list(rooms)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
