"""The lobby in the store: open seeks and their pairing, every key in one hash slot.

Every key carries the ``{lobby}`` hash tag, so on a Cluster the whole lobby lives in one
slot and each script below runs atomically on one master::

    <prefix>lobby:{lobby}:seeks          hash: seek id -> the seek (``SeekRec``, JSON)
    <prefix>lobby:{lobby}:alive          sorted set: seek id -> alive until (store ms)
    <prefix>lobby:{lobby}:pool:<pool>    sorted set: the pool's seek ids -> when posted
    <prefix>lobby:{lobby}:addr:<addr>    sorted set: an address's seek ids -> alive until
    <prefix>lobby:{lobby}:paired         hash: seek id -> its pairing (JSON), for 60 s
    <prefix>lobby:{lobby}:paired_at      sorted set: seek id -> when paired
    channel <prefix>lobby:{lobby}        the lobby's news (JSON): open, gone, paired

Pairing is one script (``_SEEK``): it reads the pool oldest first, drops every stale seek it
meets (its seeker's node stopped refreshing it), pairs the first compatible one with the
newcomer, records the pairing under both seek ids, removes the paired seek and publishes it
— or lists the newcomer. Two nodes cannot pair one seek twice, and a pairing whose news a
node missed is found by its next refresh (``refresh``). Times are the store's (``TIME``).
"""

from __future__ import annotations

from typing import Any

_COMMON = """
local P = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function remove(id, rec)
  redis.call('HDEL', P .. 'seeks', id)
  redis.call('ZREM', P .. 'alive', id)
  redis.call('ZREM', P .. 'pool:' .. rec.pool, id)
  redis.call('ZREM', P .. 'addr:' .. rec.address, id)
end
local function gone(ids)
  if #ids > 0 then
    redis.call('PUBLISH', ARGV[2], '{"k":"gone","ids":' .. cjson.encode(ids) .. '}')
  end
end
"""

# ARGV: prefix, channel, id, seek JSON, lease ms, address cap, room id, coin, target, scan.
# Returns {'paired', pairing JSON} | {'open'} | {'limit'} | {'none'} (no such target).
_SEEK = (
    _COMMON
    + """
local id, raw_me = ARGV[3], ARGV[4]
local done = redis.call('HGET', P .. 'paired', id)
if done then return {'paired', done} end
if redis.call('HEXISTS', P .. 'seeks', id) == 1 then return {'open'} end
local now = now_ms()
local me = cjson.decode(raw_me)
local target = ARGV[9]
local candidates
if target ~= '' then
  candidates = {target}
else
  candidates = redis.call('ZRANGE', P .. 'pool:' .. me.pool, 0, tonumber(ARGV[10]) - 1)
end
local dropped = {}
for _, oid in ipairs(candidates) do
  local raw = redis.call('HGET', P .. 'seeks', oid)
  if not raw then
    if target == '' then redis.call('ZREM', P .. 'pool:' .. me.pool, oid) end
  else
    local o = cjson.decode(raw)
    local alive = tonumber(redis.call('ZSCORE', P .. 'alive', oid) or '0')
    local same = o.conn == me.conn or (o.player ~= cjson.null and o.player == me.player)
    local fits = not same and (o.side == 'random' or me.side == 'random' or o.side ~= me.side)
    if target == '' then fits = fits and o.pool == me.pool end
    if o.rated and me.player == cjson.null then fits = false end
    if alive < now then
      remove(oid, o)
      dropped[#dropped + 1] = oid
    elseif fits then
      remove(oid, o)
      dropped[#dropped + 1] = oid
      local side
      if o.side ~= 'random' then side = (o.side == 'south') and 0 or 1
      elseif me.side ~= 'random' then side = (me.side == 'south') and 1 or 0
      else side = tonumber(ARGV[8]) end
      local first, second = raw, raw_me
      if side == 1 then first, second = raw_me, raw end
      local pairing = '{"room":"' .. ARGV[7] .. '","seeks":[' .. first .. ',' .. second ..
        '],"at_ms":' .. now .. '}'
      redis.call('HSET', P .. 'paired', oid, pairing, id, pairing)
      redis.call('ZADD', P .. 'paired_at', now, oid, now, id)
      redis.call('PUBLISH', ARGV[2], '{"k":"paired","ids":' .. cjson.encode(dropped) ..
        ',"pairing":' .. pairing .. '}')
      return {'paired', pairing}
    end
  end
end
gone(dropped)
if target ~= '' then return {'none'} end
local addr = P .. 'addr:' .. me.address
redis.call('ZREMRANGEBYSCORE', addr, '-inf', now)
if redis.call('ZCARD', addr) >= tonumber(ARGV[6]) then return {'limit'} end
local until_ms = now + tonumber(ARGV[5])
redis.call('HSET', P .. 'seeks', id, raw_me)
redis.call('ZADD', P .. 'alive', until_ms, id)
redis.call('ZADD', P .. 'pool:' .. me.pool, now, id)
redis.call('ZADD', addr, until_ms, id)
redis.call('PUBLISH', ARGV[2], '{"k":"open","seek":' .. raw_me .. '}')
return {'open'}
"""
)

