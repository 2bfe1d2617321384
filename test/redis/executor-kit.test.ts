// The executor kit (h3-mcp/tasks/testing) on an executor that does not redeliver by itself: a delivery
// loop in this process that calls a worker's `execute` and, for a released attempt, waits for a web
// instance to start the next one. It keeps the kit honest about executors other than BullMQ, and checks
// that web instances start the next attempt of a task handed back (`redelivers: false`).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { TaskAttempt, TaskExecutionHost, TaskExecutor } from "../../src/tasks/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { taskExecutorSuite } from "../../src/tasks/testing/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delivers each attempt once (keyed by task id and attempt) to the served hosts in turn. */
function loopExecutor() {
  const hosts: TaskExecutionHost[] = [];
  const keys = new Set<string>();
  let closed = false;
  let turn = 0;
  const deliver = async (taskId: string) => {
    while (!closed) {
      const host = hosts[turn++ % Math.max(1, hosts.length)];
      if (!host) {
        await pause(20);
        continue;
      }
      const execution = await host.execute(taskId).catch(() => ({ outcome: "taken" as const, retryInMs: 50 }));
      switch (execution.outcome) {
        case "taken":
          await pause(Math.min(execution.retryInMs, 200));
          continue;
        case "draining":
        case "unserved":
          await pause(20);
          continue;
        default:
          // finished, fenced, gone: done. released: a web instance starts the next attempt.
          return;
      }
    }
  };
  const executor: TaskExecutor = {
    name: "loop",
    redelivers: false,
    async start(attempt: TaskAttempt) {
      const key = `${attempt.taskId}:${attempt.attempt}`;
      if (keys.has(key)) return;
      keys.add(key);
      void deliver(attempt.taskId);
    },
  };
  return {
    executor,
    serve(host: TaskExecutionHost) {
      hosts.push(host);
      return {
        async stop() {
          hosts.splice(hosts.indexOf(host), 1);
          return host.drain({ deadlineMs: 0 });
        },
      };
    },
    close() {
      closed = true;
    },
  };
}

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
