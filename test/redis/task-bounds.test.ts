// The bound on what one task keeps, on the Redis store (the cases are test/helpers/task-bounds.ts): refused
// before the store is called, so a shared store behaves as the in-memory one.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { describeTaskBounds } from "../helpers/task-bounds.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

describeTaskBounds(
  "Redis store",
  () => redisTaskStore({ url: redis.url, prefix: `bounds-${randomUUID().slice(0, 8)}`, secret: "bounds-secret", leaseMs: 1000 }),
  (store) => store.close(),
);
