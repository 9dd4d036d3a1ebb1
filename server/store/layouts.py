"""The store's layout flag, and the nodes that follow it (rolling upgrades: the layouts are
``server/rooms/layout.py``; the procedure is deploy/README.md, "Upgrading").

    <prefix>layout:{layout}         the layout every node writes ("2", "3"); unset: 2
                                    (``layout.UNSET``: what was written before the flag)
    <prefix>layout:{layout}:nodes   sorted set: the nodes that follow the flag -> until (ms)
    <prefix>layout:{layout}:info    hash: node -> "<highest layout it reads> <layout it writes>"

Every node (from the release that made layout 3 on) runs ``Layouts.follow``: once a second
one script renews its entry and reads the flag, and the node writes what the flag says from
then on. ``nyumba layout`` (``server/run/layoutcmd.py``) sets the flag only when every live
node reads the layout asked for: a node of an earlier release has no entry and is found by
the channel every node subscribes, ``<prefix>node:{id}`` (``server/live/fanout.py``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import re

from redis.exceptions import RedisError

from server.rooms import layout
from server.store.store import Store

log = logging.getLogger("nyumba.layout")

# KEYS: flag, nodes, info. ARGV: node, lease ms, info. Renews the node's entry, drops the
# entries that lapsed (a node gone without a word), and answers the flag.
_FOLLOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
  redis.call('ZREM', KEYS[2], gone)
  redis.call('HDEL', KEYS[3], gone)
end
return redis.call('GET', KEYS[1])
"""

# KEYS: flag, nodes, info. The flag, then each live node and its info.
_STATUS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {redis.call('GET', KEYS[1]) or ''}
for _, node in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now, '+inf')) do
  out[#out + 1] = node
  out[#out + 1] = redis.call('HGET', KEYS[3], node) or ''
end
return out
"""

EVERY_S = 1.0  # how often a node reads the flag (and so how soon it follows a change)
LEASE_MS = 10_000  # a node's entry lapses this long after its last renewal


def flag_key(prefix: str) -> str:
    return f"{prefix}layout:{{layout}}"


def nodes_key(prefix: str) -> str:
    return flag_key(prefix) + ":nodes"


def info_key(prefix: str) -> str:
    return flag_key(prefix) + ":info"


class Layouts:
    """A node's side of the flag: it sets ``store.layout``, the layout the node writes."""

    def __init__(self, store: Store, node_id: str):
        self.store = store
        self.node_id = node_id
        self._follow = store.link.script(_FOLLOW)

    async def renew(self) -> None:
        """Renew this node's entry and write what the flag says (``layout.UnknownLayout``
        when it names a layout this release cannot write)."""
        p = self.store.prefix
        flag = await self._follow(
            keys=[flag_key(p), nodes_key(p), info_key(p)],
            args=[self.node_id, LEASE_MS, f"{layout.READS[-1]} {self.store.layout}"],
        )
        written = layout.written(flag)
        if written != self.store.layout:
            log.info("writing rooms in layout %d (the store's flag)", written)
            self.store.layout = written

    async def follow(self) -> None:
        """``renew`` every ``EVERY_S``; a flag this release cannot follow leaves the node
        writing what it wrote (every node that can read the flag's layout reads that too)."""
        said = ""
        while True:
            await asyncio.sleep(EVERY_S)
            try:
                await self.renew()
                said = ""
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, layout.UnknownLayout) as exc:
                if str(exc) != said:  # once, not every second
                    log.warning("the store's layout flag not followed: %s", exc)
                said = str(exc)

    async def leave(self) -> None:
        """Take this node's entry out (it stops)."""
        p = self.store.prefix
        await self.store.link.execute_many(
            [("ZREM", nodes_key(p), self.node_id), ("HDEL", info_key(p), self.node_id)]
        )


async def status(store: Store) -> tuple[str, dict[str, tuple[int, int]]]:
    """The store's flag ('' when unset) and the live nodes that follow it: node -> (the
    highest layout it reads, the layout it writes)."""
    p = store.prefix
    flat = await store.link.script(_STATUS)(keys=[flag_key(p), nodes_key(p), info_key(p)], args=[])
    text = [v.decode() if isinstance(v, bytes) else str(v) for v in flat]
    nodes: dict[str, tuple[int, int]] = {}
    for node, info in zip(text[1::2], text[2::2], strict=True):
        if not info:  # (its entry is being renewed or dropped)
            continue
        reads, writes = (int(x) for x in info.split())
        nodes[node] = (reads, writes)
    return text[0], nodes


def _glob(prefix: str) -> str:
    """``prefix`` as a literal in a Redis glob pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", prefix)


async def _on_each_master(store: Store, *command: str | int) -> list:
    """``command``'s reply from every master (a Cluster's), or from the one store."""
    if not store.sharded:
        return [await store.link.execute(*command)]
    await store.link.refresh()
    return [await store.link.execute_on(a, *command) for a in store.link.masters]


async def node_channels(store: Store) -> set[str]:
    """The ids of the nodes subscribed to their own channels (every release's nodes are; on
    a Cluster each sharded channel lives on its slot's master)."""
    kind = "SHARDCHANNELS" if store.sharded else "CHANNELS"
    found = await _on_each_master(store, "PUBSUB", kind, _glob(store.prefix) + "node:*")
    return {store.room_of_channel(c) for names in found for c in names}


async def rooms_by_layout(store: Store) -> dict[str, int]:
    """How many stored rooms are in each layout ("1", "2", "3", or "other": one this release
    does not read). A room keeps its layout until its next change, or its expiry."""
    counts: collections.Counter[str] = collections.Counter()
    pattern = _glob(store.prefix) + "room:{*}"
    if store.sharded:
        await store.link.refresh()
    addresses = store.link.masters if store.sharded else [None]
    for address in addresses:
        cursor = 0
        while True:
            scan = ("SCAN", cursor, "MATCH", pattern, "COUNT", 1000, "TYPE", "hash")
            if address is None:
                cursor_text, keys = await store.link.execute(*scan)
            else:
                cursor_text, keys = await store.link.execute_on(address, *scan)
            cursor = int(cursor_text)
            if keys:
                for data in await store.link.execute_many([("HGET", k, "data") for k in keys]):
                    if data:
                        counts[_layout_name(data)] += 1
            if cursor == 0:
                break
    return dict(counts)


def _layout_name(data: bytes) -> str:
    try:
        return str(layout.layout_of(data))
    except layout.UnknownLayout:
        return "other"
