"""The lobby's Lua scripts (``server/store/lobby.py`` says what each key holds and runs them).

Each script's first lines say its ARGV and its answer. ``_COMMON`` is the prelude they share: the
store's clock, the settling of seats whose join deadline passed (an offence, ``strike``) and the
keys' prefix. Kept apart from the Python that calls them, as the rooms' scripts are
(``server/store/scripts.py``).
"""

from __future__ import annotations

_COMMON = """
local P = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function near_key(rec) return P .. 'near:' .. rec.pool .. ':' .. rec.side end
local function remove(id, rec)
  local posted = redis.call('ZSCORE', P .. 'pool:' .. rec.pool, id)
  if posted then
    redis.call('ZREM', near_key(rec), string.format('%015.0f', tonumber(posted)) .. id)
  end
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
-- An offence (``member``: room/side, counted once) against a player or an address: counted over
-- the window, and a cooldown from the ladder (server/rooms/cooldowns.py ``cooldown_ms``).
local function strike(kind, who, member, now, rules)
  local key = P .. 'strikes:' .. kind .. ':' .. who
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - rules.window)
  if redis.call('ZADD', key, 'NX', now, member) == 0 then return end
  redis.call('PEXPIRE', key, rules.window)
  local n = redis.call('ZCARD', key)
  local step = rules.ladder[math.min(n, #rules.ladder)] or 0
  local cool = P .. 'cool:' .. kind .. ':' .. who
  if step > 0 and redis.call('PTTL', cool) < step then
    redis.call('SET', cool, n, 'PX', step)
  end
end
-- Pairings in flight whose join deadline has passed unjoined: an offence for each such seat.
local function settle(now, rules)
  local due = redis.call('ZRANGEBYSCORE', P .. 'flights', '-inf', now, 'LIMIT', 0, 100)
  for _, f in ipairs(due) do
    local raw = redis.call('HGET', P .. 'flight', f)
    redis.call('HDEL', P .. 'flight', f)
    redis.call('ZREM', P .. 'flights', f)
    if raw then
      local seat = cjson.decode(raw)
      redis.call('ZREM', P .. 'flying:' .. seat.address, f)
      if seat.player ~= cjson.null then strike('p', seat.player, f, now, rules) end
      strike('a', seat.address, f, now, rules)
    end
  end
end
-- How long a seek's player or address may not seek yet (0: it may).
local function cooling(rec)
  local left = redis.call('PTTL', P .. 'cool:a:' .. rec.address)
  if rec.player ~= cjson.null then
    left = math.max(left, redis.call('PTTL', P .. 'cool:p:' .. rec.player))
  end
  return math.max(left, 0)
end
"""

