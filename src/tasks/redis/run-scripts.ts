// The Lua scripts of runs found by name. A task with a run keeps, beside its snapshot: the run's name and
// version (`rn`, `rv`), its sealed record (`r`), the attempt that holds it or held it last (`a`), whether it
// is released (`rl`), and its holder's instance (`w`) with that instance's lease epoch at the claim (`le`).
// A lease key holds an epoch, new each time the lease is taken afresh, so a holder whose lease lapsed
// never holds again, even once its instance takes a new lease. Besides the task: `runs:<name>` (sorted
// set of the run's claimable tasks, by when they began waiting), `held:<instance>` (hash of the tasks an
// instance holds, to their run's name) and `instances` (sorted set of instances holding tasks, by lease
// deadline), scanned for lapsed leases by `claimable`. Every script reads the time from Redis, the clock
// the leases expire by. KEYS hold the task's key; the other keys are built from the store's prefix
// (ARGV[1]), all in its hash tag's slot.
import { RUN_LUA } from "./run-lua.ts";
import { script } from "./scripts.ts";

/**
 * Takes the next attempt of a task that is released or whose holder's lease lapsed. KEYS: task. ARGV:
 * prefix, instance, leaseMs, id. Returns { 1, attempt } when claimed, { 0, ms until the holder's lease
 * lapses } when taken, { -1 } when gone (absent, finished, or without a run).
 */
export const CLAIM = script(`${RUN_LUA}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return { -1 } end
local prefix, me, leaseMs, id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local h = redis.call('HMGET', KEYS[1], 'rn', 'a', 'rl', 'w', 'le')
if not h[1] then return { -1 } end
if h[3] ~= '1' and holderAlive(prefix, h[4], h[5]) then
  return { 0, math.max(redis.call('PTTL', prefix .. 'lease:' .. h[4]), 1) }
end
if h[4] and h[4] ~= '' then redis.call('HDEL', prefix .. 'held:' .. h[4], id) end
local attempt = tonumber(h[2]) + 1
local now = nowMs()
local epoch = takeLease(prefix, me, leaseMs)
redis.call('HSET', KEYS[1], 'a', attempt, 'w', me, 'le', epoch, 'rl', '')
hold(prefix, id, h[1], me, redis.call('PTTL', KEYS[1]), now + leaseMs)
redis.call('ZREM', prefix .. 'runs:' .. h[1], id)
return { 1, attempt }
`);

/**
 * Gives a task up: no attempt holds it, it waits in its run's set, and the change channel hears it.
 * KEYS: task. ARGV: prefix, attempt (the fence), id, channel. Returns 1, 0 when fenced, -1 when gone.
 * The message is ../change-messages.ts's `releasedMessage`, written here, where the run's name is.
 */
export const RELEASE = script(`${RUN_LUA}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return -1 end
local prefix, id = ARGV[1], ARGV[3]
local h = redis.call('HMGET', KEYS[1], 'rn', 'w')
if not h[1] then return -1 end
if not holds(KEYS[1], prefix, ARGV[2]) then return 0 end
redis.call('HDEL', prefix .. 'held:' .. h[2], id)
redis.call('HSET', KEYS[1], 'rl', '1', 'w', '', 'le', '')
waiting(prefix, KEYS[1], id, h[1], nowMs())
redis.call('PUBLISH', ARGV[4], '{"r":' .. cjson.encode(id) .. ',"n":' .. cjson.encode(h[1]) .. '}')
return 1
`);

/**
 * Up to `limit` tasks waiting for a claim among the runs named. First the instances whose lease lapsed:
 * the tasks they still hold join their run's set, waiting since the lease's deadline (an instance goes
 * once it holds nothing). Then each run's set, oldest first; members that no longer wait leave it.
 * KEYS: instances. ARGV: prefix, limit, names... Returns a flat list of id, name, version, attempt, since.
 */
export const CLAIMABLE = script(`${RUN_LUA}
local prefix, limit = ARGV[1], tonumber(ARGV[2])
local now = nowMs()
local instances = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #instances, 2 do
  local w = instances[i]
  local heldKey = prefix .. 'held:' .. w
  if redis.call('EXISTS', heldKey) == 0 then
    redis.call('ZREM', KEYS[1], w)
  elseif redis.call('EXISTS', prefix .. 'lease:' .. w) == 0 then
    local since = math.min(tonumber(instances[i + 1]), now)
    local held = redis.call('HGETALL', heldKey)
    for j = 1, #held, 2 do
      local key = prefix .. 'task:' .. held[j]
      if redis.call('TYPE', key).ok == 'hash' and redis.call('HGET', key, 'w') == w then waiting(prefix, key, held[j], held[j + 1], since)
      else redis.call('HDEL', heldKey, held[j]) end
    end
  end
end
local out = {}
for n = 3, #ARGV do
  local runs = prefix .. 'runs:' .. ARGV[n]
  local members = redis.call('ZRANGE', runs, 0, limit * 4 - 1, 'WITHSCORES')
  for i = 1, #members, 2 do
    if #out >= limit * 5 then break end
    local id = members[i]
    local key = prefix .. 'task:' .. id
    local h = redis.call('TYPE', key).ok == 'hash' and redis.call('HMGET', key, 'rv', 'a', 'rl', 'w', 'le') or nil
    if h and h[1] and (h[3] == '1' or not holderAlive(prefix, h[4], h[5])) then
      for _, v in ipairs({ id, ARGV[n], h[1], h[2], members[i + 1] }) do out[#out + 1] = v end
    else
      redis.call('ZREM', runs, id)
    end
  end
end
return out
`);

/** The sealed run record of a live task. KEYS: task. Returns it, or nil when gone or without one. */
export const LOAD_RUN = script(`
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return nil end
return redis.call('HGET', KEYS[1], 'r')
`);

/** Replaces the sealed run record, fenced. KEYS: task. ARGV: prefix, attempt, record. Returns 1, 0 when fenced, -1 when gone. */
export const SAVE_RUN = script(`${RUN_LUA}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HEXISTS', KEYS[1], 'r') == 0 then return -1 end
if not holds(KEYS[1], ARGV[1], ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[3])
return 1
`);

/**
 * Extends this instance's lease, and its deadline among the instances holding tasks. KEYS: lease,
 * instances. ARGV: instance, leaseMs. Returns 1, or 0 when the lease had lapsed.
 */
export const RENEW = script(`${RUN_LUA}
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], 'XX', nowMs() + tonumber(ARGV[2]), ARGV[1])
return 1
`);
