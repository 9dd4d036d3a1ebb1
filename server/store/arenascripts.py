"""The arenas' Lua scripts (``server/store/arena.py`` says what each key holds and runs them).

Every script's ARGV starts with the arena's key prefix, its channel and its id; its first lines
say the rest and its answer. ``_COMMON`` is the prelude they share: the store's clock, a
player's sheet, the standings key, leaving the waiting list, and the pairing of two waiting
players (the rules of ``server/rooms/arena.py``, restated here: the tests hold the two to
each other). A sheet is JSON with short fields: n name, r rating at join, pts, g games, w d l,
st streak, b berserks, sh the points of each game ("2,4,0"), dl whether each game's points
were doubled ("001": one character a game, 1 doubled), pa paused (0/1), so souths, last
opponent, ch the ms of the last change of points (or of joining).
"""

from __future__ import annotations

_COMMON = """
local K, CH, ID = ARGV[1], ARGV[2], ARGV[3]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function sheet(p)
  local raw = redis.call('HGET', K .. 'sheets', p)
  return raw and cjson.decode(raw)
end
local function save(p, s) redis.call('HSET', K .. 'sheets', p, cjson.encode(s)) end
-- server/rooms/arena.py ``order_key``: more points first, then the earlier change.
local function order(p, s, created)
  local key = -s.pts * 1e10 + math.min(math.max(s.ch - created, 0), 1e10 - 1)
  redis.call('ZADD', K .. 'order', string.format('%.0f', key), p)
end
local function publish(news) redis.call('PUBLISH', CH, news) end
local function unwait(p)
  local raw = redis.call('HGET', K .. 'waiter', p)
  if not raw then return false end
  redis.call('SREM', K .. 'node:' .. cjson.decode(raw).node, p)
  redis.call('HDEL', K .. 'waiter', p)
  redis.call('ZREM', K .. 'waiting', p)
  redis.call('ZREM', K .. 'lease', p)
  return true
end
local function rating(s) if s.r == cjson.null then return 1500 end return s.r end
-- Whether two waiting players may be paired: not the opponents of each other's last game,
-- unless both have waited ``rematch`` ms.
local function may_pair(a, sa, wa, b, sb, wb, now, rematch)
  if a == b then return false end
  if sa.last ~= b and sb.last ~= a then return true end
  return now - wa.since >= rematch and now - wb.since >= rematch
end
-- Pair two waiting players in room ``room``: the one with fewer souths takes south (``coin``
-- 0: ``a`` on equal). Both leave the waiting list for ``playing``. Returns the pairing JSON.
-- The news goes to each side's node's mail (``refresh``) but ``direct``'s, which the answer reaches.
local function pair(a, sa, wa, b, sb, wb, room, coin, now, direct)
  if sb.so < sa.so or (sb.so == sa.so and coin == 1) then
    a, sa, wa, b, sb, wb = b, sb, wb, a, sa, wa
  end
  unwait(a)
  unwait(b)
  sa.so = sa.so + 1
  sa.last, sb.last = b, a
  save(a, sa)
  save(b, sb)
  redis.call('HSET', K .. 'playing', a, room, b, room)
  redis.call('HSET', K .. 'games', room, cjson.encode({room = room, players = {a, b},
    names = {sa.n, sb.n}, started_ms = now}))
  local pairing = cjson.encode({arena = ID, room = room, at_ms = now, sides = {
    {player = a, name = sa.n, token_hash = wa.token_hash, node = wa.node},
    {player = b, name = sb.n, token_hash = wb.token_hash, node = wb.node}}})
  for _, node in ipairs(wa.node == wb.node and {wa.node} or {wa.node, wb.node}) do
    if node ~= direct then
      redis.call('RPUSH', K .. 'mail:' .. node, pairing)
      redis.call('PEXPIRE', K .. 'mail:' .. node, 600000)
    end
  end
  publish('{"k":"paired","pairing":' .. pairing .. '}')
  return pairing
end
local function waiter(p)
  local raw = redis.call('HGET', K .. 'waiter', p)
  return raw and cjson.decode(raw)
end
"""

# ARGV: K, CH, id, spec JSON, starts_ms, ends_ms, created_ms. Returns 1 (created) or 0 (exists).
CREATE = (
    _COMMON
    + """
if redis.call('HSETNX', K .. 'meta', 'spec', ARGV[4]) == 0 then return 0 end
redis.call('HSET', K .. 'meta', 'starts', ARGV[5], 'ends', ARGV[6], 'created', ARGV[7])
return 1
"""
)

