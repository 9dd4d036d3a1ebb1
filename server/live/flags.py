"""The flag watcher: ends clocked games on time on whichever node, with nobody sending.

Every node runs one (``Flags.watch``): every ``PERIOD_S`` it claims the rooms whose deadline
— the clock's zero and the grace a late move would still get (``timing.flag_at``) — has
passed by the store's clock (``server/store/deadlines.py``; each claimed by one node) and
judges a ``Flag`` on each through the node's write path, on the store's copy of the room
(never a node's, which a notice may not have reached), which ends the game on time
(``timeout``) or aborts it (``aborted``) if its deadline really passed, and changes nothing if
a move came first. The room's next deadline, if any, goes back in the index. The node's
write path indexes each new deadline with the change that makes it (``new_deadline``: in the
compare-and-set's script, or on a Cluster ahead of it, ``index``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import RedisError

from server.ops import health
from server.rooms.room import Refused, Room
from server.rooms.timing import Flag, flag_at
from server.store.deadlines import Deadlines

log = logging.getLogger("nyumba.flags")

PERIOD_S = 0.05  # how often a node asks for due deadlines: a flag falls at most this late
LEASE_MS = 10_000  # a claimed deadline comes back if its node has not judged it by then

Change = Callable[..., Awaitable[Any]]


def new_deadline(before: Room | None, after: Room) -> int | None:
    """The deadline ``after`` puts in the index: its own, if it has one and ``before`` (None: a
    new room) had another."""
    due = flag_at(after)
    if due is not None and (before is None or flag_at(before) != due):
        return due
    return None


class Flags:
    def __init__(self, deadlines: Deadlines, change: Change):
        self.deadlines = deadlines
        self.change = change
        # Told of every room judged at its deadline (the lobby counts a missing first move).
        self.judged: Callable[[Room, int], None] = lambda room, at: None
        self.judging: set[asyncio.Task[None]] = set()

    async def index(self, before: Room | None, after: Room) -> None:
        """Before ``after`` is stored: put its deadline in the index if it has a new one
        (``new_deadline``; the compare-and-set writes it itself where it can)."""
        due = new_deadline(before, after)
        if due is not None:
            await self.deadlines.put(after.id, due)

    async def watch(self) -> None:
        while True:
            try:
                await self.once()
            except RedisError as exc:
                health.STORE.failed(exc)
            except Exception:
                log.exception("the flag watcher failed; it goes on")
            await asyncio.sleep(PERIOD_S)

    async def once(self) -> int:
        _, due = await self.deadlines.claim(LEASE_MS)
        for room_id, at in due:
            task = asyncio.create_task(self._judge(room_id, at), name=f"flag:{room_id}")
            self.judging.add(task)
            task.add_done_callback(self.judging.discard)
        return len(due)

    async def _judge(self, room_id: str, at: int) -> None:
        try:
            done = await self.change(room_id, Flag(room_id))
        except Refused as refused:
            # The room is gone: nothing to wait for. Lost races (``busy``): judged again soon.
            await self.deadlines.release(room_id, None if refused.code == "no-room" else at)
            return
        except RedisError as exc:  # the claim's lease brings it back
            health.STORE.failed(exc)
            return
        except Exception:
            log.exception(
                "room %s: judging its deadline failed; it comes back when its claim lapses", room_id
            )
            return
        self.judged(done.room, at)
        await self.deadlines.release(room_id, flag_at(done.room))

    async def stop(self) -> None:
        for task in list(self.judging):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
