"""The store's Lua scripts: each runs atomically on the one slot of a room's keys
(``server/store/store.py`` loads and calls them)."""

# KEYS: room, presence, the room's listening nodes (a set of node ids, ``Store.listen``), with
# ARGV[11] the room's waiting set (in the room's slot: server/store/waiting.py), and with
# ARGV[12] the deadline index (server/store/deadlines.py; not on a Cluster, where it has a slot
# of its own); the room's channel is named as its key. ARGV: expected rev, new rev, data, expire-at ms, the writing
# node's id or '' (see "local fan-out" below), notice,
# new stamp, expected stamp. Returns 0 when written, -1 when the room is gone, 1 when the store
# has a newer revision (a lost race: re-read and re-judge), 2 when the store is *behind* the copy
# that was judged: an older revision, or the same revision with another stamp (another history).
# That only happens when the store went back in time (a failover to a replica that had not
# received every write, a restore from an older snapshot): the node resynchronises the room.
# An empty expected stamp (a room written by a version that kept none) is not compared.
# An empty notice publishes nothing (a change only the sender hears of: a kept answer).
# ARGV[9], when not empty, says the notice is a move to append to the stored room instead of
# writing ``data`` (it is the notice's length: server/rooms/stored.py); ARGV[10] is the mark of
# the layout the node writes (server/rooms/layout.py): 3 when the stored room has another (a
# whole record, or the other layout of a rolling upgrade): the node writes it whole.
# ARGV[11] (with KEYS[4]): absent or '' leaves the waiting set alone (a game's moves send
# neither); a time (ms) when the stored room has finished games waiting for the archive: the
# room joins the waiting set, due then, unless it is in it already (NX: a due time is never put
# off by a chat); 'done' when the room's last waiting game was archived: the room leaves it. So
# a game's end and its place in line are one write: a node that dies right after it leaves the
# game in line.
# ARGV[12] (with KEYS[5]): absent or '' leaves the deadline index alone; a time (ms): the
# clocked room's new deadline (``timing.flag_at``), indexed with the write (``ZADD LT``: an
# entry only moves earlier), so the index never says later than the room.
# Local fan-out: a writer that names itself in ARGV[5] sends the notice to its own sockets from
# the reply (server/live/node.py), so the notice is published only when another node listens:
# one in the listening set, or, for a node of a release that keeps no set (a rolling upgrade),
# a subscriber of the channel that is not the writer's own. '' publishes every notice.
_CAS = """
local cur = redis.call('HMGET', KEYS[1], 'rev', 'stamp')
if not cur[1] then return -1 end
if cur[1] ~= ARGV[1] then
  if tonumber(cur[1]) < tonumber(ARGV[1]) then return 2 end
  return 1
end
if ARGV[8] ~= '' and (cur[2] or '') ~= ARGV[8] then return 2 end
local data = ARGV[3]
if ARGV[9] and ARGV[9] ~= '' then
  local log = redis.call('HGET', KEYS[1], 'data')
  if not log or string.sub(log, 1, 1) ~= ARGV[10] then return 3 end
  data = log .. ARGV[9] .. ARGV[6]
end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'stamp', ARGV[7], 'data', data)
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
local line = ARGV[11] or ''
if line == 'done' then
  redis.call('ZREM', KEYS[4], string.match(KEYS[1], '{(.*)}'))
elseif line ~= '' then
  redis.call('ZADD', KEYS[4], 'NX', line, string.match(KEYS[1], '{(.*)}'))
end
local due = ARGV[12] or ''
if due ~= '' then redis.call('ZADD', KEYS[5], 'LT', due, string.match(KEYS[1], '{(.*)}')) end
if ARGV[6] ~= '' then
  local others = 1
  if ARGV[5] ~= '' then
    local mine = redis.call('SISMEMBER', KEYS[3], ARGV[5])
    others = redis.call('SCARD', KEYS[3]) - mine
    if others <= 0 then others = redis.call('PUBSUB', 'NUMSUB', KEYS[1])[2] - mine end
  end
  if others > 0 then redis.call('PUBLISH', KEYS[1], ARGV[6]) end
end
return 0
"""
# On a Cluster the notice goes to the room's shard only (the channel has the room's slot).
_CAS_SHARDED = _CAS.replace("'PUBLISH'", "'SPUBLISH'").replace("'NUMSUB'", "'SHARDNUMSUB'")

# KEYS: lease. ARGV: node, ms. Takes the lease, or extends it if this node holds it
# (so a take resent after a lost reply still finds it ours).
_TAKE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

# KEYS: room. ARGV: rev, data, expire-at ms, stamp. Creates only; 1 when created.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', ARGV[1], 'data', ARGV[2], 'stamp', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1
"""

# KEYS: room, presence. ARGV: expire-at ms, then member, score pairs. Refreshes
# presence and the room's idle expiry (only while the room exists).
_TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do
  redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[2], ARGV[1])
return 1
"""

# KEYS: presence. ARGV: now ms. Drops ended entries: every spectator's, and each side's but
# its latest (kept as that side's "last seen" while the side has no live entry).
# KEYS: presence. ARGV: after ms, until ms, cap, member. 1 added, 0 the room is full.
_ADMIT = """
if redis.call('ZCOUNT', KEYS[1], ARGV[1], '+inf') >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
return 1
"""

_PRUNE = """
local ended = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES')
if #ended == 0 then return 0 end
local live = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')) do
  live[string.match(m, '^[^:]*')] = true
end
local latest, best = {}, {}
for i = 1, #ended, 2 do
  local side, score = string.match(ended[i], '^[^:]*'), tonumber(ended[i + 1])
  if (side == '0' or side == '1') and not live[side] and (best[side] == nil or score > best[side]) then
    latest[side], best[side] = ended[i], score
  end
end
local removed = 0
for i = 1, #ended, 2 do
  local m = ended[i]
  if m ~= latest['0'] and m ~= latest['1'] then
    redis.call('ZREM', KEYS[1], m)
    removed = removed + 1
  end
end
return removed
"""

# KEYS: lease. ARGV: node. Deletes the lease only if this node holds it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
