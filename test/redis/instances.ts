// For suites run on both stores (test/wire/server-info-suite.ts): a throwaway Redis for the file, and
// `instances()` giving the `mcpTasks` options of two fresh instances on one new prefix (one logical
// server), closed after each test.
// Call it at the top of a test file: it registers the file's hooks.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import type { McpTasksOptions } from "../../src/tasks/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

export function twoRedisInstances(label: string): () => McpTasksOptions[] {
  let redis: RedisServer;
  const opened: RedisTaskStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  afterAll(() => redis?.stop());
  return () => {
    const prefix = `${label}-${randomUUID().slice(0, 8)}`;
    const stores = [0, 1].map(() => redisTaskStore({ url: redis.url, prefix, secret: "instances-secret" }));
    opened.push(...stores);
    return stores.map((store) => ({ store }));
  };
}