# ARGV: prefix, channel, id, seek JSON, rules JSON (lease, cap, room, coin, target, scan,
# rating, join, flights, window, ladder). Returns {'paired', pairing JSON} | {'open'} | {'limit'}
# | {'none'} (no such target) | {'cooldown', ms left} | {'pending', ms left}.
SEEK = (
    _COMMON
    + """
local id, raw_me = ARGV[3], ARGV[4]
local rules = cjson.decode(ARGV[5])
local done = redis.call('HGET', P .. 'paired', id)
if done then return {'paired', done} end
if redis.call('HEXISTS', P .. 'seeks', id) == 1 then return {'open'} end
local now = now_ms()
settle(now, rules)
local me = cjson.decode(raw_me)
local left = cooling(me)
if left > 0 then return {'cooldown', tostring(left)} end
local function in_flight(address)
  return redis.call('ZCARD', P .. 'flying:' .. address) >= rules.flights
end
if in_flight(me.address) then
  local first = redis.call('ZRANGE', P .. 'flying:' .. me.address, 0, 0, 'WITHSCORES')
  return {'pending', tostring(math.max(0, tonumber(first[2]) - now))}
end
local target = rules.target
local candidates = {}
if target ~= '' then
  candidates = {target}
else
  -- The nearest ratings first, the oldest among equals (server/rooms/seeks.py ``nearest``),
  -- from the buckets of the sides compatible with mine: the nearest ``scan`` above and below.
  local sides = {'south', 'north', 'random'}
  if me.side == 'south' then sides = {'north', 'random'}
  elseif me.side == 'north' then sides = {'south', 'random'} end
  local r, scan, found = rules.rating, rules.scan, {}
  for _, side in ipairs(sides) do
    local key = P .. 'near:' .. me.pool .. ':' .. side
    local up = redis.call('ZRANGEBYSCORE', key, r, '+inf', 'WITHSCORES', 'LIMIT', 0, scan)
    local down = redis.call('ZREVRANGEBYSCORE', key, '(' .. r, '-inf', 'WITHSCORES', 'LIMIT', 0, scan)
    if #down == 2 * scan then
      -- Below, equal ratings come newest first: take the farthest one's equals oldest first.
      local far = down[#down]
      local kept = {}
      for i = 1, #down, 2 do
        if down[i + 1] ~= far then kept[#kept + 1] = down[i]; kept[#kept + 1] = down[i + 1] end
      end
      for _, m in ipairs(redis.call('ZRANGEBYSCORE', key, far, far, 'LIMIT', 0, scan)) do
        kept[#kept + 1] = m; kept[#kept + 1] = far
      end
      down = kept
    end
    for _, list in ipairs({up, down}) do
      for i = 1, #list, 2 do
        found[#found + 1] = {math.abs(tonumber(list[i + 1]) - r), list[i]}
      end
    end
  end
  table.sort(found, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  for i = 1, math.min(#found, scan) do candidates[i] = string.sub(found[i][2], 16) end
end
local dropped = {}
for _, oid in ipairs(candidates) do
  local raw = redis.call('HGET', P .. 'seeks', oid)
  if raw then
    local o = cjson.decode(raw)
    local alive = tonumber(redis.call('ZSCORE', P .. 'alive', oid) or '0')
    local same = o.conn == me.conn or (o.player ~= cjson.null and o.player == me.player)
    local fits = not same and (o.side == 'random' or me.side == 'random' or o.side ~= me.side)
    if target == '' then fits = fits and o.pool == me.pool end
    if o.rated and me.player == cjson.null then fits = false end
    if alive < now then
      remove(oid, o)
      dropped[#dropped + 1] = oid
    elseif fits and cooling(o) == 0 and not in_flight(o.address) then
      remove(oid, o)
      dropped[#dropped + 1] = oid
      local side
      if o.side ~= 'random' then side = (o.side == 'south') and 0 or 1
      elseif me.side ~= 'random' then side = (me.side == 'south') and 1 or 0
      else side = rules.coin end
      local first, second = raw, raw_me
      if side == 1 then first, second = raw_me, raw end
      local pairing = '{"room":"' .. rules.room .. '","seeks":[' .. first .. ',' .. second ..
        '],"at_ms":' .. now .. '}'
      redis.call('HSET', P .. 'paired', oid, pairing, id, pairing)
      redis.call('ZADD', P .. 'paired_at', now, oid, now, id)
      -- Both seats are in flight until joined (``joined``) or the join deadline (``settle``).
      local deadline = now + rules.join
      local seats = {[side] = o, [1 - side] = me}
      redis.call('SET', P .. 'seats:' .. rules.room, cjson.encode({
        {player = seats[0].player, address = seats[0].address},
        {player = seats[1].player, address = seats[1].address}}), 'PX', rules.keep)
      for s = 0, 1 do
        local f = rules.room .. '/' .. s
        redis.call('HSET', P .. 'flight', f,
          cjson.encode({player = seats[s].player, address = seats[s].address}))
        redis.call('ZADD', P .. 'flights', deadline, f)
        redis.call('ZADD', P .. 'flying:' .. seats[s].address, deadline, f)
      end
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
if redis.call('ZCARD', addr) >= rules.cap then return {'limit'} end
local until_ms = now + rules.lease
redis.call('HSET', P .. 'seeks', id, raw_me)
redis.call('ZADD', P .. 'alive', until_ms, id)
redis.call('ZADD', P .. 'pool:' .. me.pool, now, id)
redis.call('ZADD', near_key(me), rules.rating, string.format('%015.0f', now) .. id)
redis.call('ZADD', addr, until_ms, id)
redis.call('PUBLISH', ARGV[2], '{"k":"open","seek":' .. raw_me .. '}')
return {'open'}
"""
)

# ARGV: prefix, channel, room, side, rules JSON (window, ladder). A lobby game aborted by the
# side's missing first move: an offence of its player and address (once, like a seat never
# joined: the same member). Nothing for a room the lobby did not pair, or paired long ago.
STRUCK = (
    _COMMON
    + """
local raw = redis.call('GET', P .. 'seats:' .. ARGV[3])
if not raw then return 0 end
local seat = cjson.decode(raw)[tonumber(ARGV[4]) + 1]
local rules, now, f = cjson.decode(ARGV[5]), now_ms(), ARGV[3] .. '/' .. ARGV[4]
if seat.player ~= cjson.null then strike('p', seat.player, f, now, rules) end
strike('a', seat.address, f, now, rules)
return 1
"""
)

# ARGV: prefix, channel, room, sides... A paired room's seats joined: no longer in flight.
JOINED = (
    _COMMON
    + """
for i = 4, #ARGV do
  local f = ARGV[3] .. '/' .. ARGV[i]
  local raw = redis.call('HGET', P .. 'flight', f)
  if raw then
    redis.call('HDEL', P .. 'flight', f)
    redis.call('ZREM', P .. 'flights', f)
    redis.call('ZREM', P .. 'flying:' .. cjson.decode(raw).address, f)
  end
end
return 0
"""
)

# ARGV: prefix, channel, id. Returns {'cancelled'} | {'paired', pairing} | {'none'}.
CANCEL = (
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
REFRESH = (
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

# ARGV: prefix, channel, limit, keep paired ms, rules JSON (window, ladder). Drops seeks their
# nodes stopped refreshing, and pairings older than the keep; counts the missed pairings.
SWEEP = (
    _COMMON
    + """
local now = now_ms()
settle(now, cjson.decode(ARGV[5]))
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
LIST = (
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
