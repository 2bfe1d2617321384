// An instance lost without a drain: killed with SIGKILL, or paused with SIGSTOP past its lease and continued.
// Real demo processes on a real redis-server; a named run (durable_steps, durable_ask) goes on elsewhere a
// lease later as its next attempt, from its checkpoint or with its kept answers; a closure (steps) fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { DEMO_PREFIX } from "../../examples/demo/environment.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { createTestClient } from "../../src/tasks/testing/index.ts";
import { accept, createTask, demoCluster, eventually, follow, stepShown, taskWithMeta, type Instance } from "./cluster.ts";

const LEASE_MS = 1000;
const cluster = demoCluster({ leaseMs: LEASE_MS, drainMs: 1000 });
let victim: Instance;
let staller: Instance;
let asker: Instance;
let s1: Instance;
let s2: Instance;
beforeAll(async () => {
  // Started together: a process start is most of these tests' time.
  [victim, staller, asker, s1, s2] = await Promise.all(["victim", "staller", "asker", "s1", "s2"].map((name) => cluster.start(name)));
}, 120_000);

const byName = (name: string) => cluster.instances.find((i) => i.name === name)!;

describe("MCP_TASKS_LEASE_MS", () => {
  it("sets the instance's lease in Redis", async () => {
    const instance = await cluster.start("leased", { MCP_TASKS_LEASE_MS: "1500" });
    expect(instance.output()).toContain("lease 1500 ms");
    const id = await createTask(instance.client, "slow_compute", { seconds: 60, label: "leased" });
    // Every lease in Redis: this instance's is the one above the others' 1000 ms.
    const leases = (await cluster.redis.cli("KEYS", "{h3-mcp-demo}:lease:*")).split("\n").filter(Boolean);
    expect(leases.length).toBeGreaterThan(0);
    const ttls = await Promise.all(leases.map(async (key) => Number(await cluster.redis.cli("PTTL", key))));
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1500);
    }
    expect(ttls.some((ttl) => ttl > LEASE_MS)).toBe(true);
    await instance.client.cancelTask(id);
    await instance.stop("SIGKILL");
  });

  it("refuses a value that is not a whole number of milliseconds, naming the variable", async () => {
    await expect(cluster.start("bad", { MCP_TASKS_LEASE_MS: "soon" })).rejects.toThrow(/MCP_TASKS_LEASE_MS must be a whole number of milliseconds, got "soon"/);
  });
});

describe("SIGKILL", () => {
  it("runs durable_steps' next attempt on exactly one other instance from its checkpoint, working throughout; the closure steps fails a lease later", async () => {
    const id = await createTask(victim.client, "durable_steps", { steps: 20, stepMs: 100 });
    const closure = await createTask(victim.client, "steps", { steps: 1000, stepMs: 100 });
    await eventually(async () => expect(await stepShown(s1.client, id)).toBeGreaterThanOrEqual(2));
    const listener = await s1.client.listen([id, closure]);
    const following = follow(s2.client, id);
    const closureFollowed = follow(s1.client, closure);

    await victim.stop("SIGKILL");
    const { statuses, attempts, task } = await following;
    expect(statuses).toEqual(["working", "completed"]);
    expect(attempts).toEqual([1, 2]);
    const { resumedFrom } = task.result.structuredContent;
    expect(task.result.structuredContent).toEqual({ steps: 20, attempt: 2, resumedFrom });
    expect(resumedFrom).toBeGreaterThanOrEqual(2);
    // One claim among the four live instances, from the step the lost attempt saved last.
    const { started } = cluster.attempts(id);
    expect(started).toEqual([
      { instance: "victim", attempt: 1, from: 0 },
      { instance: expect.not.stringMatching(/^victim$/), attempt: 2, from: resumedFrom },
    ]);
    // Pushed to a listen stream too: no status but working until the end, and a frame when attempt 2 started.
    await listener.until((t) => t.taskId === id && t.status === "completed");
    expect(listener.seen.filter((t) => t.taskId === id).map((t) => t.status)).toEqual(["working", "working", "completed"]);

    const lost = await closureFollowed;
    expect(lost.statuses).toEqual(["working", "failed"]);
    expect(lost.task.error).toEqual({ code: -32603, message: "The server instance running this task was lost" });
    expect(cluster.attempts(closure).started).toEqual([]);
    await listener.close();
  });

  it("gives durable_ask's next attempt the kept answer to first without asking it again, and keeps second open under its wire key", async () => {
    const id = await createTask(asker.client, "durable_ask");
    await eventually(async () => expect(Object.keys((await s1.client.getTask(id)).inputRequests ?? {})).toEqual(["first"]));
    await s1.client.updateTask(id, { first: accept("one") });
    await eventually(async () => expect(Object.keys((await s1.client.getTask(id)).inputRequests ?? {})).toEqual(["second"]));
    const following = follow(s2.client, id);

    await asker.stop("SIGKILL");
    await eventually(async () => expect((await taskWithMeta(s1.client, id)).attempt).toBe(2));
    // The next attempt asked `first` only to get the kept answer back: the task went on waiting for `second`.
    await eventually(async () => expect((await s1.client.getTask(id)).status).toBe("input_required"));
    await s1.client.updateTask(id, { second: accept("two") });
    const { statuses, asked, task } = await following;
    expect(asked).toEqual(["second"]);
    expect(statuses.slice(0, -1).every((s) => s === "input_required" || s === "working")).toBe(true);
    expect(task.result.structuredContent).toEqual({ first: "one", second: "two", attempt: 2 });
    expect(cluster.attempts(id).started.map((s) => [s.instance === "asker", s.attempt])).toEqual([
      [true, 1],
      [false, 2],
    ]);
  });
});

