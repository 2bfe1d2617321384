// Runs found by name passed from one attempt to the next on a real redis-server, with several instances in
// this process (each its own store, lease and runtime): an instance whose lease is gone loses its attempt
// (fenced: its signal aborts, its writes are refused) and another instance serving the run claims the next
// one, with the checkpoint and the answered rounds the previous attempt kept; at most maxAttempts, then
// failed with the count; a drain hands off at once; cancel wins over a hand-off; a run nobody serves fails
// as unserved; an older run version leaves the task to a newer one.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, type McpTaskRunContext, type McpTaskRunDefinition } from "../../src/tasks/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { until } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const ATTEMPT = "io.github.h3-mcp/attempt";
const LEASE_MS = 300;

let redis: RedisServer;
const open: RedisTaskStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close().catch(() => {})));
});
afterAll(() => redis?.stop());

/** What every attempt of every instance did. */
interface Seen {
  who: string;
  attempt: number;
  checkpoint: unknown;
}

/** Waits until the task's signal aborts, and rejects with its reason (as a run that honours it does). */
function blockUntilAborted(task: McpTaskRunContext, reasons: string[]): Promise<never> {
  return new Promise((_, reject) => {
    const stop = () => {
      reasons.push((task.signal.reason as Error).message);
      reject(task.signal.reason);
    };
    if (task.signal.aborted) stop();
    else task.signal.addEventListener("abort", stop);
  });
}

/** A steps run: checkpoints after each step; `blocks` makes this instance's attempts stop after `blockAt` steps. */
function stepsRun(who: string, seen: Seen[], reasons: string[], opts: { blocks?: boolean; blockAt?: number; firstOnly?: boolean; maxAttempts?: number; version?: number; name?: string } = {}) {
  return defineTaskRun({
    name: opts.name ?? "steps",
    version: opts.version ?? 1,
    maxAttempts: opts.maxAttempts ?? 3,
    async run(task, input: { steps: number }) {
      seen.push({ who, attempt: task.attempt, checkpoint: task.checkpoint });
      const from = (task.checkpoint as { done: number } | undefined)?.done ?? 0;
      for (let done = from; done < input.steps; done++) {
        if (opts.blocks && done >= (opts.blockAt ?? 1) && (!opts.firstOnly || task.attempt === 1)) await blockUntilAborted(task, reasons);
        await task.saveCheckpoint({ done: done + 1 });
      }
      return { content: [], structuredContent: { steps: input.steps, attempt: task.attempt, resumedFrom: from } };
    },
  });
}

function askRun(who: string, seen: Seen[]) {
  const form = (message: string) => mcpElicit({ message, requestedSchema: { type: "object", properties: { value: { type: "string" } } } });
  return defineTaskRun({
    name: "ask",
    maxAttempts: 3,
    async run(task) {
      seen.push({ who, attempt: task.attempt, checkpoint: task.checkpoint });
      const { first } = await task.requestInput({ first: form("First?") });
      const { second } = await task.requestInput({ second: form("Second?") });
      return { content: [], structuredContent: { first: first?.content?.value ?? null, second: second?.content?.value ?? null, attempt: task.attempt } };
    },
  });
}

/** One server instance on the shared Redis, serving `runs` (each also as a tool of its name). */
function instance(prefix: string, runs: McpTaskRunDefinition[], leaseMs = LEASE_MS) {
  const store = redisTaskStore({ url: redis.url, secret: "redelivery-secret", prefix, leaseMs });
  open.push(store);
  const plugin = mcpTasks({ store, runs });
  const tools = runs.map((run) =>
    defineTool({
      name: run.name,
      execution: { taskSupport: "required" },
      inputSchema: { type: "object", properties: { steps: { type: "integer" } } },
      handler: (event, args) => mcpTask(event, { run, input: args ?? {} }),
    }),
  );
  const app = appFor(defineMcpHandler({ name: "redelivery", version: "1", tools }, { extensionPlugins: [plugin] }));
  return {
    store,
    plugin,
    create: async (name: string, args?: Record<string, unknown>) => (await call(app, "tools/call", { name, ...(args && { arguments: args }) }, { caps })).body.result,
    get: async (taskId: string) => (await call(app, "tasks/get", { taskId }, { caps })).body.result,
    answer: (taskId: string, inputResponses: unknown) => call(app, "tasks/update", { taskId, inputResponses }, { caps }),
    cancel: (taskId: string) => call(app, "tasks/cancel", { taskId }, { caps }),
    /** The instance is lost: its lease is gone from Redis (as when it crashed or stalled past it). */
    lose: () => redis.cli("DEL", store.leaseKey),
  };
}

const prefixOf = () => `redeliver-${randomUUID().slice(0, 8)}`;
const accept = (value: string) => ({ action: "accept", content: { value } });

