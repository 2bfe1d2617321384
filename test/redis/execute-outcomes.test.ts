// What a worker's `execute` answers when its attempt leaves without the task ending, on a real
// redis-server with a web instance and workers in this process (each its own store and lease), fed by an
// executor that delivers nothing itself: the test calls `execute` as a worker would. The answer follows
// why the attempt left, not what the worker was doing meanwhile: a drain's hand-off is `handed_off`, and an
// attempt fenced while its worker drains (its lease gone, another worker claiming the task) is `fenced`.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, type TaskExecutor } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { until, untilAborted, useRedisClusters } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} } };
const LEASE_MS = 300;

const servers = useRedisClusters();

// Deliveries are the test's own `execute` calls: web instances only store the task.
const manual: TaskExecutor = { name: "manual", redelivers: true, async start() {} };

/** Attempt 1 holds until its signal aborts; a later attempt completes at once. */
function holdRun(who: string, attempts: string[]) {
  return defineTaskRun({
    name: "hold",
    maxAttempts: 3,
    async run(task) {
      attempts.push(`${who}:${task.attempt}`);
      if (task.attempt === 1) return untilAborted(task.signal);
      return `attempt ${task.attempt} in ${who}`;
    },
  });
}

/** An instance on the shared Redis serving the hold run: `create` makes a task through its app. */
function instance(prefix: string, who: string, attempts: string[]) {
  const store = servers.closeAfter(redisTaskStore({ url: servers.redis.url, secret: "execute-outcomes-secret", prefix, leaseMs: LEASE_MS }));
  const run = holdRun(who, attempts);
  const tasks = mcpTasks({ store, runs: [run], executor: manual });
  const tool = defineTool({ name: "hold", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run, input: {} }) });
  const app = appFor(defineMcpHandler({ name: "execute-outcomes", version: "1", tools: [tool] }, { extensionPlugins: [tasks] }));
  return {
    tasks,
    create: async () => (await call(app, "tools/call", { name: "hold" }, { caps })).body.result as { taskId: string },
    get: async (taskId: string) => (await call(app, "tasks/get", { taskId }, { caps })).body.result as { status: string },
    /** The instance is lost to the others: its lease is gone from Redis (as after a stall past it). */
    lose: () => servers.redis.cli("DEL", store.leaseKey),
  };
}

describe("a worker's execute answer for an attempt that left it", () => {
  it("is released for a drain's hand-off", async () => {
    const prefix = `execute-outcomes-${randomUUID().slice(0, 8)}`;
    const attempts: string[] = [];
    const web = instance(prefix, "web", attempts);
    const a = instance(prefix, "a", attempts);
    const { taskId } = await web.create();
    const executed = a.tasks.host.execute(taskId);
    await until(() => attempts.length === 1, 5000, "attempt 1 on a");

    expect(await a.tasks.drain({ deadlineMs: 0 })).toEqual({ finished: 0, handedOff: 1, failed: 0, fenced: 0 });
    expect(await executed).toEqual({ outcome: "handed_off", attempt: 1 });
    expect(attempts).toEqual(["a:1"]);
  });

  it("is fenced for an attempt whose lease was lost and whose task another worker claimed while this one drained", async () => {
    const prefix = `execute-outcomes-${randomUUID().slice(0, 8)}`;
    const attempts: string[] = [];
    const web = instance(prefix, "web", attempts);
    const a = instance(prefix, "a", attempts);
    const b = instance(prefix, "b", attempts);
    const { taskId } = await web.create();
    const executedOnA = a.tasks.host.execute(taskId);
    await until(() => attempts.length === 1, 5000, "attempt 1 on a");

    // a drains with time to spare: its attempt would be handed off only at the deadline.
    const drained = a.tasks.drain({ deadlineMs: 60_000 });
    await a.lose();
    expect(await b.tasks.host.execute(taskId)).toEqual({ outcome: "finished", status: "completed", attempt: 2 });
    expect(await executedOnA).toEqual({ outcome: "fenced", attempt: 1 });
    // Nothing was left for a's drain to hand off: the attempt had left a by then.
    expect(await drained).toEqual({ finished: 0, handedOff: 0, failed: 0, fenced: 1 });
    expect(attempts).toEqual(["a:1", "b:2"]);
    expect((await web.get(taskId)).status).toBe("completed");
  });
});
