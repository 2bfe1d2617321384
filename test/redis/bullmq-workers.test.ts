// Runs off the web tier, with real parts: a real redis-server, two demo web processes started with
// MCP_TASKS_EXECUTOR=bullmq, and `npm run worker` processes (examples/demo/worker.ts). The durable runs
// print one line per attempt (`durable_steps <id>: attempt N from step S`), which tells which process ran
// which attempt. Each test starts its own workers and ends them by pid.
import { describe, expect, it } from "vitest";
import { at, attemptsIn, caps, create, get, probe, startWorker, until, web } from "./demo-workers.ts";
import { call } from "../helpers/wire.ts";

describe("durable runs executed by worker processes through BullMQ", () => {
  it("runs in a worker, not a web process; its progress and result reach the client through either web instance", async () => {
    const worker = await startWorker();
    const taskId = await create(0, "durable_steps", { steps: 3, stepMs: 100 });
    await until(taskId, (task) => task.statusMessage?.startsWith("Step "));
    const done = await until(taskId, (task) => task.status === "completed");
    expect(done.result.structuredContent).toEqual({ steps: 3, attempt: 1, resumedFrom: 0 });
    expect(done.statusMessage).toBe("Step 3/3 (attempt 1)");
    expect(attemptsIn(worker, taskId)).toEqual([`durable_steps ${taskId}: attempt 1 from step 0`]);
    for (const w of web) expect(attemptsIn(w, taskId)).toEqual([]);
    // The job is a delivery of the task id alone: its data holds no argument.
    const job = await probe.queue.getJob(taskId);
    expect(job?.data).toEqual({ taskId });
    expect(await job?.getState()).toBe("completed");
  });

  it("asks for input from the worker and takes the answers given on either web instance", async () => {
    const worker = await startWorker();
    const taskId = await create(1, "durable_ask");
    const first = await until(taskId, (task) => task.status === "input_required");
    expect(Object.keys(first.inputRequests)).toEqual(["first"]);
    await call(at(0), "tasks/update", { taskId, inputResponses: { first: { action: "accept", content: { value: "a" } } } }, { caps });
    await until(taskId, (task) => task.inputRequests && "second" in task.inputRequests);
    await call(at(1), "tasks/update", { taskId, inputResponses: { second: { action: "accept", content: { value: "b" } } } }, { caps });
    const done = await until(taskId, (task) => task.status === "completed");
    expect(done.result.structuredContent).toEqual({ first: "a", second: "b", attempt: 1 });
    expect(attemptsIn(worker, taskId)).toEqual([`durable_ask ${taskId}: attempt 1`]);
    for (const w of web) expect(attemptsIn(w, taskId)).toEqual([]);
  });

  it("a tasks/cancel on a web instance aborts the run in the worker that holds it", async () => {
    const worker = await startWorker();
    const taskId = await create(0, "durable_steps", { steps: 10_000, stepMs: 50 });
    await until(taskId, (task) => task.statusMessage?.startsWith("Step "));
    expect((await call(at(1), "tasks/cancel", { taskId }, { caps })).body.result).toMatchObject({ resultType: "complete" });
    expect((await get(0, taskId)).status).toBe("cancelled");
    // The worker's run ended on the abort: its delivery is done, with the task cancelled.
    const job = (await probe.queue.getJob(taskId))!;
    await expect.poll(() => job.getState(), { timeout: 10_000 }).toBe("completed");
    expect((await probe.queue.getJob(taskId))!.returnvalue).toBe("finished");
    // One attempt, started once and stopped by the cancel; no attempt after it.
    await expect.poll(() => attemptsIn(worker, taskId).length, { timeout: 10_000 }).toBe(2);
    expect(attemptsIn(worker, taskId)).toEqual([
      `durable_steps ${taskId}: attempt 1 from step 0`,
      expect.stringMatching(new RegExp(`^durable_steps ${taskId}: attempt 1 stopped after step \\d+: `)),
    ]);
    expect((await get(1, taskId)).status).toBe("cancelled");
  });

  it("a worker killed with SIGKILL mid-run is followed by exactly one next attempt, in another worker, from its checkpoint", async () => {
    const pair = [await startWorker(), await startWorker()];
    const taskId = await create(0, "durable_steps", { steps: 30, stepMs: 100 });
    await until(taskId, (task) => /^Step ([3-9]|\d\d)\//.test(task.statusMessage ?? ""));
    const doomed = pair.find((worker) => attemptsIn(worker, taskId).length > 0)!;
    const survivor = pair.find((worker) => worker !== doomed)!;
    expect(await doomed.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    const done = await until(taskId, (task) => task.status === "completed");
    const { resumedFrom } = done.result.structuredContent;
    expect(done.result.structuredContent).toMatchObject({ steps: 30, attempt: 2 });
    expect(resumedFrom).toBeGreaterThanOrEqual(3);
    expect(attemptsIn(doomed, taskId)).toEqual([`durable_steps ${taskId}: attempt 1 from step 0`]);
    expect(attemptsIn(survivor, taskId)).toEqual([`durable_steps ${taskId}: attempt 2 from step ${resumedFrom}`]);
    expect(done._meta?.["io.github.h3-mcp/attempt"]).toBe(2);
    // Two worker starts and a run of three seconds: on a loaded machine a start alone takes several seconds.
  }, 60_000);

  it("a worker's SIGTERM drains: its run is handed to another worker, and it exits 0", async () => {
    const pair = [await startWorker({ MCP_DRAIN_MS: "200" }), await startWorker({ MCP_DRAIN_MS: "200" })];
    const taskId = await create(1, "durable_steps", { steps: 30, stepMs: 100 });
    await until(taskId, (task) => task.statusMessage?.startsWith("Step "));
    const leaving = pair.find((worker) => attemptsIn(worker, taskId).length > 0)!;
    const staying = pair.find((worker) => worker !== leaving)!;
    expect(await leaving.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(leaving.output()).toContain("drained: 0 finished, 1 handed off, 0 failed, 0 fenced");
    const done = await until(taskId, (task) => task.status === "completed");
    expect(done.result.structuredContent).toMatchObject({ steps: 30, attempt: 2 });
    expect(attemptsIn(staying, taskId)).toEqual([`durable_steps ${taskId}: attempt 2 from step ${done.result.structuredContent.resumedFrom}`]);
  }, 60_000);
});
