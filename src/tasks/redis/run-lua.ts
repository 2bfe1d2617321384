// Lua shared by the store's scripts for runs found by name (run-scripts.ts) and by creation and the
// compare-and-set (scripts.ts), which keep a run's hold too. See run-scripts.ts for the fields and keys.

/** Shared Lua: the time, whether an attempt holds a task, index keys expiring with their last task, holds, a lease's epoch. */
export const RUN_LUA = `
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function holderAlive(prefix, w, le)
  return w and w ~= '' and le and redis.call('GET', prefix .. 'lease:' .. w) == le
end
local function holds(key, prefix, attempt)
  local h = redis.call('HMGET', key, 'a', 'rl', 'w', 'le')
  return h[1] == attempt and h[2] ~= '1' and holderAlive(prefix, h[3], h[4])
end
-- An index key lives as long as its longest-lived task: 'left' is the index's PTTL before the write (-2
-- when it did not exist, -1 when it never expires), 'ttl' the task's (-1 for a task without expiry).
local function keepFor(key, ttl, left)
  if ttl == -1 then
    if left ~= -1 then redis.call('PERSIST', key) end
  elseif left == -2 or (left >= 0 and left < ttl) then
    redis.call('PEXPIRE', key, math.max(ttl, 1))
  end
end
-- The task's own fields of a hold are the caller's to write (with its other fields, in one HSET):
-- 'w' the instance, 'le' its epoch, 'rl' empty. This keeps the instance's indexes; 'ttl' is the task's.
local function hold(prefix, id, name, w, ttl, deadline)
  local held = prefix .. 'held:' .. w
  local left = redis.call('PTTL', held)
  redis.call('HSET', held, id, name)
  keepFor(held, ttl, left)
  redis.call('ZADD', prefix .. 'instances', deadline, w)
end
local function waiting(prefix, key, id, name, since)
  local runs = prefix .. 'runs:' .. name
  local left = redis.call('PTTL', runs)
  redis.call('ZADD', runs, 'NX', since, id)
  keepFor(runs, redis.call('PTTL', key), left)
end
-- A lease that holds is extended, and its epoch read in the same command. A lease taken afresh gets a new
-- epoch: what the instance held under the old one is lost, and waits.
local function takeLease(prefix, w, leaseMs)
  local key = prefix .. 'lease:' .. w
  local held = redis.call('GETEX', key, 'PX', leaseMs)
  if held then return held end
  local t = redis.call('TIME')
  local epoch = t[1] .. '.' .. t[2]
  redis.call('SET', key, epoch, 'PX', leaseMs)
  local heldKey = prefix .. 'held:' .. w
  local tasks = redis.call('HGETALL', heldKey)
  for j = 1, #tasks, 2 do
    local task = prefix .. 'task:' .. tasks[j]
    if redis.call('TYPE', task).ok == 'hash' and redis.call('HGET', task, 'w') == w then waiting(prefix, task, tasks[j], tasks[j + 1], nowMs()) end
  end
  redis.call('DEL', heldKey)
  return epoch
end
`;
