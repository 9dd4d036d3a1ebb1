"""Sockets per client address, counted in the store so every node enforces one cap.

Measured on main before this module: 3,000 WebSocket connections from one
address were all accepted, and with the node's 1,024 file descriptors one
address shut every other visitor out. Now an address holds at most
``cap`` sockets across all nodes; the next upgrade is refused (HTTP 403)
before it is accepted.

Each address has a sorted set in the store: one member per socket, scored
with a lease expiry by the store's own clock (``TIME``: a node whose clock is
off cannot keep or drop others' entries). A node renews its sockets' leases
every ``lease_ms / 3`` and removes a socket's member when it closes; a node
that dies stops renewing and its entries lapse within ``lease_ms``. A node
also counts its own sockets per address, so a flood from one address is
refused locally without a store round trip once this node alone holds the
cap. If the store does not answer, the local count decides (fail open to
the local cap: the store being down stops play anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

if TYPE_CHECKING:
    from server.store.store import Store

log = logging.getLogger("nyumba.addrcap")

# KEYS: the address's set. ARGV: member, cap, lease ms. 1 admitted, 0 over the cap.
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS: the address's set. ARGV: lease ms, members... Renews the members still there.
_RENEW = """
local t = redis.call('TIME')
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', expiry, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
"""


class AddressCap:
    def __init__(self, store: Store, cap: int, lease_ms: int = 60_000):
        self.store = store
        self.cap = cap
        self.lease_ms = lease_ms
        self.local: dict[str, set[str]] = {}  # address -> this node's sockets from it
        self._admit = store.link.script(_ADMIT)
        self._renew = store.link.script(_RENEW)
        self.refused = 0

    def key(self, address: str) -> str:
        return f"{self.store.prefix}addr:{{{address}}}"

    async def admit(self, address: str, socket_id: str) -> bool:
        """Count a new socket from ``address``; False when the address has its cap."""
        here = self.local.setdefault(address, set())
        if len(here) >= self.cap:
            self.refused += 1
            return False
        here.add(socket_id)  # counted before the await: a burst cannot pass together
        try:
            ok = bool(
                await self._admit(
                    keys=[self.key(address)], args=[socket_id, self.cap, self.lease_ms]
                )
            )
        except RedisError as exc:
            log.warning("socket cap unchecked in the store (%s); the local count decides", exc)
            return True
        if not ok:
            self.refused += 1
            self._forget(address, socket_id)
        return ok

    async def release(self, address: str, socket_id: str) -> None:
        self._forget(address, socket_id)
        with contextlib.suppress(RedisError):
            await self.store.link.execute("ZREM", self.key(address), socket_id)

    def _forget(self, address: str, socket_id: str) -> None:
        here = self.local.get(address)
        if here is not None:
            here.discard(socket_id)
            if not here:
                del self.local[address]

    async def renew_forever(self) -> None:
        """Renew this node's leases every third of their length."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            batch = [
                ("EVALSHA", self._renew.sha, 1, self.key(a), self.lease_ms, *ids)
                for a, ids in list(self.local.items())
                if ids
            ]
            if not batch:
                continue
            try:
                try:
                    await self.store.link.execute_many(batch)
                except RedisError as exc:
                    if "NOSCRIPT" not in str(exc):
                        raise
                    await self.store.link.load_script(_RENEW)  # on every master of a Cluster
                    await self.store.link.execute_many(batch)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store is away: the next round tries again
                log.warning("socket leases not renewed: %s", exc)
