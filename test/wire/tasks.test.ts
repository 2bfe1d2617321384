import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpTask as mcpTaskFromRoot } from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { FinishedTask } from "../../src/tasks/store.ts";
import { askConfirm, tasksApp } from "../fixtures/tasks-app.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const tick = (ms = 2) => new Promise((r) => setTimeout(r, ms));

async function create(app: any, name: string, args?: Record<string, unknown>, opts: any = {}) {
  const r = await call(app, "tools/call", { name, ...(args ? { arguments: args } : {}) }, { caps, ...opts });
  return r.body.result;
}
const get = (app: any, taskId: string, opts: any = {}) => call(app, "tasks/get", { taskId }, { caps, ...opts });
const update = (app: any, taskId: string, inputResponses: unknown, opts: any = {}) =>
  call(app, "tasks/update", { taskId, inputResponses }, { caps, ...opts });
const cancel = (app: any, taskId: string, opts: any = {}) => call(app, "tasks/cancel", { taskId }, { caps, ...opts });

describe("installing mcpTasks()", () => {
  it("advertises the extension and serves tasks/*; without it neither exists", async () => {
    const { app } = tasksApp();
    expect((await call(app, "server/discover")).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    const bare = appFor(defineMcpHandler({ name: "x", version: "1" }));
    expect((await call(bare, "server/discover")).body.result.capabilities.extensions).toBeUndefined();
    for (const m of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const r = await call(bare, m, { taskId: "a" }, { caps });
      expect(r.status).toBe(404);
      expectError(r.body, -32601);
    }
  });

  it("answers -32601 for tasks/result and tasks/list", async () => {
    const { app } = tasksApp();
    for (const m of ["tasks/result", "tasks/list"]) expectError((await call(app, m, { taskId: "a" }, { caps })).body, -32601);
  });
});

describe("the handle", () => {
  it("is a flat CreateTaskResult, stored before it is returned", async () => {
    const { app } = tasksApp();
    const handle = await create(app, "render");
    expectShape(S.createTask, handle);
    expect(Object.keys(handle).sort()).toEqual(["createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "statusMessage", "taskId", "ttlMs"]);
    expect(handle).toMatchObject({ resultType: "task", status: "working", statusMessage: "Queued", ttlMs: 600_000, pollIntervalMs: 1000 });
    expect(handle.taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(handle.createdAt).toBe(handle.lastUpdatedAt);
    expect(new Date(handle.createdAt).toISOString()).toBe(handle.createdAt);
    // No await between creation and the first get: the handle must already resolve.
    const r = await get(app, handle.taskId);
    expect(r.body.result.status).toBe("working");
  });

  it("takes ttlMs and pollIntervalMs from the plugin; null means unlimited", async () => {
    const { app } = tasksApp({ ttlMs: null, pollIntervalMs: 250 });
    const handle = await create(app, "render");
    expect([handle.ttlMs, handle.pollIntervalMs]).toEqual([null, 250]);
    expectShape(S.createTask, handle);
  });
});

describe("canCreateTask and mcpTask", () => {
  it("answers synchronously a client that did not declare the extension", async () => {
    const { app } = tasksApp();
    const r = await call(app, "tools/call", { name: "render" }, { caps: {} });
    expect(r.body.result.content[0].text).toBe("Rendered synchronously.");
  });

  it("throws the JSON-RPC error the call answers with when the client did not declare, the plugin is missing or disabled, or the store is full", async () => {
    const { app } = tasksApp({ max: 1 });
    expect((await call(app, "tools/call", { name: "try_task" }, { caps: {} })).body.result.content[0].text).toMatch(/Missing required client capability/);
    expect((await call(app, "tools/call", { name: "try_task" }, { caps })).body.result.resultType).toBe("task");
    expect((await call(app, "tools/call", { name: "try_task" }, { caps })).body.result.content[0].text).toMatch(/full/);

    const tool = defineTool({ name: "t", handler: (e) => mcpTask(e, { run: () => ({ content: [] }) }) });
    const none = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }));
    expect(expectError((await call(none, "tools/call", { name: "t" }, { caps })).body, -32603).message).toMatch(/not installed/);
    const off = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ enabled: false })] }));
    expect(expectError((await call(off, "tools/call", { name: "t" }, { caps })).body, -32603).message).toMatch(/not enabled/);
  });

  it("is the same function from both import paths", () => {
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
});

