"""The computer's seats: this node plays them in the rooms it has connections in.

When a room's ``state`` says the computer must move (``Notice.computer``),
the node takes the room's lease in the store (one node plays a room at a
time), asks a worker (``server/computer/pool.py``) for the move and submits it as
a ``rooms.ComputerMove`` through the same write path as a person's move,
naming the version it thought about: if the game changed meanwhile (undo,
resign, reclaim) the move is refused and dropped. A node that dies holding
the lease loses it when it expires; the tick of any other node with
connections in the room then takes over.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from server.computer.link import RemoteComputer
from server.computer.pool import Busy as ComputerBusy
from server.computer.pool import Computer
from server.live.local import LocalRoom
from server.rooms.judge import ComputerMove
from server.rooms.room import Change, computer_to_move
from server.rooms.stored import decode_room
from server.rooms.timing import within_clock
from server.store.store import Store

# The node's one write path (``Node.change``): judge an intent on a room, store what changed.
WritePath = Callable[[str, Any], Awaitable[Change]]

log = logging.getLogger("nyumba.computer")

# Refusals that mean "the game moved on while the computer thought": look again.
MOVED_ON = ("stale", "not-your-turn", "game-over")


class ComputerSeats:
    """Plays the computer's seats of ``local``'s rooms through ``change``."""

    def __init__(
        self,
        store: Store,
        local: dict[str, LocalRoom],
        computer: Computer | RemoteComputer,
        node_id: str,
        lease_ms: int,
        change: WritePath,
    ):
        self.store = store
        self.local = local
        self.computer = computer
        self.node_id = node_id
        self.lease_ms = lease_ms
        self.change = change

    def owner(self, room_id: str) -> str:
        """Whose share of the computer a room's seat uses: its connections' address."""
        local = self.local.get(room_id)
        for conn in local.conns if local is not None else ():
            return conn.address
        return room_id

    def maybe_play(self, room_id: str, side: int | None) -> None:
        """Start playing the room's computer seat if it must move and nobody here does."""
        local = self.local.get(room_id)
        if side is None or local is None:
            return
        if local.thinking:
            # The task at work may already have looked and be on its way out:
            # it looks again as it leaves, so this turn is not left to the tick.
            local.recheck = True
            return
        local.thinking = True
        asyncio.get_running_loop().create_task(self._play(room_id))

    async def _play(self, room_id: str) -> None:
        lease = self.lease_ms
        try:
            if not await self.store.take_lease(room_id, self.node_id, lease):
                return
            try:
                while await self._play_one(room_id, lease):
                    pass
            finally:
                await self.store.release_lease(room_id, self.node_id)
        except Exception:
            log.exception("computer player failed in %s", room_id)
        finally:
            local = self.local.get(room_id)
            if local is not None:
                local.thinking = False
                if local.recheck:
                    local.recheck = False
                    self.maybe_play(room_id, local.computer_side)

    async def _play_one(self, room_id: str, lease: int) -> bool:
        """One move of the computer's; False when it has none to make now."""
        data, _ = await self.store.load(room_id)
        if data is None:
            return False
        room = decode_room(data)
        side = computer_to_move(room)
        if side is None:
            return False
        seed = int.from_bytes(
            hashlib.sha256(f"{room.id}:{room.game_no}:{room.version}".encode()).digest()[:8],
            "big",
        )
        level = within_clock(room, side, room.seats[side].level or room.handover_level)
        try:
            text = await self.computer.choose(
                room.game, room.options, room.state, level, seed, self.owner(room_id)
            )
        except ComputerBusy:  # the tick asks again
            log.info("computer busy; %s waits for the next tick", room_id)
            return False
        await self.store.extend_lease(room_id, lease)
        intent = ComputerMove(room=room_id, version=room.version, move=text, side=side)
        done = await self.change(room_id, intent)
        refused = done.reply
        if refused is not None:  # the game changed while the computer thought: drop the answer
            log.info("computer move %s in %s dropped: %s", text, room_id, refused.code)
            return refused.code in MOVED_ON
        return True
