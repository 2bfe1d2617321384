// A run's checkpoint written after its task ended elsewhere, before this instance heard of the end, on a
// real redis-server with two instances in this process. The store refuses the write (the task is gone),
// and the run sees what it would have seen had the end reached it first: `saveCheckpoint` rejects and its
// signal is already aborted, with the reason of that end (cancelled, or ended when the store cannot tell).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedisRelay } from "../helpers/redis-relay.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { until, useRedisClusters } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} } };
const servers = useRedisClusters();

/** What the run saw when its checkpoint was refused. */
interface Refusal {
  error: string;
  aborted: boolean;
  reason: string;
}

/**
 * An instance serving the `save` run, which waits for the test's word, then saves a checkpoint. `create`
 * starts a task through its app: the attempt runs on this instance.
 */
function instance(prefix: string, url = servers.redis.url) {
  const store = servers.closeAfter(redisTaskStore({ url, secret: "ended-elsewhere-secret", prefix }));
  const started: string[] = [];
  const refused: Refusal[] = [];
  let go!: () => void;
  const word = new Promise<void>((resolve) => (go = resolve));
  const run = defineTaskRun({
    name: "save",
    maxAttempts: 3,
    async run(task) {
      const signal = task.signal;
      started.push(task.taskId);
      await word;
      try {
        await task.saveCheckpoint({ done: 1 });
      } catch (error) {
        refused.push({ error: (error as Error).message, aborted: signal.aborted, reason: (signal.reason as Error | undefined)?.message ?? "" });
        throw error;
      }
      return "saved";
    },
  });
  const tool = defineTool({ name: "save", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run, input: {} }) });
  const app = appFor(defineMcpHandler({ name: "ended-elsewhere", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ store, runs: [run] })] }));
  return {
    started,
    refused,
    go,
    create: async () => ((await call(app, "tools/call", { name: "save" }, { caps })).body.result as { taskId: string }).taskId,
    call: (method: string, params: Record<string, unknown>) => call(app, method, params, { caps }),
  };
}

const taskKey = (prefix: string, id: string) => `{${prefix}}:task:${id}`;

describe("a checkpoint saved after the task ended elsewhere", () => {
  it("rejects with the task ended, and the run's signal is aborted by then, as cancelled", async () => {
    const prefix = `ended-elsewhere-${randomUUID().slice(0, 8)}`;
    const relay = servers.closeAfter(await startRedisRelay(servers.redis.port));
    const runner = instance(prefix, relay.url);
    const other = instance(prefix);
    const taskId = await runner.create();
    await until(() => runner.started.includes(taskId), 5000, "the attempt started");
    // The cancel's message waits on its way to the runner: the checkpoint's refusal reaches the run first.
    relay.holdSubscribers();
    expect((await other.call("tasks/cancel", { taskId })).body.result).toMatchObject({ resultType: "complete" });
    runner.go();
    await until(() => runner.refused.length === 1, 5000, "the checkpoint refused");
    expect(runner.refused).toEqual([{ error: "The task has already ended", aborted: true, reason: "The task was cancelled" }]);
    // The message arrives; the cancel stands on both instances.
    relay.release();
    await until(async () => (await runner.call("tasks/get", { taskId })).body.result?.status === "cancelled", 5000, "cancelled on the runner");
    expect((await other.call("tasks/get", { taskId })).body.result).toMatchObject({ status: "cancelled" });
  });

  it("rejects, and the signal is aborted as ended, when the store no longer has the task at all", async () => {
    const prefix = `ended-elsewhere-${randomUUID().slice(0, 8)}`;
    const runner = instance(prefix);
    const taskId = await runner.create();
    await until(() => runner.started.includes(taskId), 5000, "the attempt started");
    // Gone without a change anyone could hear (an operator's DEL, a flush): the store can only say it is gone.
    expect(await servers.redis.cli("DEL", taskKey(prefix, taskId))).toBe("1");
    runner.go();
    await until(() => runner.refused.length === 1, 5000, "the checkpoint refused");
    expect(runner.refused).toEqual([{ error: "The task has already ended", aborted: true, reason: "The task ended" }]);
  });
});
