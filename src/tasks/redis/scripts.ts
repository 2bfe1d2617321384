// The Lua scripts of the Redis store. They only compare versions, count and copy: every decision
// about a task's status is the chart's, taken in JavaScript before a script runs.
import { createHash } from "node:crypto";
import { RUN_LUA } from "./run-lua.ts";

export interface Script {
  readonly source: string;
  readonly sha: string;
}

export function script(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** What CREATE answers. */
export const CREATED = 1;
export const FULL = 0;
export const OWNER_FULL = 2;
export const ID_TAKEN = -1;

/**
 * Adds a task unless the store holds `max` already, or (with a per-owner cap) its owner holds
 * `maxPerOwner` (expired ids are dropped from both counts first), expiring its key `expiresAt - now`
 * from now (relative, so a server whose clock differs from Redis's still gets the task's lifetime), and
 * takes or extends the worker's lease in the same step, so the task is never without one. The owner's
 * set expires with its last task. A task of a run found by name keeps the run (see run-scripts.ts): held
 * by this instance as attempt 1, or released (waiting in its run's set, and the channel told).
 * KEYS: task, tasks, lease, the owner's set. ARGV: now, expiresAt ("" for none), max, owner, chart
 * version, snapshot, worker, id, leaseMs, maxPerOwner ("" for no cap), origin JSON ("" for none), key
 * prefix, and for a run: its name ("" for none), version, sealed record, and for a released one "1", the
 * channel and the released message.
 * Returns 1 when added, 0 when full, 2 when the owner holds its cap, -1 when the id is taken.
 */
export const CREATE = script(`${RUN_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
local capped = ARGV[10] ~= ''
local fresh = false
if capped then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[10]) then return 2 end
  fresh = redis.call('EXISTS', KEYS[4]) == 0
end
local score = ARGV[2] == '' and '+inf' or ARGV[2]
redis.call('ZADD', KEYS[2], score, ARGV[8])
local run = (ARGV[13] or '') ~= ''
local released = run and (ARGV[16] or '') == '1'
local epoch = takeLease(ARGV[12], ARGV[7], ARGV[9])
local fields = { 'v', 1, 'cv', ARGV[5], 's', ARGV[6], 'o', ARGV[4], 'w', released and '' or ARGV[7] }
if ARGV[11] ~= '' then fields[#fields + 1] = 'g'; fields[#fields + 1] = ARGV[11] end
if run then
  for _, v in ipairs({ 'rn', ARGV[13], 'rv', ARGV[14], 'r', ARGV[15], 'a', released and 0 or 1, 'rl', released and '1' or '' }) do fields[#fields + 1] = v end
  if not released then fields[#fields + 1] = 'le'; fields[#fields + 1] = epoch end
end
redis.call('HSET', KEYS[1], unpack(fields))
local ttl = ARGV[2] ~= '' and math.max(1, tonumber(ARGV[2]) - tonumber(ARGV[1])) or nil
if ttl then redis.call('PEXPIRE', KEYS[1], string.format('%d', ttl)) end
if capped then
  redis.call('ZADD', KEYS[4], score, ARGV[8])
  if not ttl then redis.call('PERSIST', KEYS[4])
  elseif fresh or (redis.call('PTTL', KEYS[4]) >= 0 and redis.call('PTTL', KEYS[4]) < ttl) then
    redis.call('PEXPIRE', KEYS[4], string.format('%d', ttl))
  end
end
if released then
  waiting(ARGV[12], KEYS[1], ARGV[8], ARGV[13], nowMs())
  redis.call('PUBLISH', ARGV[17], ARGV[18])
elseif run then
  hold(ARGV[12], ARGV[8], ARGV[13], ARGV[7], ttl or -1, nowMs() + tonumber(ARGV[9]))
end
return 1
`);

/**
 * One task as a reader needs it, in one round trip. KEYS: task. ARGV: lease key prefix, for a listen
 * stream its listen key and how long it lasts (ms) (else "" twice), set when the task is live, in the same
 * step as the read so that no change after it goes unpublished; then the key prefix and the task id.
 * Returns nil when absent; a finished task's string as it is; else { owner, version, chart version,
 * snapshot, lease alive (0/1), origin ("" for none) }, and for a run found by name its name, version,
 * attempt, released ("1" or "") and since when it waits ("" while held). A released task's lease reads
 * alive (nobody lost it); a holder's lease is alive only with the epoch it was claimed under.
 */
export const READ = script(`
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return nil end
if t == 'string' then return redis.call('GET', KEYS[1]) end
if (ARGV[2] or '') ~= '' then redis.call('SET', ARGV[2], '1', 'PX', ARGV[3]) end
local h = redis.call('HMGET', KEYS[1], 'o', 'v', 'cv', 's', 'w', 'g', 'rn')
local alive = 0
if not h[7] then
  if h[5] then alive = redis.call('EXISTS', ARGV[1] .. h[5]) end
  return { h[1] or '', h[2] or '0', h[3] or '', h[4] or '', alive, h[6] or '' }
end
local run = redis.call('HMGET', KEYS[1], 'rv', 'a', 'rl', 'le')
local since = ''
if run[3] == '1' then
  alive = 1
  since = redis.call('ZSCORE', ARGV[4] .. 'runs:' .. h[7], ARGV[5]) or ''
elseif h[5] ~= '' and redis.call('GET', ARGV[1] .. h[5]) == run[4] then
  alive = 1
else
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  since = math.min(tonumber(redis.call('ZSCORE', ARGV[4] .. 'instances', h[5]) or now), now)
end
return { h[1] or '', h[2] or '0', h[3] or '', h[4] or '', alive, h[6] or '', h[7], run[1], run[2], run[3] or '', tostring(since) }
`);

/**
 * The compare-and-set of one change, published in the same step. KEYS: task. ARGV: the expected version;
 * the next snapshot (live) or ""; the final tasks/get JSON as stored (finished) or ""; the channel; the
 * message; the task's listen key for a change made where the task runs, else "" (such a change is
 * published only while that key exists, that is while a listen stream waits on the task: no other
 * instance needs it otherwise); the fence's attempt for a run's own write, else ""; the key prefix; the
 * task id. Returns 1 when written, 0 when the version moved on meanwhile (or the task finished), -2
 * when the fence's attempt no longer holds the task (checked first), -1 when the task is gone. A task of a
 * run that finishes leaves the run's indexes (its record goes with the hash).
 * A finished task becomes one string, "<version> <owner> [~<origin>\n]<JSON>" (JSON.stringify never
 * writes a newline), keeping the key's expiry: PTTL is -1 only for a task without one, and 0 for one in
 * its last millisecond, which must still expire.
 */
export const APPLY = script(`
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return -1 end
if t ~= 'hash' then return 0 end
local h = redis.call('HMGET', KEYS[1], 'v', 'o', 'g', 'rn', 'a', 'rl', 'w', 'le')
if (ARGV[7] or '') ~= '' and h[4] then
  if h[5] ~= ARGV[7] or h[6] == '1' or not h[7] or h[7] == '' or redis.call('GET', ARGV[8] .. 'lease:' .. h[7]) ~= h[8] then return -2 end
end
if h[1] ~= ARGV[1] then return 0 end
local v = tonumber(h[1]) + 1
if ARGV[3] ~= '' then
  local ttl = redis.call('PTTL', KEYS[1])
  local origin = h[3] and ('~' .. h[3] .. '\\n') or ''
  local final = string.format('%d', v) .. ' ' .. h[2] .. ' ' .. origin .. ARGV[3]
  if ttl == -1 then redis.call('SET', KEYS[1], final) else redis.call('SET', KEYS[1], final, 'PX', math.max(ttl, 1)) end
  if h[4] then
    -- A run's own write passed its fence: the task is held, so it waits in no run's set.
    if (ARGV[7] or '') == '' then redis.call('ZREM', ARGV[8] .. 'runs:' .. h[4], ARGV[9]) end
    if h[7] and h[7] ~= '' then redis.call('HDEL', ARGV[8] .. 'held:' .. h[7], ARGV[9]) end
  end
else
  redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[2])
end
if (ARGV[6] or '') == '' or redis.call('EXISTS', ARGV[6]) == 1 then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
return 1
`);

/** The stored version of each task ("" when gone), for catching up after a lost message. KEYS: tasks. */
export const VERSIONS = script(`
local out = {}
for i, key in ipairs(KEYS) do
  local t = redis.call('TYPE', key).ok
  if t == 'hash' then out[i] = redis.call('HGET', key, 'v') or ''
  elseif t == 'string' then out[i] = string.match(redis.call('GETRANGE', key, 0, 19), '^%d+') or ''
  else out[i] = '' end
end
return out
`);