describe("SIGSTOP past the lease, then SIGCONT", () => {
  it("fences the old attempt: its writes are refused and the one result is attempt 2's", async () => {
    const id = await createTask(staller.client, "durable_steps", { steps: 40, stepMs: 100 });
    await eventually(async () => expect(await stepShown(s1.client, id)).toBeGreaterThanOrEqual(2));
    const following = follow(s2.client, id);
    staller.signal("SIGSTOP");
    await eventually(async () => expect((await taskWithMeta(s1.client, id)).attempt).toBe(2));
    staller.signal("SIGCONT");
    // Woken, the old attempt learns it lost the task: its next checkpoint is refused or its lease is gone.
    await eventually(() => expect(cluster.attempts(id).stopped).toHaveLength(1));
    const [stale] = cluster.attempts(id).stopped;
    expect(stale).toMatchObject({ instance: "staller", attempt: 1, reason: expect.stringMatching(/^Attempt 1 was fenced/) });

    const { statuses, attempts, messages, task } = await following;
    expect(statuses).toEqual(["working", "completed"]);
    expect(attempts).toEqual([1, 2]);
    // Attempt 2 went on from the last step attempt 1 saved before it stopped; no step of attempt 1 showed after.
    expect(task.result.structuredContent).toEqual({ steps: 40, attempt: 2, resumedFrom: stale!.after });
    const firstOfAttempt2 = messages.findIndex((m) => m.message.endsWith("(attempt 2)"));
    expect(messages.slice(firstOfAttempt2).every((m) => m.message.endsWith("(attempt 2)"))).toBe(true);
    expect(cluster.attempts(id).started.map((s) => s.attempt)).toEqual([1, 2]);
    // The stopped attempt's end changed nothing: the result read now is attempt 2's still.
    expect((await staller.client.getTask(id)).result).toEqual(task.result);
  });
});

describe("a task cancelled while waiting for its next attempt", () => {
  let watcherStore: RedisTaskStore;
  afterAll(() => watcherStore?.close());

  it("is never run again: neither after its instance was lost, nor after a drain handed it off", async () => {
    // A reader that serves no runs (so claims nothing): the only instance left that may cancel while the
    // others are paused.
    watcherStore = redisTaskStore({ url: cluster.redis.url, prefix: DEMO_PREFIX, leaseMs: LEASE_MS, secret: "durability-test-secret" });
    const watcher = createTestClient(createDemo({ store: watcherStore }).app);
    const lostOne = await createTask(staller.client, "durable_steps", { steps: 1000, stepMs: 100 });
    const handedOff = await createTask(s1.client, "durable_steps", { steps: 1000, stepMs: 100 });
    await eventually(async () => expect(Math.min(await stepShown(watcher, lostOne), await stepShown(watcher, handedOff))).toBeGreaterThanOrEqual(1));

    s2.signal("SIGSTOP");
    await staller.stop("SIGKILL");
    s1.signal("SIGTERM");
    expect(await s1.exited).toEqual({ code: 0, signal: null });
    expect(s1.output()).toContain("drained: 0 finished, 1 handed off, 0 failed, 0 fenced");
    // Both wait for a claim: the hand-off at once, the lost one once its lease lapsed.
    await eventually(async () => expect((await watcherStore.claimable(["durable_steps"], 10)).map((t) => t.id).sort()).toEqual([lostOne, handedOff].sort()));
    for (const id of [lostOne, handedOff]) expect((await watcher.getTask(id)).status).toBe("working");

    await watcher.cancelTask(lostOne);
    await watcher.cancelTask(handedOff);
    expect(await watcherStore.claimable(["durable_steps"], 10)).toEqual([]);
    s2.signal("SIGCONT");
    // s2 runs again, and claims: a new task's attempt 1 there ends, and a lease passes for its looks at the
    // waiting list (every third of a lease) and the hand-off message it missed while paused.
    const fresh = await createTask(s2.client, "durable_steps", { steps: 2, stepMs: 10 });
    expect((await s2.client.waitForTask(fresh)).status).toBe("completed");
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
    for (const id of [lostOne, handedOff]) {
      expect((await s2.client.getTask(id)).status).toBe("cancelled");
      expect(cluster.attempts(id).started.map((s) => s.attempt)).toEqual([1]);
    }
  });
});

describe("max attempts", () => {
  it("fails durable_steps once its third attempt is lost, with the count in the error data", async () => {
    // s2 is still live; three more, so that each of three kills leaves an instance to claim or judge.
    await Promise.all(["m1", "m2", "m3"].map((name) => cluster.start(name)));
    const id = await createTask(s2.client, "durable_steps", { steps: 10_000, stepMs: 100 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await eventually(() => expect(cluster.attempts(id).started.map((s) => s.attempt)).toContain(attempt));
      await byName(cluster.attempts(id).started.find((s) => s.attempt === attempt)!.instance).stop("SIGKILL");
    }
    const survivor = cluster.instances.find((i) => i.alive() && i.name !== "leased")!;
    const failed = await survivor.client.waitForTask(id, { timeoutMs: 30_000 });
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, data: { attempts: 3, reason: "lost" } } });
    expect(cluster.attempts(id).started.map((s) => s.attempt)).toEqual([1, 2, 3]);
  });
});
