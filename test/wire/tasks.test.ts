// The task store kit (h3-mcp/tasks/testing) on the in-memory store, with the official schemas as our extra
// checks; and what only the in-memory store shows: one process's store internals, and the clock it is given.
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpTask as mcpTaskFromRoot } from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks, memoryTaskStore } from "../../src/tasks/index.ts";
import { taskStoreSuite } from "../../src/tasks/testing/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { memoryStore } from "../helpers/memory-store.ts";
import { checkTaskShape, expectError, ownFields } from "../helpers/schemas.ts";
import { until } from "../helpers/wait.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const create = async (app: any, name: string) => (await call(app, "tools/call", { name }, { caps })).body.result;
const get = (app: any, taskId: string) => call(app, "tasks/get", { taskId }, { caps });
const cancel = (app: any, taskId: string) => call(app, "tasks/cancel", { taskId }, { caps });

taskStoreSuite({ name: "in memory", shared: false, runs: true, open: () => [memoryTaskStore()], runner: { describe, it }, checkShape: checkTaskShape });

describe("the in-memory store", () => {
  it("is the same mcpTask from both import paths", () => {
    expect(mcpTaskFromRoot).toBe(mcpTask);
  });

  it("reports canCreateTask per request", async () => {
    const verdicts: boolean[] = [];
    const tool = defineTool({ name: "probe", handler: (e) => (verdicts.push(canCreateTask(e)), "ok") });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ enabled: (e) => e.req.headers.get("x-beta") === "1" })] }));
    await call(app, "tools/call", { name: "probe" }, { caps, headers: { "x-beta": "1" } });
    await call(app, "tools/call", { name: "probe" }, { caps });
    await call(app, "tools/call", { name: "probe" }, { caps: {}, headers: { "x-beta": "1" } });
    expect(verdicts).toEqual([true, false, false]);
  });

  it("aborts the signal within the tasks/cancel request, and lets a cancelled task's actor go", async () => {
    const { app, seen, plugin } = tasksApp();
    const { taskId } = await create(app, "controlled");
    await cancel(app, taskId);
    expect(seen.signalAborted).toEqual([taskId]);
    expect(memoryStore(plugin).read(taskId, "")?.json).toBeTypeOf("string");
  });

  it("reads a task as unknown past its ttl, aborting work still running, and sweeps only what expired", async () => {
    let now = 1_000_000;
    const { app, plugin, seen } = tasksApp({ ttlMs: 1000, clock: { now: () => now } });
    const old = await create(app, "controlled");
    now += 500;
    const young = await create(app, "controlled");
    now += 600;
    expectError((await get(app, old.taskId)).body, -32602);
    expect(seen.signalAborted).toEqual([old.taskId]);
    expect((await get(app, young.taskId)).body.result.status).toBe("working");
    expect(memoryStore(plugin).size).toBe(1);
    now += 1000;
    expect(memoryStore(plugin).sweep()).toBe(1);
    expect(memoryStore(plugin).sweep()).toBe(0);
    expect(memoryStore(plugin).size).toBe(0);
  });

  it("keeps only the final snapshot of a finished task", async () => {
    const { app, plugin } = tasksApp();
    const { taskId } = await create(app, "tool_error");
    await until(() => expect(memoryStore(plugin).read(taskId, "")?.json).toBeTypeOf("string"));
    const kept = memoryStore(plugin).read(taskId, "") as { status: string; json: string };
    expect(kept.status).toBe("completed");
    // What it keeps is exactly what tasks/get answers.
    expect(JSON.parse(kept.json)).toEqual(ownFields((await get(app, taskId)).body.result));
  });
});
