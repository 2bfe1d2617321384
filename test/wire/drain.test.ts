// Draining an instance (plugin.drain), on the wire with the memory store: no new run starts (creating a
// closure task answers 503 with Retry-After: 1), the runs here get up to the deadline, every task still here
// then fails with the shutdown reason (input_required included) before the drain resolves, and the tasks/*
// methods and listen streams are served throughout. A run that ignores its signal cannot hold srvx's close().
import { serve } from "h3";
import { describe, expect, it } from "vitest";
import { drainOnSignal } from "../../src/tasks/drain-on-signal.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
const SHUT_DOWN = { code: -32603, message: "The server instance running this task shut down", data: { attempts: 1, reason: "shutdown" } };

async function create(app: ReturnType<typeof tasksApp>["app"], name: string): Promise<string> {
  const r = await call(app, "tools/call", { name }, { caps });
  expect(r.body.result?.resultType).toBe("task");
  return r.body.result.taskId;
}
const get = async (app: ReturnType<typeof tasksApp>["app"], taskId: string) => (await call(app, "tasks/get", { taskId }, { caps })).body.result;

describe("plugin.drain", () => {
  it("answers at once with nothing to report when no run is here", async () => {
    const { plugin } = tasksApp();
    expect(await plugin.drain({ deadlineMs: 60_000 })).toEqual({ finished: 0, handedOff: 0, failed: 0, fenced: 0 });
  });

  it("lets a run that ends before the deadline finish, and resolves when it does", async () => {
    const { app, plugin, gates } = tasksApp();
    const id = await create(app, "controlled");
    let report: unknown;
    const drained = plugin.drain({ deadlineMs: 60_000 }).then((r) => (report = r));
    await new Promise((r) => setTimeout(r, 20));
    expect(report).toBeUndefined();
    gates.open(id, { content: [{ type: "text", text: "in time" }] });
    await drained;
    expect(report).toEqual({ finished: 1, handedOff: 0, failed: 0, fenced: 0 });
    expect(await get(app, id)).toMatchObject({ status: "completed", result: { content: [{ text: "in time" }] } });
  });

  it("fails every run still here at the deadline, input_required included, before it resolves, telling listen streams", async () => {
    const { app, plugin, seen } = tasksApp();
    const working = await create(app, "controlled");
    const parked = await create(app, "confirm_delete");
    expect((await get(app, parked)).status).toBe("input_required");
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [working, parked] } }, { caps, id: "w" })));
    try {
      await sse.next(); // the acknowledgement
      const current = [await sse.next(), await sse.next()].map((f) => f.params.status).sort();
      expect(current).toEqual(["input_required", "working"]);

      expect(await plugin.drain({ deadlineMs: 30 })).toEqual({ finished: 0, handedOff: 0, failed: 2, fenced: 0 });
      for (const id of [working, parked]) {
        const task = await get(app, id);
        expect(task).toMatchObject({ status: "failed", statusMessage: SHUT_DOWN.message });
        expect(task.error).toEqual(SHUT_DOWN);
        // A closure has no attempt on the wire.
        expect(task._meta?.["io.github.h3-mcp/attempt"]).toBeUndefined();
      }
      // Both frames were sent before the drain resolved.
      const frames = [await sse.next(0), await sse.next(0)];
      for (const frame of frames) {
        expectShape(S.taskNotification, frame);
        expect(frame.params).toMatchObject({ status: "failed", error: SHUT_DOWN });
      }
      expect(frames.map((f) => f.params.taskId).sort()).toEqual([working, parked].sort());
      expect(seen.signalAborted).toEqual([working]);
      expect(plugin.stats.localTasks).toBe(0);
    } finally {
      await sse.close();
    }
  });

  it("refuses new closure tasks with a 503, Retry-After: 1 and a JSON-RPC error while it serves tasks/*", async () => {
    const { app, plugin, seen } = tasksApp();
    const parked = await create(app, "confirm_delete");
    const cancelled = await create(app, "controlled");
    const drained = plugin.drain({ deadlineMs: 60_000 });

    for (const name of ["controlled", "required"]) {
      const refused = await call(app, "tools/call", { name }, { caps });
      expect(refused.status).toBe(503);
      expect(refused.res.headers.get("retry-after")).toBe("1");
      expect(refused.body.error).toEqual({ code: -32603, message: "This server instance is shutting down and starts no new task; try again, another instance will take it" });
    }
    // A required tool's handler ran (the refusal comes from mcpTask): only it knows whether its run can travel.
    expect(seen.handlerRuns).toBe(1);
    // A handler that catches mcpTask's refusal sees the same error.
    expect((await call(app, "tools/call", { name: "try_task" }, { caps })).body.result.content[0].text).toMatch(/^no task: This server instance is shutting down/);

    // The tasks already here are served: answered, then cancelled; the drain ends with the last of them.
    const updated = await call(app, "tasks/update", { taskId: parked, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps });
    expectShape(S.updateTask, updated.body.result);
    expect(await get(app, parked)).toMatchObject({ status: "completed", result: { content: [{ text: "Deleted." }] } });
    expectShape(S.cancelTask, (await call(app, "tasks/cancel", { taskId: cancelled }, { caps })).body.result);
    expect(await drained).toEqual({ finished: 2, handedOff: 0, failed: 0, fenced: 0 });
    expect((await get(app, cancelled)).status).toBe("cancelled");
  });

  it("answers a second call with the first drain's report, and refuses a deadline that is not a number of ms without draining", async () => {
    const { app, plugin } = tasksApp();
    await expect(plugin.drain({ deadlineMs: -1 })).rejects.toThrow(/deadlineMs must be a finite number of milliseconds \(0 or more\), not -1/);
    await expect(plugin.drain({} as never)).rejects.toThrow(TypeError);
    // Not draining: a task is still created.
    const id = await create(app, "controlled");
    const first = plugin.drain({ deadlineMs: 0 });
    expect(plugin.drain({ deadlineMs: 60_000 })).toBe(first);
    expect(await first).toEqual({ finished: 0, handedOff: 0, failed: 1, fenced: 0 });
    expect((await get(app, id)).status).toBe("failed");
  });
});