describe("inside run(task)", () => {
  it("task.update sets the statusMessage tasks/get shows", async () => {
    const { app, gates } = tasksApp();
    const { taskId } = await create(app, "render", { frames: 2 });
    gates.open(`frame:${taskId}:1`);
    await tick();
    expect((await get(app, taskId)).body.result.statusMessage).toBe("Frame 1/2");
    gates.open(`frame:${taskId}:2`);
    await tick();
    const done = (await get(app, taskId)).body.result;
    expectShape(S.getTask, done);
    expect(done).toMatchObject({ status: "completed", statusMessage: "Frame 2/2", result: { content: [{ type: "text", text: "Rendered." }] } });
  });

  it("requestInput parks the task, surfaces the requests on every get, and resolves with the answers", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "confirm_delete");
    await tick();
    for (let i = 0; i < 2; i++) {
      const parked = (await get(app, taskId)).body.result;
      expectShape(S.getTask, parked);
      expect(parked.status).toBe("input_required");
      expect(Object.keys(parked.inputRequests)).toEqual(["confirm"]);
    }
    const ack = (await update(app, taskId, { confirm: { action: "accept", content: { confirm: true } } })).body.result;
    expect(ack).toEqual({ resultType: "complete" });
    expectShape(S.updateTask, ack);
    await tick();
    expect((await get(app, taskId)).body.result.result.content[0].text).toBe("Deleted.");
  });

  it("acks partial answers, keeps the task parked, ignores unknown and consumed keys, and renames a key asked twice", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "two_rounds");
    await tick();
    expect(Object.keys((await get(app, taskId)).body.result.inputRequests).sort()).toEqual(["confirm", "name"]);
    await update(app, taskId, { name: { action: "accept", content: { name: "Ada" } }, bogus: { action: "accept" } });
    await tick();
    const partial = (await get(app, taskId)).body.result;
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests)).toEqual(["confirm"]);
    await update(app, taskId, { confirm: { action: "accept", content: { confirm: true } } });
    await tick();
    const second = (await get(app, taskId)).body.result;
    expect(Object.keys(second.inputRequests)).toEqual(["confirm.2"]);
    // An answer to the consumed key must not be attributed to the new round.
    await update(app, taskId, { confirm: { action: "decline" }, name: { action: "decline" } });
    await tick();
    expect((await get(app, taskId)).body.result.status).toBe("input_required");
    await update(app, taskId, { "confirm.2": { action: "decline" } });
    await tick();
    const done = (await get(app, taskId)).body.result;
    expect(JSON.parse(done.result.content[0].text)).toEqual({
      a: { confirm: { action: "accept", content: { confirm: true } }, name: { action: "accept", content: { name: "Ada" } } },
      b: { confirm: { action: "decline" } },
    });
  });

  it("refuses a second requestInput while a round is open, and a __proto__ key does not hang", async () => {
    const outcomes: string[] = [];
    const tool = defineTool({
      name: "overlap",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            const first = task.requestInput({ a: askConfirm });
            await task.requestInput({ b: askConfirm }).catch((e) => outcomes.push(e.code));
            await task.requestInput(JSON.parse('{"__proto__": {"method": "elicitation/create", "params": {"message": "p"}}}')).catch((e) => outcomes.push(e.code));
            const answers = await first;
            return { content: [{ type: "text", text: JSON.stringify(answers) }] };
          },
        }),
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks()] }));
    const { taskId } = (await call(app, "tools/call", { name: "overlap" }, { caps })).body.result;
    await tick();
    expect(outcomes).toEqual(["INPUT_PENDING", "INPUT_PENDING"]);
    expect(Object.keys((await get(app, taskId)).body.result.inputRequests)).toEqual(["a"]);
    await update(app, taskId, { a: { action: "decline" } });
    await tick();
    expect((await get(app, taskId)).body.result.result.content[0].text).toBe('{"a":{"action":"decline"}}');
  });

  it("handles a request key named __proto__ like any other", async () => {
    const tool = defineTool({
      name: "proto",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            const answers = await task.requestInput(JSON.parse(`{"__proto__": ${JSON.stringify(askConfirm)}}`));
            return { content: [{ type: "text", text: JSON.stringify(answers) }] };
          },
        }),
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks()] }));
    const { taskId } = (await call(app, "tools/call", { name: "proto" }, { caps })).body.result;
    await tick();
    const parked = (await get(app, taskId)).body.result;
    expect(Object.keys(parked.inputRequests)).toEqual(["__proto__"]);
    await update(app, taskId, JSON.parse('{"__proto__": {"action": "decline"}}'));
    await tick();
    expect((await get(app, taskId)).body.result.result.content[0].text).toBe('{"__proto__":{"action":"decline"}}');
  });

  it("fails clearly when asking for an input kind the creating request did not declare", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "asks_roots");
    await tick();
    const r = (await get(app, taskId)).body.result;
    expectShape(S.getTask, r);
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
  });

  it.each([
    ["tool_error", { status: "completed", result: { content: [{ type: "text", text: "upstream refused" }], isError: true } }],
    ["sync_throw", { status: "completed", result: { content: [{ type: "text", text: "sync boom" }], isError: true } }],
    ["non_error_reject", { status: "completed", result: { content: [{ type: "text", text: "a string" }], isError: true } }],
    ["protocol_error", { status: "failed", error: { code: -32603, message: "API rate limit exceeded" } }],
    ["bad_result", { status: "failed", error: { code: -32603 } }],
  ])("%s ends as the chart says", async (name, expected) => {
    const { app } = tasksApp();
    const { taskId } = await create(app, name);
    await tick();
    const r = (await get(app, taskId)).body.result;
    expectShape(S.getTask, r);
    expect(r).toMatchObject(expected);
  });
});

