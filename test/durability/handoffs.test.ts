// A drain's hand-off spends none of a run's attempts: a durable_steps task (maxAttempts 3) handed from
// instance to instance by three drains in a row, each instance holding it sent SIGTERM in turn, completes as
// attempt 4, each attempt going on from the step the previous one saved last. The lease is 30 s, far longer
// than the test, so only the hand-offs explain the claims. Real processes on a real redis-server.
import { afterAll, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { DEMO_PREFIX } from "../../examples/demo/environment.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { createTestClient } from "../../src/tasks/testing/index.ts";
import { createTask, demoCluster, eventually, follow, stepShown } from "./cluster.ts";

const cluster = demoCluster({ leaseMs: 30_000, drainMs: 200 });
let watcherStore: RedisTaskStore | undefined;
afterAll(() => watcherStore?.close());

it("hands a run with maxAttempts 3 off three times in a row, and it completes as attempt 4 from the checkpoint carried on", async () => {
  // Started together: a process start is most of this test's time.
  const instances = await Promise.all(["one", "two", "three", "four"].map((name) => cluster.start(name)));
  // Read from a reader that serves no runs and stays up throughout.
  watcherStore = redisTaskStore({ url: cluster.redis.url, prefix: DEMO_PREFIX, leaseMs: 30_000, secret: "durability-test-secret" });
  const watcher = createTestClient(createDemo({ store: watcherStore }).app);
  const id = await createTask(instances[0]!.client, "durable_steps", { steps: 40, stepMs: 100 });
  const followed = follow(watcher, id, 60_000);

  for (let attempt = 1; attempt <= 3; attempt++) {
    // Whichever instance claimed this attempt holds it: it is the one sent SIGTERM, once it saved a step of its own.
    const started = await eventually(() => {
      const seen = cluster.attempts(id).started;
      expect(seen.map((s) => s.attempt)).toEqual(Array.from({ length: attempt }, (_, i) => i + 1));
      return seen.at(-1)!;
    });
    await eventually(async () => expect(await stepShown(watcher, id)).toBeGreaterThan(started.from ?? 0));
    const holder = instances.find((i) => i.name === started.instance)!;
    holder.signal("SIGTERM");
    expect(await holder.exited).toEqual({ code: 0, signal: null });
    expect(holder.output()).toContain("drained: 0 finished, 1 handed off, 0 failed, 0 fenced");
  }

  const { statuses, attempts, task } = await followed;
  expect(statuses).toEqual(["working", "completed"]);
  expect(attempts).toEqual([1, 2, 3, 4]);
  const { started, stopped } = cluster.attempts(id);
  // Four attempts on four instances; the first three stopped by their drains, each next one going on from the
  // step the one before saved last.
  expect(new Set(started.map((s) => s.instance)).size).toBe(4);
  expect(stopped.map((s) => [s.attempt, s.instance])).toEqual(started.slice(0, 3).map((s) => [s.attempt, s.instance]));
  for (const [i, stop] of stopped.entries()) {
    expect(stop.reason).toMatch(new RegExp(`^Attempt ${i + 1} was stopped: this server instance shut down`));
    expect(started[i + 1]!.from).toBe(stop.after);
  }
  expect(stopped[2]!.after).toBeGreaterThan(stopped[0]!.after);
  expect(task.result.structuredContent).toEqual({ steps: 40, attempt: 4, resumedFrom: stopped[2]!.after });
}, 120_000);