# KEYS: the index, the creator's claim (both in the slot ``{arenas}``). ARGV: id, starts_ms,
# ends_ms. The creator's one upcoming-or-running arena: claimed until its end and listed, in
# one step. Returns '' (claimed, listed) or the id of the creator's arena that holds the claim.
CLAIM = """
local held = redis.call('GET', KEYS[2])
if held then return held end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local life = math.max(tonumber(ARGV[3]) - now, 1)
redis.call('SET', KEYS[2], ARGV[1], 'PX', string.format('%d', life))
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return ''
"""

# ARGV: K, CH, id, player, name JSON, rating JSON. Returns {'ok', sheet, rank (0-based)} |
# {'no-arena'} | {'arena-over'}.
JOIN = (
    _COMMON
    + """
local p = ARGV[4]
local meta = redis.call('HMGET', K .. 'meta', 'ends', 'finished', 'created')
if not meta[1] then return {'no-arena'} end
local now = now_ms()
if meta[2] or now >= tonumber(meta[1]) then return {'arena-over'} end
local s = sheet(p)
local name = cjson.decode(ARGV[5])
if not s then
  s = {n = name, r = cjson.decode(ARGV[6]), pts = 0, g = 0, w = 0, d = 0, l = 0, st = 0, b = 0,
       sh = '', dl = '', pa = 0, so = 0, last = '', ch = now}
  order(p, s, tonumber(meta[3]))
else
  s.pa = 0
  if name ~= cjson.null then s.n = name end
end
save(p, s)
redis.call('ZADD', K .. 'seen', now, p)
publish(cjson.encode({k = 'joined', player = p}))
return {'ok', cjson.encode(s), redis.call('ZRANK', K .. 'order', p)}
"""
)

# ARGV: K, CH, id, player. Returns {sheet, rank} or {} (not joined).
PAUSE = (
    _COMMON
    + """
local p = ARGV[4]
local s = sheet(p)
if not s then return {} end
unwait(p)
redis.call('ZREM', K .. 'seen', p)
if s.pa == 0 then
  s.pa = 1
  save(p, s)
  publish(cjson.encode({k = 'paused', player = p}))
end
return {cjson.encode(s), redis.call('ZRANK', K .. 'order', p)}
"""
)

# ARGV: K, CH, id, player[, node, token hash]. The player's waiting socket closed: no longer
# waiting — with a node and token hash, only if their waiter is still that socket's (not one
# of another tab or node since). Returns 1 (unlisted) or 0.
UNWAIT = (
    _COMMON
    + """
local w = waiter(ARGV[4])
if not w or (ARGV[5] and (w.node ~= ARGV[5] or w.token_hash ~= ARGV[6])) then return 0 end
unwait(ARGV[4])
return 1
"""
)