# ARGV: prefix, channel, id. Returns {'cancelled'} | {'paired', pairing} | {'none'}.
_CANCEL = (
    _COMMON
    + """
local id = ARGV[3]
local done = redis.call('HGET', P .. 'paired', id)
if done then return {'paired', done} end
local raw = redis.call('HGET', P .. 'seeks', id)
if not raw then return {'none'} end
remove(id, cjson.decode(raw))
gone({id})
return {'cancelled'}
"""
)

# ARGV: prefix, channel, lease ms, ids... Keeps the node's seeks alive; for each id its
# answer: 'open', a pairing JSON, or '' (gone).
_REFRESH = (
    _COMMON
    + """
local until_ms = now_ms() + tonumber(ARGV[3])
local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local raw = redis.call('HGET', P .. 'seeks', id)
  if raw then
    local rec = cjson.decode(raw)
    redis.call('ZADD', P .. 'alive', until_ms, id)
    redis.call('ZADD', P .. 'addr:' .. rec.address, until_ms, id)
    out[#out + 1] = 'open'
  else
    out[#out + 1] = redis.call('HGET', P .. 'paired', id) or ''
  end
end
return out
"""
)

# ARGV: prefix, channel, limit, keep paired ms. Drops seeks their nodes stopped refreshing,
# and pairings older than the keep.
_SWEEP = (
    _COMMON
    + """
local now = now_ms()
local dropped = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. 'alive', '-inf', now, 'LIMIT', 0, ARGV[3])) do
  local raw = redis.call('HGET', P .. 'seeks', id)
  if raw then remove(id, cjson.decode(raw)) else redis.call('ZREM', P .. 'alive', id) end
  dropped[#dropped + 1] = id
end
gone(dropped)
local old = redis.call('ZRANGEBYSCORE', P .. 'paired_at', '-inf', now - tonumber(ARGV[4]),
  'LIMIT', 0, ARGV[3])
for _, id in ipairs(old) do
  redis.call('HDEL', P .. 'paired', id)
  redis.call('ZREM', P .. 'paired_at', id)
end
return #dropped
"""
)

# ARGV: prefix. The open seeks (JSON), those still alive by the store's clock.
_LIST = (
    _COMMON
    + """
local now = now_ms()
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. 'alive', now, '+inf')) do
  local raw = redis.call('HGET', P .. 'seeks', id)
  if raw then out[#out + 1] = raw end
end
return out
"""
)


class LobbyStore:
    """The lobby's scripts over a store's multiplexed connection (``link``)."""

    def __init__(self, link: Any, prefix: str, sharded: bool):
        self.keys = f"{prefix}lobby:{{lobby}}:"
        self.channel = f"{prefix}lobby:{{lobby}}"
        self.link = link

        def script(text: str) -> Any:
            return link.script(text.replace("'PUBLISH'", "'SPUBLISH'") if sharded else text)

        self._seek = script(_SEEK)
        self._cancel = script(_CANCEL)
        self._refresh = script(_REFRESH)
        self._sweep = script(_SWEEP)
        self._list = script(_LIST)

    def _slot_keys(self) -> list[str]:
        # The one key that routes each script to the lobby's slot (the others share it).
        return [self.keys + "seeks"]

    async def seek(
        self,
        seek_id: str,
        rec: bytes,
        lease_ms: int,
        address_cap: int,
        room_id: str,
        coin: int,
        target: str = "",
        scan: int = 64,
    ) -> tuple[str, bytes | None]:
        """Pair the seek with the pool's (or ``target``'s) first compatible seek, else list it.
        ``("paired", pairing)``, ``("open", None)``, ``("limit", None)`` or ``("none", None)``."""
        args = [self.keys, self.channel, seek_id, rec, lease_ms, address_cap, room_id, coin]
        out = await self._seek(keys=self._slot_keys(), args=[*args, target, scan])
        return _answer(out)

    async def cancel(self, seek_id: str) -> tuple[str, bytes | None]:
        out = await self._cancel(keys=self._slot_keys(), args=[self.keys, self.channel, seek_id])
        return _answer(out)

    async def refresh(self, seek_ids: list[str], lease_ms: int) -> list[bytes]:
        if not seek_ids:
            return []
        args = [self.keys, self.channel, lease_ms, *seek_ids]
        return [_bytes(x) for x in await self._refresh(keys=self._slot_keys(), args=args)]

    async def sweep(self, limit: int = 500, keep_paired_ms: int = 60_000) -> int:
        args = [self.keys, self.channel, limit, keep_paired_ms]
        return int(await self._sweep(keys=self._slot_keys(), args=args))

    async def open_seeks(self) -> list[bytes]:
        return [_bytes(x) for x in await self._list(keys=self._slot_keys(), args=[self.keys])]


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def _answer(out: list[Any]) -> tuple[str, bytes | None]:
    kind = _bytes(out[0]).decode()
    return kind, _bytes(out[1]) if len(out) > 1 else None
