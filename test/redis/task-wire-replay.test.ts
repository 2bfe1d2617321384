// The chart's paths replayed over the wire (test/model/task-wire-replay.ts) on two instances sharing Redis,
// requests alternating between them: the run lives on one, half the tasks/get, update and cancel reach the other.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { replaySuite } from "../model/task-wire-replay.ts";

let redis: RedisServer;
const opened: RedisTaskStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(() => redis?.stop());

const storesOf = (plugins: readonly { store: unknown }[]) => plugins.map((p) => p.store as RedisTaskStore);

replaySuite({
  label: "two instances sharing Redis",
  instances() {
    const prefix = `replay-${randomUUID().slice(0, 8)}`;
    const stores = [redisTaskStore({ url: redis.url, prefix }), redisTaskStore({ url: redis.url, prefix })];
    opened.push(...stores);
    return stores.map((store) => ({ store }));
  },
  remote: true,
  released(plugins) {
    for (const store of storesOf(plugins)) expect(store.stats).toMatchObject({ localTasks: 0, listeners: 0 });
  },
  async gone(plugins) {
    const [store] = storesOf(plugins);
    for (const s of storesOf(plugins)) expect(s.stats).toMatchObject({ localTasks: 0, listeners: 0 });
    expect(store!.size).toBe(0);
  },
});
