"""A flag falls on time even where a node's copy of the room is behind the store.

A node keeps a copy of each room it has sockets in, and judges a player's intent on it first
(the compare-and-set refuses a stale one). A flag judged on such a copy found nothing to do
and put that copy's deadline — the first moves' 30 s window — back in the index over the real
one: on a Cluster, ``test_lobby_cluster.py``'s game flagged 30 s late in 2 of 266 runs (the
index held the deadline of the room before the second move). A late read could also become
the copy after a newer notice had dropped it. These tests run a real ``Node`` on a real store,
in this process, to hold a copy behind on purpose.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid

from asynckit import run

from server.live.local import LocalRoom
from server.live.node import Node
from server.ops.variables import from_env
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms.clock import Control
from server.rooms.room import Position, Room
from server.rooms.stored import decode_room
from server.store.store import Store


class Seated:
    """The caller of a move: what ``Node.change`` reads of a connection."""

    def __init__(self, sides: list[int]):
        self.sides = sides
        self.who = f"test:{uuid.uuid4().hex[:8]}"
        self.address = "127.0.0.1"  # whose address a seat keeps (rooms/ratedstart.py)


async def _clocked_game(node: Node) -> list[Room]:
    """A two-player room on a 1 s clock (one person holds both seats) after both sides'
    first moves: the room as created and after each move."""
    room, _, _ = R.create(
        secrets.token_urlsafe(12), "oware", {}, "local", "south", "intermediate", node.now(),
        clock=Control(initial_ms=1000), abort_ms=30_000,
    )  # fmt: skip
    assert await node.create_room(room)
    copies, both = [room], Seated([0, 1])
    for i in range(2):
        pos = Position(copies[-1])
        move = pos.game.notation(pos.game.legal_moves(pos.state)[0])
        intent = P.Move(room=room.id, version=copies[-1].version, move=move, id=f"m{i}")
        copies.append((await node.change(room.id, intent, both)).room)
    assert copies[-1].clock is not None and copies[-1].clock.running == 0
    return copies


async def _with_node(url: str, prefix: str, body):
    store = Store(url, prefix)
    await store.start()
    node = Node(from_env({}), store)
    try:
        await node.clock.sync(store)
        return await body(node)
    finally:
        node.computer.close()
        await store.close()


def test_a_flag_judged_where_the_nodes_copy_is_behind_ends_the_game(shared_store, key_prefix):
    async def body(node: Node) -> tuple[Room, list]:
        copies = await _clocked_game(node)
        # A socket here, and the node's copy from before North's first move: its notice has
        # not come yet (a slow subscriber). That copy has no running clock, only the 30 s
        # window for a first move.
        local = node.local[copies[0].id] = LocalRoom(copies[0].created_ms)
        local.cached = (copies[1], [])
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # South's second runs out; the watcher claims it
            if await node.flags.once():
                break
            await asyncio.sleep(0.05)
        await asyncio.gather(*node.flags.judging)
        data, _ = await node.store.load(copies[0].id)
        index = await node.flags.deadlines.link.execute(
            "ZRANGE", node.flags.deadlines.index, 0, -1, "WITHSCORES"
        )
        return decode_room(data), index

    prefix = key_prefix + f"flagcopy{secrets.token_hex(4)}:"
    stored, index = run(_with_node(shared_store, prefix, body))
    assert stored.outcome is not None and stored.outcome.adjudication == "timeout"
    assert stored.outcome.winner == 1
    assert index == []  # nothing left to wake anyone: the game is over


def test_a_late_read_does_not_become_the_nodes_copy(shared_store, key_prefix):
    async def body(node: Node) -> list:
        copies = await _clocked_game(node)
        local = node.local[copies[0].id] = LocalRoom(copies[0].created_ms)
        local.last_rev = copies[2].rev  # the second move's notice was forwarded here
        node.keep(copies[1], [])  # a read sent before the second move, answered after it
        late = local.cached
        node.keep(copies[2], [])
        return [late, local.cached, copies[2].rev]

    prefix = key_prefix + f"flagcopy{secrets.token_hex(4)}:"
    late, kept, newest = run(_with_node(shared_store, prefix, body))
    assert late is None
    assert kept is not None and kept[0].rev == newest
