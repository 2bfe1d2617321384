// Real demo processes sharing one Postgres database (DATABASE_URL): a process killed with SIGKILL, paused
// with SIGSTOP past its lease and continued, drained with SIGTERM, a rolling restart under load, and the
// database itself restarted. A run found by name goes on elsewhere from its checkpoint; a closure of a lost
// process fails; requests meanwhile are answered 503 with Retry-After; nothing accepted is lost.
import { beforeAll, describe, expect, it } from "vitest";
import { createTask, demoCluster, eventually, follow, stepShown, taskWithMeta, type Instance } from "../durability/cluster.ts";
import { postgresBackend } from "./demo-cluster.ts";

const LEASE_MS = 1000;
const backend = postgresBackend();
const cluster = demoCluster({ leaseMs: LEASE_MS, drainMs: 1000, backend });
let victim: Instance;
let staller: Instance;
let draining: Instance;
let s1: Instance;
let s2: Instance;
beforeAll(async () => {
  // Started together: a process start is most of these tests' time. `draining`'s lease is long, so only
  // its drain's hand-off can explain another process claiming its run.
  [victim, staller, draining, s1, s2] = await Promise.all([
    cluster.start("victim"),
    cluster.start("staller"),
    cluster.start("draining", { MCP_TASKS_LEASE_MS: "30000" }),
    cluster.start("s1"),
    cluster.start("s2"),
  ]);
}, 120_000);

