// bullmqExecutor() on a real redis-server: a task's attempt becomes one BullMQ job whose id is the task's
// id and whose data is that id alone (the input never reaches the queue), started twice it is still one
// job, with Redis gone `start` rejects with the queue-unavailable error instead of hanging (a 503 with
// Retry-After on the wire, its task failed), and a cancel on a web instance drops the job still queued for
// its task.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { bullmqExecutor } from "../../src/tasks/bullmq/index.ts";
import { McpJsonRpcError } from "../../src/protocol/errors.ts";
import { startRedisRelay } from "../helpers/redis-relay.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} } };

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

const SECRET_INPUT = "input-that-must-stay-in-the-task-store";

const attempt = (taskId: string) => ({ taskId, name: "render", version: 1, input: { text: SECRET_INPUT }, attempt: 1 });

it("enqueues one job per task, named after the run, carrying only the task id", async () => {
  const executor = bullmqExecutor({ url: redis.url, queueName: "runs-a" });
  try {
    expect(executor.name).toBe("bullmq");
    expect(executor.redelivers).toBe(true);
    await executor.start(attempt("task-1"));
    await executor.start(attempt("task-1"));
    await executor.start(attempt("task-2"));
    const jobs = await executor.queue.getJobs(["waiting"]);
    expect(jobs.map((job) => [job.id, job.name, job.data]).sort()).toEqual([
      ["task-1", "render", { taskId: "task-1" }],
      ["task-2", "render", { taskId: "task-2" }],
    ]);
    // Nothing BullMQ wrote holds the input: every string value of every key it made.
    const keys = (await redis.cli("KEYS", "bull:runs-a:*")).split("\n").filter(Boolean);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const type = await redis.cli("TYPE", key);
      const dump =
        type === "hash" ? await redis.cli("HGETALL", key)
        : type === "string" ? await redis.cli("GET", key)
        : type === "list" ? await redis.cli("LRANGE", key, "0", "-1")
        : type === "zset" ? await redis.cli("ZRANGE", key, "0", "-1")
        : type === "stream" ? await redis.cli("XRANGE", key, "-", "+")
        : "";
      expect(dump, key).not.toContain(SECRET_INPUT);
    }
  } finally {
    await executor.close();
  }
});

it("drops a job still waiting when told its task ended", async () => {
  const executor = bullmqExecutor({ url: redis.url, queueName: "runs-b" });
  try {
    await executor.start(attempt("task-3"));
    await executor.forget!("task-3");
    expect(await executor.queue.getJob("task-3")).toBeUndefined();
    // Forgetting a task that has no job is nothing.
    await executor.forget!("task-unknown");
  } finally {
    await executor.close();
  }
});

it("rejects with the queue-unavailable error (HTTP 503) while Redis is down", async () => {
  const executor = bullmqExecutor({ url: redis.url, queueName: "runs-c", timeoutMs: 300 });
  try {
    await executor.start(attempt("task-4"));
    await redis.stop();
    const error = await executor.start(attempt("task-5")).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(McpJsonRpcError.isError(error)).toBe(true);
    expect((error as McpJsonRpcError).status).toBe(503);
    expect((error as McpJsonRpcError).headers).toEqual({ "retry-after": "2" });
    expect((error as McpJsonRpcError).message).toMatch(/^The task queue is unavailable: /);
  } finally {
    await redis.restart();
    await executor.close();
  }
});

