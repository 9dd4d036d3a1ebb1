"""A change's one write to the store: the compare-and-set of ``Node.change``, and what must go
with it.

A move whose notice the store may append to the room (``rooms.stored``) sends only that
notice; any other change, and a room stored in another layout than the one this node writes
(the script answers 3: a whole record, or the other release's during an upgrade), sends the
room whole, in the layout the store asks for (``store.layout``). The same compare-and-set keeps
the room's place in the archive's waiting set (``server/store/waiting.py``): in line, due after
``NYUMBA_ARCHIVE_RETRY_MS``, while finished games wait in the room; out of it once the last was
archived; untouched by every change of a room where none waits (the moves of a game being
played). A clocked room's new deadline goes into the index (``flags.py``) in the same
script, so the index is never later than the room it points at; on a Cluster, where the index
has a slot of its own, ahead of the compare-and-set: its command is queued on the connection
first, and the two cost one round trip, not two.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from server.live.flags import Flags, new_deadline
from server.live.local import room_expiry
from server.ops.config import Settings
from server.rooms import stored
from server.rooms.layout import mark
from server.rooms.room import Room
from server.store.store import Store


class Writer(Protocol):
    """What writes with the compare-and-set (``server/live/node.py``'s ``Node``)."""

    store: Store
    flags: Flags
    settings: Settings
    node_id: str


async def store(
    node: Writer, current: Room, new: Room, notice: bytes, append: bool, now: int, layout: int
) -> tuple[int, bool]:
    """Store ``new`` over ``current`` at ``now`` (store ms) in ``layout`` (the one ``append``
    was judged for: ``stored.appended``): the compare-and-set's answer (0 stored, 1 another
    node wrote first, 2 the store went back in time, -1 no room) and whether the move was
    appended. With ``NYUMBA_LOCAL_FANOUT`` the node sends the notice to its own
    sockets itself (``Fanout.written``): the store publishes it only if another node listens."""
    db, flags, settings = node.store, node.flags, node.settings
    expire = room_expiry(settings, new.created_ms, now, bool(new.waiting))
    line = ""  # the room's place in the waiting set (``_CAS``'s ARGV[10])
    if new.waiting:
        line = str(now + settings.archive_retry_ms)
    elif current.waiting:
        line = "done"
    indexing, due = None, None
    if new.clock is not None:
        due = new_deadline(current, new)
        if due is not None and db.sharded:
            indexing = asyncio.ensure_future(flags.index(current, new))
            indexing.add_done_callback(lambda t: t.cancelled() or t.exception())
            await asyncio.sleep(0)  # the index's command goes out ahead of the compare-and-set's
            due = None
    result, written = 3, layout
    for whole in (not append, True):
        result = await db.cas(
            new.id,
            current.rev,
            new.rev,
            stored.whole(new, written) if whole else b"",
            expire,
            notice,
            stamp=new.stamp,
            expected_stamp=current.stamp,
            append=b"" if whole else stored.record(notice),
            under=mark(written),
            waiting=line,
            writer=node.node_id if settings.local_fanout else "",
            deadline=due,
        )
        if result != 3:  # 3: stored in another layout than the one written: write it whole
            break
        append = False
    if indexing is not None:
        await indexing
    return result, append