describe("srvx's close() after a drain", () => {
  it("is not held by a run that ignores its signal: its task failed, the request's waitUntil settled", async () => {
    const { app, plugin } = tasksApp();
    const server = serve(app as never, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    const url = new URL("/mcp", server.url!);
    // `controlled` waits on a gate nobody opens and never reads its signal's end.
    const request = modernRequest("tools/call", { name: "controlled" }, { caps });
    const created = await fetch(url, { method: "POST", headers: request.headers, body: await request.text() });
    const { taskId } = (await created.json()).result;
    expect(await plugin.drain({ deadlineMs: 20 })).toEqual({ finished: 0, handedOff: 0, failed: 1, fenced: 0 });
    // close() waits for every waitUntil: it settles because the failed task let go of its request.
    await server.close();
    expect((await get(app, taskId)).status).toBe("failed");
  });
});

describe("drainOnSignal", () => {
  it("refuses a misspelt option and a deadline that is not a number of ms when it is made", () => {
    const { plugin } = tasksApp();
    // @ts-expect-error: `onDrain` is not one of its options (`onDrained` is)
    expect(() => drainOnSignal(plugin, { deadlineMs: 1000, onDrain: () => {} })).toThrow(/^drainOnSignal\(\): unknown option "onDrain" \(did you mean "onDrained"\?\)$/);
    expect(() => drainOnSignal(plugin, { deadlineMs: Number.NaN })).toThrow(/deadlineMs must be a finite number of milliseconds \(0 or more\), not NaN/);
    // @ts-expect-error: the deadline is required
    expect(() => drainOnSignal(plugin, {})).toThrow(/deadlineMs must be a finite number of milliseconds \(0 or more\), not undefined/);
    expect(typeof drainOnSignal(plugin, { deadlineMs: 0 })).toBe("function");
  });
});
