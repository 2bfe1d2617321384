// The tasks wire suite (test/wire/tasks-suite.ts) with two instances sharing one Redis behind a round-robin:
// every test's consecutive requests land on alternate instances, and the work runs on whichever took the call.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { tasksWireSuite } from "../wire/tasks-suite.ts";

let redis: RedisServer;
const opened: RedisTaskStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(() => redis?.stop());

tasksWireSuite({
  label: "two instances sharing Redis",
  instances() {
    const prefix = `wire-${randomUUID().slice(0, 8)}`;
    const stores = [redisTaskStore({ url: redis.url, prefix }), redisTaskStore({ url: redis.url, prefix })];
    opened.push(...stores);
    return stores.map((store) => ({ store }));
  },
});
