// A BullMQ worker whose attempt is fenced, on a real redis-server with a web instance and workers in this
// process: its store lease is deleted from Redis (as after a stall past it) while BullMQ's lock on the job
// stays its own, so no stalled-job check hands the job to anyone. The worker's `execute` answers `fenced`,
// and the job must be delivered again: nothing else starts the task's next attempt (web instances and
// workers with a redelivering executor never claim on their own). Whether the worker was draining or not.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { bullmqExecutor, startTaskWorker, type BullmqExecutor, type TaskWorker } from "../../src/tasks/bullmq/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, type McpTaskRunContext } from "../../src/tasks/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { until, untilAborted } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} } };
const LEASE_MS = 300;
// Far longer than the lease: the job stays this worker's throughout, whatever becomes of its lease.
const LOCK_MS = 5000;

let redis: RedisServer;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(() => redis?.stop());

/** One logical server: a queue, and instances on one store prefix, each serving the hold run. */
function logicalServer() {
  const prefix = `bq-fenced-${randomUUID().slice(0, 8)}`;
  const queueName = `bq-fenced-${randomUUID().slice(0, 8)}`;
  const executor: BullmqExecutor = bullmqExecutor({ url: redis.url, queueName });
  cleanups.push(() => executor.close());
  const attempts: string[] = [];

  /** An instance serving the hold run: attempt 1 holds until its signal aborts, a later one completes at once. */
  const instance = (who: string) => {
    const store: RedisTaskStore = redisTaskStore({ url: redis.url, secret: "bq-fenced-secret", prefix, leaseMs: LEASE_MS });
    cleanups.push(() => store.close());
    const run = defineTaskRun({
      name: "hold",
      maxAttempts: 3,
      async run(task: McpTaskRunContext) {
        attempts.push(`${who}:${task.attempt}`);
        if (task.attempt > 1) return `attempt ${task.attempt} in ${who}`;
        return untilAborted(task.signal);
      },
    });
    const tasks = mcpTasks({ store, runs: [run], executor });
    const tool = defineTool({ name: "hold", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run, input: {} }) });
    const app = appFor(defineMcpHandler({ name: "bq-fenced", version: "1", tools: [tool] }, { extensionPlugins: [tasks] }));
    return { store, tasks, app };
  };

  const web = instance("web");
  return {
    executor,
    attempts,
    create: async () => ((await call(web.app, "tools/call", { name: "hold" }, { caps })).body.result as { taskId: string }).taskId,
    get: async (taskId: string) => (await call(web.app, "tasks/get", { taskId }, { caps })).body.result as { status: string; result?: { content: unknown } },
    async worker(who: string): Promise<{ worker: TaskWorker; store: RedisTaskStore; errors: unknown[] }> {
      const { store, tasks } = instance(who);
      const errors: unknown[] = [];
      const worker = startTaskWorker({ host: tasks.host, url: redis.url, queueName, shutdownOn: false, lockMs: LOCK_MS, onError: (error) => errors.push(error) });
      cleanups.push(() => worker.close({ deadlineMs: 0 }));
      await worker.ready;
      return { worker, store, errors };
    },
  };
}

describe("a BullMQ worker's attempt fenced while the job stays the worker's", () => {
  it("is delivered again, and the next attempt completes the task", async () => {
    const server = logicalServer();
    const a = await server.worker("a");
    const taskId = await server.create();
    await until(() => server.attempts.length === 1, 5000, "attempt 1 in a");

    expect(await redis.cli("DEL", a.store.leaseKey)).toBe("1");
    await until(async () => (await server.get(taskId)).status === "completed", 10_000, "the task completing");
    expect((await server.get(taskId)).result?.content).toEqual([{ type: "text", text: "attempt 2 in a" }]);
    expect(server.attempts).toEqual(["a:1", "a:2"]);
    const job = await server.executor.queue.getJob(taskId);
    expect(await job!.getState()).toBe("completed");
    expect(job!.returnvalue).toBe("finished");
    expect(a.errors).toEqual([]);
  });

  it("while the worker drains, goes to another worker, which completes the next attempt; the drain hands nothing off", async () => {
    const server = logicalServer();
    const a = await server.worker("a");
    const taskId = await server.create();
    await until(() => server.attempts.length === 1, 5000, "attempt 1 in a");
    const b = await server.worker("b");

    // a drains with time to spare: its attempt would be handed off only at the deadline.
    const closed = a.worker.close({ deadlineMs: 60_000 });
    expect(await redis.cli("DEL", a.store.leaseKey)).toBe("1");
    await until(async () => (await server.get(taskId)).status === "completed", 10_000, "the task completing");
    expect((await server.get(taskId)).result?.content).toEqual([{ type: "text", text: "attempt 2 in b" }]);
    expect(server.attempts).toEqual(["a:1", "b:2"]);
    expect(await closed).toEqual({ finished: 0, handedOff: 0, failed: 0, fenced: 1 });
    expect((await server.executor.queue.getJob(taskId))!.returnvalue).toBe("finished");
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});
