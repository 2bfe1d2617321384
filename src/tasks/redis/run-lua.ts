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
local function keepFor(key, ttl, existed)
  if ttl == -1 then redis.call('PERSIST', key)
  elseif existed == 0 or (redis.call('PTTL', key) >= 0 and redis.call('PTTL', key) < ttl) then
    redis.call('PEXPIRE', key, math.max(ttl, 1))
  end
end
local function hold(prefix, key, id, name, w, epoch, deadline)
  local held = prefix .. 'held:' .. w
  local existed = redis.call('EXISTS', held)
  redis.call('HSET', key, 'w', w, 'le', epoch, 'rl', '')
  redis.call('HSET', held, id, name)
  keepFor(held, redis.call('PTTL', key), existed)
  redis.call('ZADD', prefix .. 'instances', deadline, w)
end
local function waiting(prefix, key, id, name, since)
  local runs = prefix .. 'runs:' .. name
  local existed = redis.call('EXISTS', runs)
  redis.call('ZADD', runs, 'NX', since, id)
  keepFor(runs, redis.call('PTTL', key), existed)
end
-- A lease taken afresh gets a new epoch: what the instance held under the old one is lost, and waits.
-- A lease that holds is only extended; its epoch is read when a hold needs it (not for a closure's task).
local function takeLease(prefix, w, leaseMs, needEpoch)
  local key = prefix .. 'lease:' .. w
  if redis.call('PEXPIRE', key, leaseMs) == 1 then return needEpoch and redis.call('GET', key) or nil end
  local t = redis.call('TIME')
  local epoch = t[1] .. '.' .. t[2]
  redis.call('SET', key, epoch, 'PX', leaseMs)
  local heldKey = prefix .. 'held:' .. w
  local held = redis.call('HGETALL', heldKey)
  for j = 1, #held, 2 do
    local task = prefix .. 'task:' .. held[j]
    if redis.call('TYPE', task).ok == 'hash' and redis.call('HGET', task, 'w') == w then waiting(prefix, task, held[j], held[j + 1], nowMs()) end
  end
  redis.call('DEL', heldKey)
  return epoch
end
`;
