"""The deadline index: when each clocked room's game ends unless someone moves (its clock's
zero and the grace a late move would still get: ``server/rooms/timing.py`` ``flag_at``).

Two sorted sets in one hash slot (``{deadlines}``), so each script touches one slot::

    <prefix>clock:{deadlines}          room id -> deadline (store ms)
    <prefix>clock:{deadlines}:claimed  room id -> until when a node holds it (store ms)

A clocked room's new deadline goes into the index with the compare-and-set that gives it, so
the index never says later than the truth (``ZADD LT``: an entry only moves earlier): in the
compare-and-set's own script (``server/store/scripts.py`` ``_CAS``), where the index and the
room are on one server; on a Cluster, where the index has its own slot and a script touches one,
*ahead of* it (queued first, in the same write): a node that dies between the two leaves an
entry that wakes a node early, which re-judges the room and finds nothing to do. Every node claims what is due by the store's clock (``TIME``
in the script) and judges it; a claim moves the entry to the claimed set for a lease, so each
deadline is judged by one node at a time, and one that a dying node claimed comes back when
its lease ends. After judging, the node releases the claim and indexes the room's next
deadline, if it has one.
"""

from __future__ import annotations

from typing import Any

# KEYS: index, claimed. ARGV: lease ms, limit. Returns {now, id, deadline, id, deadline ...}.
_CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[2])
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZADD', KEYS[1], 'LT', now, m)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
local out = {now}
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), due[i])
  out[#out + 1] = due[i]
  out[#out + 1] = due[i + 1]
end
return out
"""

# KEYS: index, claimed. ARGV: room, next deadline ('' for none). Ends a claim.
_RELEASE = """
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1]) end
return 1
"""


def index_key(prefix: str) -> str:
    return f"{prefix}clock:{{deadlines}}"


class Deadlines:
    """The deadline index over a store's multiplexed connection (``link``)."""

    def __init__(self, link: Any, prefix: str):
        self.index = index_key(prefix)
        self.claimed = self.index + ":claimed"
        self.link = link
        self._claim = link.script(_CLAIM)
        self._release = link.script(_RELEASE)

    async def put(self, room_id: str, deadline_ms: int) -> None:
        """The room's game ends at ``deadline_ms`` unless someone moves (only moves earlier)."""
        await self.link.execute("ZADD", self.index, "LT", deadline_ms, room_id)

    async def claim(self, lease_ms: int, limit: int = 200) -> tuple[int, list[tuple[str, int]]]:
        """The store's time now and the rooms due by it (room, deadline), claimed for
        ``lease_ms``."""
        flat = await self._claim(keys=[self.index, self.claimed], args=[lease_ms, limit])
        now = int(flat[0])
        due = [(_text(flat[i]), int(float(flat[i + 1]))) for i in range(1, len(flat), 2)]
        return now, due

    async def release(self, room_id: str, next_ms: int | None) -> None:
        nxt = "" if next_ms is None else next_ms
        await self._release(keys=[self.index, self.claimed], args=[room_id, nxt])

    async def drop(self, room_id: str) -> None:
        await self.link.execute("ZREM", self.index, room_id)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
