// The executor kit (h3-mcp/tasks/testing) on the BullMQ executor: two web instances and up to two workers
// in this process per test, on a fresh prefix and a fresh queue of a throwaway redis-server.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, it } from "vitest";
import { bullmqExecutor, startTaskWorker } from "../../src/tasks/bullmq/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { taskExecutorSuite } from "../../src/tasks/testing/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

taskExecutorSuite({
  name: "BullMQ",
  open(count) {
    const prefix = `exec-kit-${randomUUID().slice(0, 8)}`;
    return Array.from({ length: count }, () => redisTaskStore({ url: redis.url, prefix, secret: "kit-secret", leaseMs: 1000 }));
  },
  close: (stores) => Promise.all(stores.map((store) => (store as RedisTaskStore).close())).then(() => {}),
  executor() {
    const queueName = `exec-kit-${randomUUID().slice(0, 8)}`;
    const executor = bullmqExecutor({ url: redis.url, queueName });
    return {
      executor,
      serve(host) {
        const worker = startTaskWorker({ host, url: redis.url, queueName, shutdownOn: false, lockMs: 1000, unservedRetryMs: 100 });
        return worker.ready.then(() => ({ stop: () => worker.close({ deadlineMs: 0 }) }));
      },
      close: () => executor.close(),
    };
  },
  runner: { describe, it },
});
