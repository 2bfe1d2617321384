// A rolling restart of every instance, one after the other (the replacements up, then each old one sent
// SIGTERM in turn), while several durable_steps tasks run: each drain hands its tasks to the others at its deadline,
// none is lost or failed, all complete, and no two attempts of a task ran at once (each attempt went on
// from the step the one before it saved last, and stopped). Real processes on a real redis-server.
import { afterAll, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { DEMO_PREFIX } from "../../examples/demo/environment.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { createTestClient } from "../../src/tasks/testing/index.ts";
import { createTask, demoCluster, follow } from "./cluster.ts";

const cluster = demoCluster({ leaseMs: 1000, drainMs: 300 });
let watcherStore: RedisTaskStore | undefined;
afterAll(() => watcherStore?.close());

it("loses no task, runs each to its end, and never two attempts of one at once", async () => {
  // The replacements start with the old instances, before the tasks: a process start takes seconds on a
  // loaded machine, and a replacement started between two drains could outlast the runs it should take over.
  const [old1, old2] = await Promise.all(["old-1", "old-2", "new-1", "new-2"].map((name) => cluster.start(name)));
  const old = [old1!, old2!];
  // Read from a reader that serves no runs and stays up through the restart.
  watcherStore = redisTaskStore({ url: cluster.redis.url, prefix: DEMO_PREFIX, leaseMs: 1000, secret: "durability-test-secret" });
  const watcher = createTestClient(createDemo({ store: watcherStore }).app);
  const ids = await Promise.all([0, 1, 2, 3].map((n) => createTask(old[n % 2]!.client, "durable_steps", { steps: 80, stepMs: 100 })));
  const followed = ids.map((id) => follow(watcher, id, 60_000));

  for (const instance of old) {
    instance.signal("SIGTERM");
    expect(await instance.exited).toEqual({ code: 0, signal: null });
    expect(instance.output()).toMatch(/drained: \d+ finished, [1-9]\d* handed off, 0 failed, 0 fenced/);
  }

  for (const [n, id] of ids.entries()) {
    const { statuses, task } = await followed[n]!;
    expect(statuses).toEqual(["working", "completed"]);
    const { started, stopped } = cluster.attempts(id);
    const last = started.at(-1)!;
    expect(task.result.structuredContent).toEqual({ steps: 80, attempt: last.attempt, resumedFrom: last.from });
    // Attempts 1, 2, … each started once; every one but the last stopped (handed off) where it ran, and the
    // next went on from the step it saved last.
    expect(started.map((s) => s.attempt)).toEqual(started.map((_, i) => i + 1));
    expect(stopped.map((s) => [s.attempt, s.instance])).toEqual(started.slice(0, -1).map((s) => [s.attempt, s.instance]));
    for (const [i, stop] of stopped.entries()) {
      expect(stop.reason).toMatch(/shut down/);
      expect(started[i + 1]!.from).toBe(stop.after);
    }
    expect(last.instance).toMatch(/^new-/);
  }
}, 120_000);