# ARGV: K, CH, id, player, token hash, node, lease ms, room, coin, rematch ms, scan. Returns
# {'paired', pairing} | {'waiting'} | {'none', why} (no-arena, not-joined, paused, playing,
# over).
WAIT = (
    _COMMON
    + """
local p, node, room = ARGV[4], ARGV[6], ARGV[8]
local lease, coin, rematch, scan = tonumber(ARGV[7]), tonumber(ARGV[9]), tonumber(ARGV[10]),
  tonumber(ARGV[11])
local meta = redis.call('HMGET', K .. 'meta', 'starts', 'ends', 'finished')
if not meta[1] then return {'none', 'no-arena'} end
local s = sheet(p)
if not s then return {'none', 'not-joined'} end
if s.pa == 1 then return {'none', 'paused'} end
if redis.call('HEXISTS', K .. 'playing', p) == 1 then return {'none', 'playing'} end
local now = now_ms()
if meta[3] or now >= tonumber(meta[2]) then
  unwait(p)
  return {'none', 'over'}
end
local w = waiter(p)
if w and w.node ~= node then redis.call('SREM', K .. 'node:' .. w.node, p) end
w = {token_hash = ARGV[5], node = node, since = w and w.since or now}
redis.call('HSET', K .. 'waiter', p, cjson.encode(w))
redis.call('ZADD', K .. 'waiting', s.pts, p)
redis.call('ZADD', K .. 'lease', now + lease, p)
redis.call('SADD', K .. 'node:' .. node, p)
redis.call('ZADD', K .. 'seen', now, p)
if now < tonumber(meta[1]) then return {'waiting'} end
-- The nearest in points (``scan`` above and below), then in rating, then the longest waiting.
local found = {}
local up = redis.call('ZRANGEBYSCORE', K .. 'waiting', s.pts, '+inf', 'LIMIT', 0, scan)
local down = redis.call('ZREVRANGEBYSCORE', K .. 'waiting', '(' .. s.pts, '-inf', 'LIMIT', 0, scan)
local dropped = {}
for _, list in ipairs({up, down}) do
  for _, o in ipairs(list) do
    if o ~= p then
      local alive = tonumber(redis.call('ZSCORE', K .. 'lease', o) or '0')
      local so, wo = sheet(o), waiter(o)
      if alive < now or not so or not wo then
        unwait(o)
        dropped[#dropped + 1] = o
      elseif may_pair(p, s, w, o, so, wo, now, rematch) then
        found[#found + 1] = {math.abs(so.pts - s.pts), math.abs(rating(so) - rating(s)),
          wo.since, o, so, wo}
      end
    end
  end
end
table.sort(found, function(a, b)
  for i = 1, 3 do if a[i] ~= b[i] then return a[i] < b[i] end end
  return a[4] < b[4]
end)
local best = found[1]
if not best then return {'waiting'} end
-- The one waiting longer is ``a`` (south on equal souths when the coin says 0).
return {'paired', pair(best[4], best[5], best[6], p, s, w, room, coin, now, node)}
"""
)

# ARGV: K, CH, id, node, lease ms. Renews the node's waiting players' leases; returns the
# pairings made for its players since it last asked (each once).
REFRESH = (
    _COMMON
    + """
local node = ARGV[4]
local now = now_ms()
local until_ms = now + tonumber(ARGV[5])
for _, p in ipairs(redis.call('SMEMBERS', K .. 'node:' .. node)) do
  local w = waiter(p)
  if w and w.node == node then
    redis.call('ZADD', K .. 'lease', until_ms, p)
    redis.call('ZADD', K .. 'seen', now, p)
  else
    redis.call('SREM', K .. 'node:' .. node, p)
  end
end
local mail = redis.call('LRANGE', K .. 'mail:' .. node, 0, -1)
redis.call('DEL', K .. 'mail:' .. node)
return mail
"""
)

# ARGV: K, CH, id, rematch ms, absent ms, rooms JSON, coins JSON, limit. Drops stale waiters,
# pauses absent players, pairs the waiting players left over (while running, at most one room
# each of ``rooms``). Returns the pairings.
SWEEP = (
    _COMMON
    + """
local rematch, absent, limit = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[8])
local rooms, coins = cjson.decode(ARGV[6]), cjson.decode(ARGV[7])
local meta = redis.call('HMGET', K .. 'meta', 'starts', 'ends', 'finished')
if not meta[1] or meta[3] then return {} end
local now = now_ms()
for _, p in ipairs(redis.call('ZRANGEBYSCORE', K .. 'lease', '-inf', now - 1, 'LIMIT', 0, limit)) do
  unwait(p)
end
local over = now >= tonumber(meta[2])
if over then
  for _, p in ipairs(redis.call('ZRANGE', K .. 'waiting', 0, limit - 1)) do unwait(p) end
end
for _, p in ipairs(redis.call('ZRANGEBYSCORE', K .. 'seen', '-inf', now - absent, 'LIMIT', 0, limit)) do
  local s = sheet(p)
  if not s or s.pa == 1 then
    redis.call('ZREM', K .. 'seen', p)
  elseif not redis.call('ZSCORE', K .. 'lease', p) and redis.call('HEXISTS', K .. 'playing', p) == 0 then
    s.pa = 1
    save(p, s)
    redis.call('ZREM', K .. 'seen', p)
    publish(cjson.encode({k = 'paused', player = p, absent = true}))
  end
end
local made = {}
if over or now < tonumber(meta[1]) or #rooms == 0 then return made end
-- Down the waiting list by points: each player with the nearest one after them they may meet.
local list = redis.call('ZREVRANGE', K .. 'waiting', 0, limit - 1)
local all = {}
for i, p in ipairs(list) do all[i] = {p, sheet(p), waiter(p)} end
local used = {}
for i = 1, #all do
  if #made >= #rooms then break end
  local a = all[i]
  if not used[i] and a[2] and a[3] then
    for j = i + 1, math.min(#all, i + 64) do
      local b = all[j]
      if not used[j] and b[2] and b[3] and may_pair(a[1], a[2], a[3], b[1], b[2], b[3], now, rematch) then
        used[i], used[j] = true, true
        local n = #made + 1
        made[n] = pair(a[1], a[2], a[3], b[1], b[2], b[3], rooms[n], coins[n], now, '')
        break
      end
    end
  end
end
return made
"""
)

