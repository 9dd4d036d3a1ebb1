"""What a node keeps in memory about the rooms it has connections in: one
``LocalRoom`` record per room, made with its first connection and dropped
with its last. None of it is needed by another node (the store has the
truth); it saves reads and tells the node what it already forwarded."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.live.connection import Conn
    from server.ops.config import Settings
    from server.rooms.protocol import State
    from server.rooms.room import Position, Room
    from server.store.store import Store


def room_expiry(settings: Settings, created_ms: int, now: int, waiting: bool = False) -> int:
    """When a room expires if nobody comes back: its longest life after creation, or its
    idle life after ``now``, whichever is first; a room whose finished games still wait for
    the archive lives its idle life and the archive's retry delay after ``now`` at least, so
    that it is still there when the sweep tries it (server/live/archiving.py)."""
    end = min(created_ms + settings.room_ttl_ms, now + settings.idle_ttl_ms)
    return max(end, now + settings.idle_ttl_ms + settings.archive_retry_ms) if waiting else end


def now_ms() -> int:
    return int(time.time() * 1000)


class LocalRoom:
    """What this node keeps about a room it has connections in (one record
    per room, dropped with the last connection)."""

    __slots__ = (
        "conns",
        "created_ms",
        "last_rev",
        "last_stamp",
        "presence_seen",
        "computer_side",
        "cached",
        "thinking",
        "recheck",
        "rebuilding",
        "rebuild_again",
        "warned",
        "presence_memo",
        "full",
        "board",
        "position",
    )

    def __init__(self, created_ms: int):
        self.conns: set[Conn] = set()
        self.created_ms = created_ms
        self.last_rev = -1  # the newest revision forwarded
        self.last_stamp = ""  # and its stamp (server/rooms/room.py ``Room.stamp``)
        self.warned = False  # told its connections the room nears its longest life
        self.presence_seen: dict[int, bool] | None = None  # presence last forwarded
        self.computer_side: int | None = None  # the side the computer must play, if any
        self.cached: tuple[Room, list[Any]] | None = None  # newest copy seen, presence entries
        self.thinking = False  # a task plays the computer's seat
        self.recheck = False  # ... and its turn came again meanwhile
        self.rebuilding = False  # a presence rebuild is under way
        self.rebuild_again = False  # ... and another was asked for meanwhile
        # (entries, valid until ms, presence by side, watchers) drawn from ``cached``'s entries:
        # the same until one of them lapses (Node.who_is_here)
        self.presence_memo: tuple[list[Any], float, dict[int, tuple[bool, int]], int] | None = None
        # The newest ``state`` drawn here (its revision and stamp, the message, when: monotonic
        # seconds): what a move's ``moved`` is applied to for the connections that take whole
        # states (server/rooms/delta.py); None while none of them is here.
        self.full: tuple[int, str, State, float] | None = None
        # The board of the revision with this stamp (what the next move's ``moved`` is told from)
        self.board: tuple[str, dict[str, Any]] | None = None
        # ``cached``'s room and its decoded game state, made by the move that wrote it: the next
        # move is judged on it as it is, not decoded again (used only while ``cached`` is it)
        self.position: tuple[Room, Position] | None = None


class StoreClock:
    """Milliseconds by the store's clock (``TIME``), as this node reckons it.

    Presence expiries, absence windows, hand-overs and room expiry are
    compared across nodes, so they are judged on one clock: a node whose own
    clock was 180 s ahead let its player hand over a *connected* opponent's
    seat (issue 16). Each node measures its offset from the store's clock at
    start and about once a minute (``Presence.tick``)."""

    def __init__(self) -> None:
        self.offset_ms = 0  # the store's clock minus this node's

    def now(self) -> int:
        return now_ms() + self.offset_ms

    async def sync(self, store: Store) -> None:
        before = time.time()
        seconds, micros = await store.redis.time()
        after = time.time()
        store_ms = int(seconds) * 1000 + int(micros) // 1000
        self.offset_ms = store_ms - int((before + after) * 500)
