// The Lua scripts of the shared store. They only compare versions, count and copy: every decision
// about a task's status is the chart's, taken in JavaScript before a script runs.
import { createHash } from "node:crypto";

export interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/**
 * Adds a task unless the store holds `max` already (expired ids are dropped from the count first),
 * expiring its key `expiresAt - now` from now (relative, so a server whose clock differs from Redis's
 * still gets the task's lifetime),
 * and takes or extends the worker's lease in the same step, so the task is never without one.
 * KEYS: task, tasks, lease. ARGV: now, expiresAt ("" for none), max, owner, chart version, snapshot,
 * worker, id, leaseMs. Returns 1 when added, 0 when full, -1 when the id is taken.
 */
export const CREATE = script(`
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2] == '' and '+inf' or ARGV[2], ARGV[8])
redis.call('HSET', KEYS[1], 'v', 1, 'cv', ARGV[5], 's', ARGV[6], 'o', ARGV[4], 'w', ARGV[7])
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], string.format('%d', math.max(1, tonumber(ARGV[2]) - tonumber(ARGV[1])))) end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[9])
return 1
`);

/**
 * One task as a reader needs it, in one round trip. KEYS: task. ARGV: lease key prefix.
 * Returns nil when absent; else { owner, final JSON or "", version, chart version, snapshot, lease alive (0/1) }.
 */
export const READ = script(`
local h = redis.call('HMGET', KEYS[1], 'o', 'f', 'v', 'cv', 's', 'w')
if not h[1] then return nil end
if h[2] then return { h[1], h[2], h[3] or '0', '', '', 1 } end
local alive = 0
if h[6] then alive = redis.call('EXISTS', ARGV[1] .. h[6]) end
return { h[1], '', h[3] or '0', h[4] or '', h[5] or '', alive }
`);

/**
 * The compare-and-set of one change, published in the same step. KEYS: task. ARGV: expected version,
 * next snapshot (live) or "", final tasks/get JSON (finished) or "", channel, message, and the lease
 * key that must still exist ("" for none: a change computed from a worker's own actor is refused once
 * its lease is gone, so the reader's path decides then).
 * Returns 1 when written, 0 when the version moved on meanwhile (or the lease is gone), -1 when the task is gone.
 * A finished task keeps only its final JSON, its owner and its version.
 */
export const APPLY = script(`
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
if (ARGV[6] or '') ~= '' and redis.call('EXISTS', ARGV[6]) == 0 then return 0 end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'f', ARGV[3])
  redis.call('HDEL', KEYS[1], 's', 'w', 'cv')
else
  redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 's', ARGV[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`);

/** The stored version of each task ("" when gone), for reconciling after a lost message. KEYS: tasks. */
export const VERSIONS = script(`
local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HGET', key, 'v') or '' end
return out
`);