describe("tasks/cancel", () => {
  it("acks, aborts the signal, reads cancelled, and a late result changes nothing", async () => {
    const { app, gates, seen, plugin } = tasksApp();
    const { taskId } = await create(app, "controlled");
    const ack = (await cancel(app, taskId)).body.result;
    expect(ack).toEqual({ resultType: "complete" });
    expectShape(S.cancelTask, ack);
    expect(seen.signalAborted).toEqual([taskId]);
    expect((await get(app, taskId)).body.result.status).toBe("cancelled");
    gates.open(taskId, { content: [{ type: "text", text: "late" }] });
    await tick();
    expect(seen.lateResults).toBe(1);
    const after = (await get(app, taskId)).body.result;
    expect(after.status).toBe("cancelled");
    expect(after.result).toBeUndefined();
    expect(plugin.store.get(taskId, undefined)).toBeInstanceOf(FinishedTask);
  });

  it("acks a terminal task the same way, and answers -32602 for an unknown one", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "tool_error");
    await tick();
    expect((await cancel(app, taskId)).body.result).toEqual({ resultType: "complete" });
    expect((await get(app, taskId)).body.result.status).toBe("completed");
    expectError((await cancel(app, "00000000-0000-4000-8000-000000000000")).body, -32602);
  });

  it("is never triggered by notifications/cancelled", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "controlled");
    const res = await app.fetch(modernRequest("notifications/cancelled", { requestId: 1, taskId }, { id: null, caps }));
    expect(res.status).toBe(202);
    expect((await get(app, taskId)).body.result.status).toBe("working");
  });
});

describe("tasks/* handlers", () => {
  it("answers -32602 for unknown ids and for a missing taskId", async () => {
    const { app } = tasksApp();
    expectError((await get(app, "nope")).body, -32602);
    expectError((await update(app, "nope", {})).body, -32602);
    expectError((await call(app, "tasks/get", {}, { caps })).body, -32602);
  });

  it("answers -32021 on all three when the request does not declare the extension", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "controlled");
    for (const m of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const r = await call(app, m, { taskId, inputResponses: {} }, { caps: {} });
      expect(r.status).toBe(400);
      expect(expectError(r.body, -32021).data.requiredCapabilities).toEqual({ extensions: { [TASKS]: {} } });
    }
  });

  it("requires Mcp-Name to equal params.taskId", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "controlled");
    expectError((await get(app, taskId, { headers: { "mcp-name": "other" } })).body, -32020);
    expectError((await get(app, taskId, { headers: { "mcp-name": null } })).body, -32020);
  });

  it("answers -32602 for inputResponses that are not an object", async () => {
    const { app } = tasksApp();
    const { taskId } = await create(app, "confirm_delete");
    expectError((await update(app, taskId, [1])).body, -32602);
  });
});

