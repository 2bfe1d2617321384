// Runs found by name executing inside the tasks Durable Object under workerd (durable-object/runs-worker.ts,
// `durableObjectExecutor`): the web isolate stores each task and hands its attempt to the object, whose alarm
// keeps it going. An input round answered after the creating request is long over resumes the run there;
// after a SIGKILL of the wrangler process and a restart on the same --persist-to folder, the run lost with
// the object is executed again by the object's alarm as its next attempt, from its checkpoint, while a
// closure's task that died with its isolate fails as lost.
import { copyFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { overHttp } from "../helpers/demo-process.ts";
import { expectResult, S } from "../helpers/schemas.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { launchWorker, type Launched } from "./launch.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
const LOST = { code: -32603, message: "The server instance running this task was lost" };
const ATTEMPT = "io.github.h3-mcp/attempt";

describe("runs found by name executing inside the tasks Durable Object under workerd", () => {
  const { app, work } = inject("smokeDirs");
  const state = path.join(work, "do-runs-state");
  let worker: Launched;
  const launch = (run: number) =>
    launchWorker(`workerd-do-runs-${run}`, { script: "runs-worker.ts", config: "wrangler.runs.jsonc", persistTo: state, app, work, ...inject("runtimes") });
  const post = async (method: string, params: Record<string, unknown>) => (await call(overHttp(worker.url.href), method, params, { caps })).body;
  const get = async (taskId: string) => expectResult(await post("tasks/get", { taskId }), S.getTask);
  const create = async (name: string, args: Record<string, unknown> = {}) => {
    const created = await post("tools/call", { name, arguments: args });
    expect(created.result?.resultType, JSON.stringify(created)).toBe("task");
    return created.result.taskId as string;
  };
  /** Reads the task until `done` says so, checking each status on the way is one of `along`. */
  const until = async (taskId: string, along: string[], done: (task: any) => boolean, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const task = await get(taskId);
      if (done(task)) return task;
      expect(along).toContain(task.status);
      if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} (${task.statusMessage})\n${worker.log().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    rmSync(state, { recursive: true, force: true });
    for (const file of ["runs-worker.ts", "wrangler.runs.jsonc"]) copyFileSync(path.join(here, "durable-object", file), path.join(app, file));
    worker = await launch(1);
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
  });

  it("an input round answered long after the creating request resumes the run in the object, as its first attempt", async () => {
    const taskId = await create("ask_later");
    const asked = await until(taskId, ["working"], (t) => t.status === "input_required");
    // More than a lease: the object's own instance renews its hold meanwhile, and nothing of the
    // creating request is left.
    await new Promise((r) => setTimeout(r, 8000));
    expect((await get(taskId)).status).toBe("input_required");
    const key = Object.keys(asked.inputRequests)[0]!;
    expectResult(await post("tasks/update", { taskId, inputResponses: { [key]: { action: "accept", content: { go: true } } } }), S.updateTask);
    const done = await until(taskId, ["input_required", "working"], (t) => t.status === "completed");
    expect(done._meta?.[ATTEMPT], JSON.stringify(done)).toBe(1);
    expect(done.result.content).toEqual([{ type: "text", text: "went on in attempt 1" }]);
  }, 60_000);

  it("after a SIGKILL and a restart on the same state, the object runs a named run again as its next attempt from its checkpoint; a closure fails as lost", async () => {
    const counting = await create("count", { steps: 30 });
    const blocked = await create("block_task");
    const before = await until(counting, ["working"], (t) => /^step ([3-9]|\d\d)$/.test(t.statusMessage ?? ""));
    expect(before._meta?.[ATTEMPT]).toBe(1);
    await worker.kill();
    worker = await launch(2);

    const done = await until(counting, ["working"], (t) => t.status === "completed", 60_000);
    expect(done._meta?.[ATTEMPT]).toBe(2);
    const text = done.result.content[0].text as string;
    const from = Number(/^counted to 30 from (\d+) in attempt 2$/.exec(text)?.[1]);
    // Attempt 2 went on from the checkpoint attempt 1 saved, not from the start.
    expect(from).toBeGreaterThanOrEqual(3);
    const failed = await until(blocked, ["working"], (t) => t.status === "failed", 30_000);
    expect(failed.error).toEqual(LOST);
  }, 150_000);
});
