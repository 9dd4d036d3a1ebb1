"""``NYUMBA_ACK_REPLICAS=N``: an acknowledgement waits until N replicas have
the write, so a master's failure (its replica promoted by Sentinel or the
Cluster) loses nothing that was acknowledged.

``WAIT n timeout`` counts the replicas that have everything the *calling
connection* wrote. The compare-and-set may have been written through another
connection (or an earlier one, before a reconnection, or by another node when
an intent is resent), so each confirmation is a fresh write on the connection
that then waits: ``SET <room key>:sync`` and ``WAIT``. A master's replication
stream is in order, so a replica that has the later ``SET`` has the move too.

``WAIT`` holds its connection until the replicas answer, so it runs on a
link of its own (not the one every message uses), and by group commit:
confirmations do not each send their own. While one is on its way, every confirmation asked for
on the same master joins the next one; one round trip to the replicas covers
them all.
"""

from __future__ import annotations

import asyncio
from typing import Any


class _Group:
    __slots__ = ("next", "key", "task")

    def __init__(self) -> None:
        self.next: asyncio.Future | None = None  # the confirmation being gathered
        self.key: str = ""
        self.task: asyncio.Task | None = None


class Replicas:
    def __init__(self, link: Any, count: int, timeout_ms: int):
        self.link = link
        self.count = count
        self.timeout_ms = timeout_ms
        self.groups: dict[str | None, _Group] = {}
        self.sent = 0  # WAITs sent (for the tests: fewer than confirmations under load)

    async def confirm(self, key: str) -> bool:
        """True once ``count`` replicas have every write made before this call
        on ``key``'s master; False when they did not within the timeout."""
        if self.count <= 0:
            return True
        address_of = getattr(self.link, "address_of", None)
        group_key = address_of(key) if address_of is not None else None
        group = self.groups.get(group_key)
        if group is None:
            group = self.groups[group_key] = _Group()
        if group.next is None:
            group.next = asyncio.get_running_loop().create_future()
            group.key = key
        fut = group.next
        if group.task is None or group.task.done():
            group.task = asyncio.get_running_loop().create_task(self._run(group))
        return await asyncio.shield(fut)

    async def _run(self, group: _Group) -> None:
        while group.next is not None:
            fut, key = group.next, group.key
            group.next = None
            self.sent += 1
            try:
                _, replicas = await self.link.execute_many(
                    [
                        ("SET", key + ":sync", "1", "PX", 60_000),
                        ("WAIT", self.count, self.timeout_ms),
                    ]
                )
            except Exception as exc:
                if not fut.done():
                    fut.set_exception(exc)
                fut.add_done_callback(_seen)
                continue
            if not fut.done():
                fut.set_result(int(replicas) >= self.count)


def _seen(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()