/** A fresh prefix, instance a serving the steps run (stalling as `opts` says), and a task whose attempt 1 runs on it. */
async function firstAttempt(opts: Parameters<typeof stepsRun>[3] = {}, steps = 3) {
  const prefix = prefixOf();
  const seen: Seen[] = [];
  const reasons: string[] = [];
  const a = instance(prefix, [stepsRun("a", seen, reasons, { blocks: true, ...opts })]);
  const { taskId } = await a.create("steps", { steps });
  await until(() => seen.length === 1);
  return { prefix, seen, reasons, a, taskId };
}

describe("runs found by name on Redis", () => {
  it("delivers a lost attempt again on exactly one other instance, from the checkpoint, working throughout", async () => {
    const prefix = prefixOf();
    const seen: Seen[] = [];
    const reasons: string[] = [];
    // Instance a, its lease gone, lives on and may claim the next attempt too: only its first attempt stalls.
    const a = instance(prefix, [stepsRun("a", seen, reasons, { blocks: true, firstOnly: true })]);
    instance(prefix, [stepsRun("b", seen, reasons)]);
    instance(prefix, [stepsRun("c", seen, reasons)]);
    const watcher = instance(prefix, []);
    const { taskId } = await a.create("steps", { steps: 3 });
    await until(() => seen.length === 1);
    expect((await watcher.get(taskId))._meta[ATTEMPT]).toBe(1);

    await a.lose();
    const statuses = new Set<string>();
    await until(async () => {
      const task = await watcher.get(taskId);
      statuses.add(task.status);
      return task.status === "completed";
    }, 10_000, "the next attempt finishing");
    // Same task, working until the next attempt finished it: never failed in between.
    expect([...statuses]).toEqual(statuses.size === 1 ? ["completed"] : ["working", "completed"]);
    const done = await watcher.get(taskId);
    expect(done.result.structuredContent).toEqual({ steps: 3, attempt: 2, resumedFrom: 1 });
    expect(done._meta[ATTEMPT]).toBe(2);
    // One attempt each: the lost one, and one claim among the instances serving the run.
    expect(seen.map((s) => s.attempt).sort()).toEqual([1, 2]);
    expect(seen.find((s) => s.attempt === 2)).toMatchObject({ checkpoint: { done: 1 } });
    // The lost attempt was told why it stopped.
    await until(() => reasons.length === 1);
    expect(reasons[0]).toMatch(/fenced.*lease/);
  });

  it("refuses a fenced attempt's writes in the store: its late checkpoint never lands and its signal says why", async () => {
    const prefix = prefixOf();
    const seen: Seen[] = [];
    const reasons: string[] = [];
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let late: Promise<string> | undefined;
    const stale = defineTaskRun({
      name: "steps",
      maxAttempts: 3,
      async run(task) {
        seen.push({ who: "a", attempt: task.attempt, checkpoint: task.checkpoint });
        await task.saveCheckpoint({ done: 1 });
        // A stall (a paused process): the attempt wakes up after another instance claimed the task, and writes.
        await woken;
        late = task.saveCheckpoint({ done: 99 }).then(() => "written", (error: Error) => error.message);
        await late;
        reasons.push((task.signal.reason as Error).message);
        return "the stale attempt's result";
      },
    });
    // Its lease is long: it does not notice the loss by itself before it writes.
    const a = instance(prefix, [stale], 10_000);
    const b = instance(prefix, [stepsRun("b", seen, reasons, { blocks: true, blockAt: 2 })]);
    const { taskId } = await a.create("steps", { steps: 3 });
    await until(() => seen.length === 1);
    await a.lose();
    await until(() => seen.length === 2, 10_000, "the claim");
    await until(async () => ((await b.store.loadRun(taskId)) as { record?: { checkpoint?: unknown } }).record?.checkpoint !== undefined);
    wake();
    await until(() => reasons.length === 1, 10_000, "the stale write's answer");
    expect(await late).toMatch(/fenced.*lease/);
    expect(reasons[0]).toMatch(/fenced.*lease/);
    expect(seen[1]).toMatchObject({ who: "b", attempt: 2, checkpoint: { done: 1 } });
    // What the store keeps is the holder's checkpoint, and the task is the holder's.
    expect(await b.store.loadRun(taskId)).toMatchObject({ outcome: "loaded", record: { checkpoint: { done: 2 } } });
    expect(await b.get(taskId)).toMatchObject({ status: "working", _meta: { [ATTEMPT]: 2 } });
  });

  it("fails the task once no attempt is left, with the count in the error data", async () => {
    const { prefix, seen, reasons, a, taskId } = await firstAttempt({ maxAttempts: 2 });
    const watcher = instance(prefix, []);
    const b = instance(prefix, [stepsRun("b", seen, reasons, { blocks: true, maxAttempts: 2 })]);
    await a.store.close();
    await a.lose();
    await until(() => seen.length === 2, 10_000, "attempt 2");
    // The next instance to claim it finds no attempt left.
    instance(prefix, [stepsRun("c", seen, reasons, { maxAttempts: 2 })]);
    await b.store.close();
    await b.lose();
    await until(async () => (await watcher.get(taskId)).status === "failed", 10_000, "the task failing");
    const failed = await watcher.get(taskId);
    expect(failed.error).toMatchObject({ code: -32603, data: { attempts: 2, reason: "lost" } });
    expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
  });

  it("spends no attempt on a drain's hand-off: handed off three times past maxAttempts 2, two losses still fail it, counting both", async () => {
    const { prefix, seen, reasons, a, taskId } = await firstAttempt({ maxAttempts: 2 });
    const watcher = instance(prefix, []);
    const blocking = (who: string) => instance(prefix, [stepsRun(who, seen, reasons, { blocks: true, maxAttempts: 2 })]);
    // Each drain hands the task to the one instance then serving the run besides the drained one.
    let holder = a;
    for (const who of ["b", "c", "d"]) {
      const next = blocking(who);
      expect(await holder.plugin.drain({ deadlineMs: 0 })).toEqual({ finished: 0, handedOff: 1, failed: 0, fenced: 0 });
      await until(() => seen.length === ["a", "b", "c", "d"].indexOf(who) + 1, 10_000, `attempt ${seen.length + 1} on ${who}`);
      expect(await watcher.get(taskId)).toMatchObject({ status: "working", _meta: { [ATTEMPT]: seen.length } });
      holder = next;
    }
    expect(seen.map((s) => [s.who, s.attempt])).toEqual([["a", 1], ["b", 2], ["c", 3], ["d", 4]]);
    expect(seen.at(-1)!.checkpoint).toEqual({ done: 1 });
    expect(reasons).toEqual([1, 2, 3].map((n) => expect.stringMatching(new RegExp(`^Attempt ${n} was stopped: .*shutdown`))));

    // Lost attempts still count: attempt 4 lost (1 of 2), attempt 5 lost (2 of 2) fails it.
    for (const who of ["e", "f"]) {
      const next = who === "e" ? blocking(who) : instance(prefix, [stepsRun(who, seen, reasons, { maxAttempts: 2 })]);
      await holder.store.close();
      await holder.lose();
      if (who === "e") await until(() => seen.length === 5, 10_000, "attempt 5 on e");
      holder = next;
    }
    await until(async () => (await watcher.get(taskId)).status === "failed", 10_000, "the task failing");
    const failed = await watcher.get(taskId);
    expect(failed.error).toEqual({ code: -32603, message: "The server instance running this task was lost", data: { attempts: 5, reason: "lost", handedOff: 3 } });
    expect(seen.map((s) => s.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it("hands a retryable task off at once on drain, and a task cancelled while released is never run again", async () => {
    const { prefix, seen, reasons, a, taskId } = await firstAttempt();
    const watcher = instance(prefix, []);
    expect(await a.plugin.drain({ deadlineMs: 20 })).toEqual({ finished: 0, handedOff: 1, failed: 0, fenced: 0 });
    expect(reasons).toEqual([expect.stringMatching(/shutdown/)]);
    expect(await watcher.get(taskId)).toMatchObject({ status: "working", _meta: { [ATTEMPT]: 1 } });

    await watcher.cancel(taskId);
    expect((await watcher.get(taskId)).status).toBe("cancelled");
    // An instance serving the run now finds nothing to claim.
    const c = instance(prefix, [stepsRun("c", seen, reasons)]);
    expect(await c.store.claimable(["steps"], 10)).toEqual([]);
    expect(await c.store.claim(taskId)).toEqual({ outcome: "gone" });
    expect(seen).toHaveLength(1);
  });

  it("claims a drained instance's hand-off on another instance without waiting for a lease", async () => {
    const { prefix, seen, reasons, a, taskId } = await firstAttempt({}, 2);
    const b = instance(prefix, [stepsRun("b", seen, reasons)]);
    await a.plugin.drain({ deadlineMs: 0 });
    await until(async () => (await b.get(taskId)).status === "completed", 10_000, "the hand-off finishing");
    expect((await b.get(taskId)).result.structuredContent).toEqual({ steps: 2, attempt: 2, resumedFrom: 1 });
  });

  it("stores a run found by name created on a draining instance for another instance, which runs it as attempt 1", async () => {
    const prefix = prefixOf();
    const seen: Seen[] = [];
    const reasons: string[] = [];
    const a = instance(prefix, [stepsRun("a", seen, reasons)]);
    instance(prefix, [stepsRun("b", seen, reasons)]);
    await a.plugin.drain({ deadlineMs: 0 });
    const { taskId, status } = await a.create("steps", { steps: 2 });
    expect(status).toBe("working");
    await until(async () => (await a.get(taskId)).status === "completed", 10_000, "the other instance running it");
    expect((await a.get(taskId)).result.structuredContent).toEqual({ steps: 2, attempt: 1, resumedFrom: 0 });
    expect(seen).toEqual([{ who: "b", attempt: 1, checkpoint: undefined }]);
  });

  it("fails a task whose run no live instance serves after three leases, saying so", async () => {
    const { prefix, a, taskId } = await firstAttempt();
    const watcher = instance(prefix, []);
    await a.store.close();
    await a.lose();
    await until(async () => (await watcher.get(taskId)).status === "failed", 10_000, "the unserved task failing");
    expect((await watcher.get(taskId)).error).toMatchObject({ code: -32603, message: "No server instance serves this task's run", data: { attempts: 1, reason: "unserved" } });
  });

  it("leaves a task of a newer run version to an instance serving it", async () => {
    const prefix = prefixOf();
    const seen: Seen[] = [];
    const reasons: string[] = [];
    const a = instance(prefix, [stepsRun("a", seen, reasons, { blocks: true, version: 2 })]);
    const old = instance(prefix, [stepsRun("old", seen, reasons, { version: 1 })]);
    const { taskId } = await a.create("steps", { steps: 2 });
    await until(() => seen.length === 1);
    await a.store.close();
    await a.lose();
    const newer = instance(prefix, [stepsRun("newer", seen, reasons, { version: 2 })]);
    await until(async () => (await newer.get(taskId)).status === "completed", 10_000, "the newer instance finishing it");
    expect(seen.map((s) => s.who)).toEqual(["a", "newer"]);
    expect((await old.get(taskId)).result.structuredContent).toMatchObject({ attempt: 2 });
  });

  it("gives a later attempt the answered rounds back and keeps the open round's wire key", async () => {
    const prefix = prefixOf();
    const seen: Seen[] = [];
    const a = instance(prefix, [askRun("a", seen)]);
    const watcher = instance(prefix, []);
    const { taskId } = await a.create("ask");
    await until(async () => (await watcher.get(taskId)).status === "input_required");
    expect(Object.keys((await watcher.get(taskId)).inputRequests)).toEqual(["first"]);
    await watcher.answer(taskId, { first: accept("one") });
    await until(async () => Object.keys((await watcher.get(taskId)).inputRequests ?? {}).includes("second"));

    const b = instance(prefix, [askRun("b", seen)]);
    await a.store.close();
    await a.lose();
    await until(async () => (await watcher.get(taskId))._meta[ATTEMPT] === 2, 10_000, "attempt 2 claiming the task");
    // Attempt 2 asked `first` again and got the kept answer; it waits on the same open round.
    const waiting = await watcher.get(taskId);
    expect(waiting.status).toBe("input_required");
    expect(Object.keys(waiting.inputRequests)).toEqual(["second"]);
    expect(seen.map((s) => [s.who, s.attempt])).toEqual([["a", 1], ["b", 2]]);

    await b.answer(taskId, { second: accept("two") });
    await until(async () => (await watcher.get(taskId)).status === "completed");
    expect((await watcher.get(taskId)).result.structuredContent).toEqual({ first: "one", second: "two", attempt: 2 });
  });
  it("gives a later attempt a round answered after the attempt that asked it was lost, without asking again", async () => {
    const prefix = prefixOf();
    const seen: Seen[] = [];
    const a = instance(prefix, [askRun("a", seen)]);
    const watcher = instance(prefix, []);
    const { taskId } = await a.create("ask");
    await until(async () => (await watcher.get(taskId)).status === "input_required");
    await a.store.close();
    await a.lose();
    // Answered while no attempt holds the task: the chart keeps the answer.
    await watcher.answer(taskId, { first: accept("late") });
    expect((await watcher.get(taskId)).status).toBe("working");

    instance(prefix, [askRun("b", seen)]);
    await until(async () => Object.keys((await watcher.get(taskId)).inputRequests ?? {}).includes("second"), 10_000, "attempt 2 asking the second round");
    expect((await watcher.get(taskId))._meta[ATTEMPT]).toBe(2);
    await watcher.answer(taskId, { second: accept("two") });
    await until(async () => (await watcher.get(taskId)).status === "completed");
    expect((await watcher.get(taskId)).result.structuredContent).toEqual({ first: "late", second: "two", attempt: 2 });
  });
});