describe("execution.taskSupport", () => {
  it("refuses a required tool with -32021 before the handler runs", async () => {
    const { app, seen } = tasksApp();
    const r = await call(app, "tools/call", { name: "required" }, { caps: {} });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    expect(seen.handlerRuns).toBe(0);
    expect((await call(app, "tools/call", { name: "required" }, { caps })).body.result.resultType).toBe("task");
  });

  it("never changes dispatch for optional and forbidden", async () => {
    const { app } = tasksApp();
    expect((await call(app, "tools/call", { name: "forbidden" }, { caps })).body.result.content[0].text).toBe("forbidden ran");
    expect((await call(app, "tools/call", { name: "render" }, { caps: {} })).body.result.resultType).toBe("complete");
  });
});

describe("the store", () => {
  it("fails creation at max without dropping a handle", async () => {
    const { app } = tasksApp({ max: 2 });
    const a = await create(app, "controlled");
    const b = await create(app, "controlled");
    const c = await create(app, "try_task");
    expect(c.content[0].text).toMatch(/full/);
    for (const t of [a, b]) expect((await get(app, t.taskId)).body.result.status).toBe("working");
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
    expect(plugin.store.size).toBe(1);
    now += 1000;
    expect(plugin.store.sweep()).toBe(1);
    expect(plugin.store.sweep()).toBe(0);
    expect(plugin.store.size).toBe(0);
  });

  it("keeps only the final snapshot of a finished task", async () => {
    const { app, plugin } = tasksApp();
    const { taskId } = await create(app, "tool_error");
    await tick();
    const entry = plugin.store.get(taskId, undefined)!;
    expect(entry).toBeInstanceOf(FinishedTask);
    const kept = entry as FinishedTask;
    expect(kept.status).toBe("completed");
    // What it keeps is exactly what tasks/get answers.
    expect(JSON.parse(kept.json)).toEqual((await get(app, taskId)).body.result);
  });
});

describe("bind", () => {
  it("scopes tasks to their caller; a foreign caller gets byte-for-byte the unknown-id error", async () => {
    const { app } = tasksApp({ bind: (e) => e.req.headers.get("x-user") });
    const { taskId } = await create(app, "controlled", undefined, { headers: { "x-user": "alice" } });
    expect((await get(app, taskId, { headers: { "x-user": "alice" } })).body.result.status).toBe("working");
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const foreign = await app.fetch(modernRequest(method, { taskId, inputResponses: {} }, { caps, headers: { "x-user": "mallory" } }));
      const unknown = await app.fetch(modernRequest(method, { taskId: "11111111-1111-4111-8111-111111111111", inputResponses: {} }, {
        caps,
        headers: { "x-user": "mallory", "mcp-name": "11111111-1111-4111-8111-111111111111" },
      }));
      expect(foreign.status).toBe(unknown.status);
      expect(await foreign.text()).toBe(await unknown.text());
    }
    expect((await get(app, taskId, { headers: { "x-user": "alice" } })).body.result.status).toBe("working");
  });
});

describe("enabled(event)", () => {
  it("refuses tasks/* with -32601 for a rejected request; static options advertise once, dynamic follow the predicate", async () => {
    const beta = (e: any) => e.req.headers.get("x-beta") === "1";
    const { app } = tasksApp({ enabled: beta });
    const { taskId } = await create(app, "controlled", undefined, { headers: { "x-beta": "1" } });
    expectError((await get(app, taskId)).body, -32601);
    expect((await get(app, taskId, { headers: { "x-beta": "1" } })).body.result.status).toBe("working");
    expect((await call(app, "server/discover")).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });

    const { app: dyn } = tasksApp({ enabled: beta }, { dynamic: true });
    expect((await call(dyn, "server/discover")).body.result.capabilities.extensions).toBeUndefined();
    expect((await call(dyn, "server/discover", {}, { headers: { "x-beta": "1" } })).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
  });
});