describe("demo processes sharing one Postgres database", () => {
  it("prints the database, the schema and the lease it runs on, never the password", () => {
    expect(victim.output()).toContain(`tasks in Postgres at ${backend.server.url}, schema "h3_mcp_demo", lease ${LEASE_MS} ms`);
  });

  it("SIGKILL: durable_steps' next attempt runs on one other process from its checkpoint; the closure steps fails", async () => {
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
    expect(cluster.attempts(id).started).toEqual([
      { instance: "victim", attempt: 1, from: 0 },
      { instance: expect.not.stringMatching(/^victim$/), attempt: 2, from: resumedFrom },
    ]);
    // Pushed to another process's listen stream over LISTEN/NOTIFY: working until the end, a frame for attempt 2.
    await listener.until((t) => t.taskId === id && t.status === "completed");
    expect(listener.seen.filter((t) => t.taskId === id).map((t) => t.status)).toEqual(["working", "working", "completed"]);
    const lost = await closureFollowed;
    expect(lost.statuses).toEqual(["working", "failed"]);
    expect(lost.task.error).toEqual({ code: -32603, message: "The server instance running this task was lost" });
    await listener.close();
  });

  it("SIGSTOP past the lease, then SIGCONT: the stopped attempt is fenced and the one result is attempt 2's", async () => {
    const id = await createTask(staller.client, "durable_steps", { steps: 40, stepMs: 100 });
    await eventually(async () => expect(await stepShown(s1.client, id)).toBeGreaterThanOrEqual(2));
    const following = follow(s2.client, id);
    staller.signal("SIGSTOP");
    await eventually(async () => expect((await taskWithMeta(s1.client, id)).attempt).toBe(2));
    staller.signal("SIGCONT");
    await eventually(() => expect(cluster.attempts(id).stopped).toHaveLength(1));
    const [stale] = cluster.attempts(id).stopped;
    expect(stale).toMatchObject({ instance: "staller", attempt: 1, reason: expect.stringMatching(/^Attempt 1 was fenced/) });
    const { statuses, attempts, task } = await following;
    expect(statuses).toEqual(["working", "completed"]);
    expect(attempts).toEqual([1, 2]);
    expect(task.result.structuredContent).toEqual({ steps: 40, attempt: 2, resumedFrom: stale!.after });
    expect((await staller.client.getTask(id)).result).toEqual(task.result);
  });

  it("SIGTERM: a run still running at the drain's deadline is handed off and claimed at once elsewhere, from its checkpoint", async () => {
    const id = await createTask(draining.client, "durable_steps", { steps: 60, stepMs: 100 });
    await eventually(async () => expect(await stepShown(s1.client, id)).toBeGreaterThanOrEqual(2));
    const following = follow(s1.client, id);
    draining.signal("SIGTERM");
    expect(await draining.exited).toEqual({ code: 0, signal: null });
    expect(draining.output()).toContain("drained: 0 finished, 1 handed off, 0 failed, 0 fenced");
    const { statuses, attempts, task } = await following;
    expect(statuses).toEqual(["working", "completed"]);
    expect(attempts).toEqual([1, 2]);
    const { stopped } = cluster.attempts(id);
    expect(stopped).toEqual([{ instance: "draining", attempt: 1, after: expect.any(Number), reason: expect.stringMatching(/^Attempt 1 was stopped: this server instance shut down/) }]);
    expect(task.result.structuredContent).toEqual({ steps: 60, attempt: 2, resumedFrom: stopped[0]!.after });
  });

  it("a database restart: requests meanwhile get 503 with Retry-After; the run accepted before ends with one answer, which a listen stream elsewhere hears", async () => {
    const done = await createTask(s1.client, "durable_steps", { steps: 1, stepMs: 1 });
    expect((await s1.client.waitForTask(done)).status).toBe("completed");
    const id = await createTask(s1.client, "durable_steps", { steps: 30, stepMs: 100 });
    await eventually(async () => expect(await stepShown(s2.client, id)).toBeGreaterThanOrEqual(2));
    const listener = await s2.client.listen([id]);

    await backend.server.stop();
    const refused = await s2.client.request("tools/call", { name: "steps", arguments: { steps: 1, stepMs: 1 } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^The task store is unavailable: /) });
    const unread = await s1.client.request("tasks/get", { taskId: done });
    expect(unread.status).toBe(503);
    expect(unread.headers.get("retry-after")).toBeTruthy();
    await backend.server.start();

    // Nothing accepted is lost: the run ends, with one answer everywhere. It completes (here, or from its
    // checkpoint elsewhere if its lease lapsed meanwhile) unless a checkpoint it saved during the outage
    // failed after the store's time bound, which fails the run with the store's error.
    const { statuses, task } = await follow(s2.client, id, 60_000);
    expect(statuses[0]).toBe("working");
    const status = statuses.at(-1)!;
    if (status === "failed") {
      expect(task.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^The task store is unavailable: /) });
    } else {
      expect(status).toBe("completed");
      const last = cluster.attempts(id).started.at(-1)!;
      expect(task.result.structuredContent).toMatchObject({ steps: 30, attempt: last.attempt });
    }
    expect((await s1.client.getTask(id)).status).toBe(status);
    // The listen stream, whose LISTEN connection dropped with the database, still hears the end.
    await listener.until((t) => t.taskId === id && t.status === status, 30_000);
    await listener.close();
    expect((await s1.client.getTask(done)).status).toBe("completed");
    const after = await createTask(s2.client, "steps", { steps: 1, stepMs: 1 });
    expect((await s1.client.waitForTask(after)).status).toBe("completed");
  }, 90_000);

  it("a rolling restart under load, then every process restarted: no task lost, each run to its end, never two attempts at once", async () => {
    const [fresh1, fresh2] = await Promise.all([cluster.start("new-1"), cluster.start("new-2")]);
    const old = [s1, s2];
    const finished = await createTask(s1.client, "steps", { steps: 1, stepMs: 1 });
    expect((await s1.client.waitForTask(finished)).status).toBe("completed");
    const ids = await Promise.all([0, 1, 2, 3].map((n) => createTask(old[n % 2]!.client, "durable_steps", { steps: 60, stepMs: 100 })));
    const followed = ids.map((id) => follow(fresh1!.client, id, 60_000));
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
      expect(task.result.structuredContent).toEqual({ steps: 60, attempt: last.attempt, resumedFrom: last.from });
      // Attempts start in order, one at a time. A number may be skipped: an attempt claimed by an old
      // instance just as its drain began is handed off before its run starts, and never prints.
      expect(started[0]!.attempt).toBe(1);
      for (const [i, start] of started.entries()) if (i > 0) expect(start.attempt).toBeGreaterThan(started[i - 1]!.attempt);
      expect(stopped.map((s) => [s.attempt, s.instance])).toEqual(started.slice(0, -1).map((s) => [s.attempt, s.instance]));
      for (const [i, stop] of stopped.entries()) expect(started[i + 1]!.from).toBe(stop.after);
    }
    // Every process stopped, then one started on the database: every task is there, as it was.
    const before = await Promise.all([finished, ...ids].map((id) => fresh2!.client.getTask(id)));
    for (const instance of cluster.instances) if (instance.alive()) await instance.stop("SIGTERM");
    const reborn = await cluster.start("reborn");
    expect(await Promise.all([finished, ...ids].map((id) => reborn.client.getTask(id)))).toEqual(before);
  }, 120_000);
});