it("a call whose task the queue cannot take while its Redis is down gets 503 with Retry-After, its task failed, and the same call made again once the queue is back gets a task", async () => {
  // The task store on one Redis, the queue on another, which goes down: only the queue is unavailable.
  const queueRedis = await startRedis();
  const executor = bullmqExecutor({ url: queueRedis.url, queueName: "runs-e", timeoutMs: 300 });
  const store = redisTaskStore({ url: redis.url, prefix: "queue-down", secret: "s" });
  try {
    const render = defineTaskRun({ name: "render", run: () => "rendered" });
    const tool = defineTool({ name: "render", handler: (event) => mcpTask(event, { run: render, input: {} }) });
    const app = appFor(defineMcpHandler({ name: "t", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ store, runs: [render], executor })] }));
    await queueRedis.stop();

    const refused = await call(app, "tools/call", { name: "render" }, { caps });
    expect(refused.status).toBe(503);
    expect(refused.res.headers.get("retry-after")).toBe("2");
    expect(refused.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^The task queue is unavailable: /) });
    // The task the call created is failed, naming the executor: it never runs, whatever reached the queue.
    const [key] = (await redis.cli("KEYS", "{queue-down}:task:*")).split("\n").filter(Boolean);
    const failed = (await call(app, "tasks/get", { taskId: key!.slice("{queue-down}:task:".length) }, { caps })).body.result;
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, data: { reason: "executor", executor: "bullmq" } } });

    await queueRedis.restart();
    // Made again, as Retry-After says, until the queue's connection is back (BullMQ reconnects with backoff).
    let again = refused;
    await vi.waitFor(
      async () => {
        again = await call(app, "tools/call", { name: "render" }, { caps });
        expect(again.status).toBe(200);
      },
      { timeout: 30_000, interval: 500 },
    );
    expect(again.body.result).toMatchObject({ resultType: "task", status: "working" });
    expect(again.body.result.taskId).not.toBe(failed.taskId);
    expect(await executor.queue.getJobState(again.body.result.taskId)).toBe("waiting");
  } finally {
    await store.close();
    await executor.close();
    await queueRedis.stop();
  }
}, 60_000);

it("a queue whose connection Redis resets as it opens takes jobs again once Redis answers, with no restart", async () => {
  // The reset hits the first command after the connection's handshake: BullMQ's version check when it
  // makes one, else the first job's script. Either way one call is refused, and the next ones get through.
  const relay = await startRedisRelay(redis.port);
  relay.resetOn("INFO", "EVALSHA", "EVAL");
  const executor = bullmqExecutor({ url: relay.url, queueName: "runs-reset" });
  try {
    await expect(executor.start(attempt("reset-1"))).rejects.toMatchObject({ status: 503, message: expect.stringMatching(/^The task queue is unavailable: /) });
    await vi.waitFor(() => executor.start(attempt("reset-2")), { timeout: 10_000, interval: 200 });
    expect(await executor.queue.getJobState("reset-2")).toBe("waiting");
  } finally {
    await executor.close();
    await relay.close();
  }
});

it("refuses options it cannot use, naming them", () => {
  expect(() => bullmqExecutor({})).toThrow("bullmqExecutor needs a url or a connection");
  expect(() => bullmqExecutor({ url: redis.url, timeoutMs: 0 })).toThrow("timeoutMs must be positive");
  expect(() => bullmqExecutor({ url: redis.url, keepJobs: -1 })).toThrow("keepJobs must be a non-negative integer");
});

it("a task cancelled on a web instance before any worker took it loses its queued job", async () => {
  const executor = bullmqExecutor({ url: redis.url, queueName: "runs-d" });
  const store = redisTaskStore({ url: redis.url, prefix: "forget-runs", secret: "s" });
  try {
    const render = defineTaskRun({ name: "render", run: () => "rendered" });
    const tool = defineTool({ name: "render", handler: (event) => mcpTask(event, { run: render, input: {} }) });
    const app = appFor(defineMcpHandler({ name: "t", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ store, runs: [render], executor })] }));
    const { taskId } = (await call(app, "tools/call", { name: "render" }, { caps })).body.result;
    expect(await executor.queue.getJobState(taskId)).toBe("waiting");
    expect((await call(app, "tasks/cancel", { taskId }, { caps })).body.result).toMatchObject({ resultType: "complete" });
    await expect.poll(() => executor.queue.getJob(taskId)).toBeUndefined();
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.status).toBe("cancelled");
  } finally {
    await store.close();
    await executor.close();
  }
});
