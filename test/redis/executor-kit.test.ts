// The executor kit (h3-mcp/tasks/testing) on an executor that does not redeliver by itself: a delivery
// loop in this process that calls a worker's `execute` and, for a released attempt, waits for a web
// instance to start the next one. It keeps the kit honest about executors other than BullMQ, and checks
// that web instances start the next attempt of a task handed back (`redelivers: false`).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, it } from "vitest";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { taskExecutorSuite } from "../../src/tasks/testing/index.ts";
import { loopExecutor } from "../helpers/loop-executor.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

taskExecutorSuite({
  name: "a delivery loop that does not redeliver",
  open(count) {
    const prefix = `loop-kit-${randomUUID().slice(0, 8)}`;
    return Array.from({ length: count }, () => redisTaskStore({ url: redis.url, prefix, secret: "kit-secret", leaseMs: 1000 }));
  },
  close: (stores) => Promise.all(stores.map((store) => (store as RedisTaskStore).close())).then(() => {}),
  executor: loopExecutor,
  runner: { describe, it },
});
