// SIGTERM drains a demo process: what cannot travel (a closure) is failed with the shutdown reason before
// the process exits, a run found by name is handed to another instance at once (the lease here is 30 s, far
// longer than any wait below, so only the drain can explain a failure or a claim), a run that ends within
// the deadline finishes where it runs, requests are served while it drains, and the process exits 0 within
// MCP_DRAIN_MS. Real processes on a real redis-server.
import { beforeAll, describe, expect, it } from "vitest";
import { createTask, demoCluster, eventually, follow, stepShown, type Instance } from "./cluster.ts";

const cluster = demoCluster({ leaseMs: 30_000, drainMs: 1500 });
let survivor: Instance;
let handing: Instance;
let serving: Instance;
let idle: Instance;
let retrying: Instance;
beforeAll(async () => {
  // Started together: a process start is most of these tests' time.
  [survivor, handing, serving, idle, retrying] = await Promise.all([
    cluster.start("survivor"),
    cluster.start("handing"),
    cluster.start("serving", { MCP_DRAIN_MS: "60000" }),
    cluster.start("idle", { MCP_DRAIN_MS: "60000" }),
    cluster.start("retrying"),
  ]);
}, 120_000);

const SHUT_DOWN = { code: -32603, message: "The server instance running this task shut down", data: { attempts: 1, reason: "shutdown" } };

describe("SIGTERM", () => {
  it("fails running and waiting closures at the deadline, before it exits 0, telling other instances' listen streams", async () => {
    const draining = handing;
    const closure = await createTask(draining.client, "steps", { steps: 1000, stepMs: 100 });
    const parkedClosure = await createTask(draining.client, "delete_everything");
    await eventually(async () => expect((await survivor.client.getTask(parkedClosure)).status).toBe("input_required"));
    const listener = await survivor.client.listen([closure, parkedClosure]);
    expect(listener.taskIds).toEqual([closure, parkedClosure]);

    draining.signal("SIGTERM");
    expect(await draining.exited).toEqual({ code: 0, signal: null });
    expect(draining.output()).toContain("SIGTERM: draining (up to 1500 ms)");
    expect(draining.output()).toContain("drained: 0 finished, 0 handed off, 2 failed, 0 fenced");

    // Failed before the exit: no waiting for a lease, and the other instance's listen stream was told.
    for (const id of [closure, parkedClosure]) {
      const task = await survivor.client.send("tasks/get", { taskId: id });
      expect(task).toMatchObject({ status: "failed", error: SHUT_DOWN });
    }
    const failedFrames = new Set<string>();
    while (failedFrames.size < 2) failedFrames.add((await listener.until("failed")).taskId);
    expect([...failedFrames].sort()).toEqual([closure, parkedClosure].sort());
    await listener.close();
  });

  it("serves tasks while it drains, lets runs finish where they run, and refuses new closures with 503 and Retry-After", async () => {
    const draining = serving;
    const long = await createTask(draining.client, "steps", { steps: 10_000, stepMs: 100 });
    const short = await createTask(draining.client, "steps", { steps: 5, stepMs: 100 });
    draining.signal("SIGTERM");
    await eventually(() => expect(draining.output()).toContain("SIGTERM: draining"));

    const refused = await draining.client.request("tools/call", { name: "steps", arguments: { steps: 1, stepMs: 1 } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/shutting down/) });
    // Another instance takes it.
    const elsewhere = await createTask(survivor.client, "steps", { steps: 1, stepMs: 1 });
    expect((await survivor.client.waitForTask(elsewhere)).status).toBe("completed");

    expect((await draining.client.waitForTask(short)).result).toMatchObject({ structuredContent: { steps: 5 } });
    expect((await draining.client.getTask(long)).status).toBe("working");
    // Cancelled, the last running task ends, and so does the drain, long before its deadline.
    await draining.client.cancelTask(long);
    expect(await draining.exited).toEqual({ code: 0, signal: null });
    expect(draining.output()).toContain("drained: 2 finished, 0 handed off, 0 failed, 0 fenced");
    expect((await survivor.client.getTask(long)).status).toBe("cancelled");
  });

  it("hands a run found by name still running at the deadline to another instance, which claims it at once and goes on from its checkpoint", async () => {
    const id = await createTask(retrying.client, "durable_steps", { steps: 60, stepMs: 100 });
    await eventually(async () => expect(await stepShown(survivor.client, id)).toBeGreaterThanOrEqual(2));
    const following = follow(survivor.client, id);
    retrying.signal("SIGTERM");
    // It runs past the 1500 ms deadline: handed off there, not failed.
    expect(await retrying.exited).toEqual({ code: 0, signal: null });
    expect(retrying.output()).toContain("drained: 0 finished, 1 handed off, 0 failed, 0 fenced");

    // Claimed and finished long before the 30 s lease of the drained instance could lapse.
    const { statuses, attempts, task } = await following;
    expect(statuses).toEqual(["working", "completed"]);
    expect(attempts).toEqual([1, 2]);
    const { started, stopped } = cluster.attempts(id);
    expect(stopped).toEqual([{ instance: "retrying", attempt: 1, after: expect.any(Number), reason: expect.stringMatching(/^Attempt 1 was stopped: this server instance shut down/) }]);
    // Any instance still up may claim it: survivor, or idle, which is ended only by the next test.
    expect(started).toEqual([
      { instance: "retrying", attempt: 1, from: 0 },
      { instance: expect.stringMatching(/^(survivor|idle)$/), attempt: 2, from: stopped[0]!.after },
    ]);
    expect(task.result.structuredContent).toEqual({ steps: 60, attempt: 2, resumedFrom: stopped[0]!.after });
  });

  it("exits 0 at once when nothing runs", async () => {
    idle.signal("SIGTERM");
    expect(await idle.exited).toEqual({ code: 0, signal: null });
    expect(idle.output()).toContain("drained: 0 finished, 0 handed off, 0 failed, 0 fenced");
  });
});