# ARGV: K, CH, id, room, game_no, players JSON, result JSON ('' aborted), berserk JSON, ended
# ms, paused side ('' none). Returns {1, points south, points north} or {0} (scored before).
FINISH = (
    _COMMON
    + """
local room, game_no = ARGV[4], ARGV[5]
if redis.call('SADD', K .. 'done', room .. '/' .. game_no) == 0 then return {0} end
local players, berserk = cjson.decode(ARGV[6]), cjson.decode(ARGV[8])
local result = ARGV[7] ~= '' and cjson.decode(ARGV[7]) or nil
local ended, paused = tonumber(ARGV[9]), tonumber(ARGV[10])
local created = tonumber(redis.call('HGET', K .. 'meta', 'created') or '0')
local now = now_ms()
local points = {0, 0}
for side = 1, 2 do
  local p = players[side]
  local s = sheet(p)
  if s then
    if result then
      -- server/rooms/arena.py ``score``: doubled on fire, +1 for a berserked win; ``doubled``:
      -- the sheet marks a game on fire that earned points.
      local double = s.st >= 2 and 2 or 1
      local r, pts = result[side], 0
      s.dl = s.dl .. ((double == 2 and r ~= 'loss') and '1' or '0')
      if r == 'win' then
        pts = 2 * double + (berserk[side] and 1 or 0)
        s.st, s.w = s.st + 1, s.w + 1
      elseif r == 'draw' then
        pts, s.st, s.d = double, 0, s.d + 1
      else
        s.st, s.l = 0, s.l + 1
      end
      if berserk[side] then s.b = s.b + 1 end
      s.g, s.pts = s.g + 1, s.pts + pts
      s.sh = s.sh == '' and tostring(pts) or s.sh .. ',' .. pts
      if pts > 0 then
        s.ch = ended
        order(p, s, created)
        if redis.call('ZSCORE', K .. 'waiting', p) then redis.call('ZADD', K .. 'waiting', s.pts, p) end
      end
      points[side] = pts
    end
    if redis.call('HGET', K .. 'playing', p) == room then redis.call('HDEL', K .. 'playing', p) end
    if paused == side - 1 then
      s.pa = 1
      unwait(p)
      redis.call('ZREM', K .. 'seen', p)
    elseif s.pa == 0 then
      redis.call('ZADD', K .. 'seen', now, p)
    end
    save(p, s)
  end
end
redis.call('HDEL', K .. 'games', room)
local done = {room = room, game_no = tonumber(game_no), players = players,
  result = result or cjson.null, points = points, berserk = berserk, ended_ms = ended,
  scored_ms = now}
redis.call('RPUSH', K .. 'results', cjson.encode(done))
publish(cjson.encode({k = 'finished', room = room, players = players, points = points,
  paused = paused and players[paused + 1] or cjson.null}))
return {1, points[1], points[2]}
"""
)

# ARGV: K, CH, id, start, stop. Returns [player, sheet, ...] in standings order.
STANDINGS = (
    _COMMON
    + """
local out = {}
for _, p in ipairs(redis.call('ZRANGE', K .. 'order', ARGV[4], ARGV[5])) do
  out[#out + 1] = p
  out[#out + 1] = redis.call('HGET', K .. 'sheets', p) or '{}'
end
return out
"""
)

# ARGV: K, CH, id, keep ms. The arena is final: its keys expire after ``keep``.
FINAL = (
    _COMMON
    + """
if redis.call('HSETNX', K .. 'meta', 'finished', '1') == 1 then
  publish('{"k":"final"}')
end
for _, name in ipairs({'meta', 'sheets', 'order', 'waiting', 'lease', 'waiter', 'playing',
    'games', 'done', 'results', 'seen', 'claim'}) do
  redis.call('PEXPIRE', K .. name, ARGV[4])
end
return 0
"""
)
