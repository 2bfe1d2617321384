// The tasks wire suite with the in-memory store (test/wire/tasks-suite.ts, shared with the Redis store), and
// what only the in-memory store shows: one process's store internals, and the clock it is given.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineMcpHandler, defineTool, mcpTask as mcpTaskFromRoot } from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { memoryStore } from "../helpers/memory-store.ts";
import { tasksApp } from "../fixtures/tasks-app.ts";
import { expectError, ownFields } from "../helpers/schemas.ts";
import { appFor, call } from "../helpers/wire.ts";
import { cancel, caps, create, get, tasksWireSuite, until } from "./tasks-suite.ts";

tasksWireSuite({ label: "memory store", instances: () => [{}] });

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

  it("hands run one signal however late it is first read: aborted when read after a cancel, never for a completed task", async () => {
    const release: Record<string, () => void> = {};
    const signals: Record<string, AbortSignal[]> = {};
    const late = defineTool({
      name: "late_signal",
      inputSchema: z.object({ key: z.string() }),
      handler: (event, { key }) =>
        mcpTask(event, {
          run: async (task) => {
            await new Promise<void>((resolve) => (release[key] = resolve));
            signals[key] = [task.signal, task.signal];
            return { content: [] };
          },
        }),
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [late] }, { extensionPlugins: [mcpTasks()] }));
    const cancelled = await create(app, "late_signal", { key: "c" });
    const completed = await create(app, "late_signal", { key: "d" });
    await cancel(app, cancelled.taskId);
    release.c!();
    release.d!();
    await until(() => expect(signals.c && signals.d).toBeTruthy());
    expect(signals.c![0]).toBe(signals.c![1]);
    expect(signals.c![0]!.aborted).toBe(true);
    expect((signals.c![0]!.reason as DOMException).name).toBe("AbortError");
    await until(async () => expect((await get(app, completed.taskId)).body.result.status).toBe("completed"));
    expect(signals.d![0]!.aborted).toBe(false);
  });

  it("reads a task as unknown past its ttl, aborting work still running, and sweeps only what expired", async () => {
    let now = 1_000_000;
    const { app, plugin, seen } = tasksApp({ ttlMs: 1000, "~now": () => now });
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
