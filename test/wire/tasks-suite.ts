// The tasks wire suite, for any store: everything a client can observe of tasks over the wire. It runs once
// per backend: in memory (test/wire/tasks.test.ts) and as two instances sharing Redis behind a round-robin
// (test/redis/tasks-wire.test.ts), where consecutive requests of a test land on different instances.
// Progress inside `run` reaches tasks/get asynchronously, and across instances through Redis, so the tests
// wait for what they expect (vi.waitFor) instead of sleeping a fixed time.
import { describe, expect, it, vi } from "vitest";
import { defineMcpHandler, defineTool, type ToolDefinition } from "../../src/index.ts";
import { mcpTask, mcpTasks, type McpTasksOptions } from "../../src/tasks/index.ts";
import { askConfirm, tasksApp } from "../fixtures/tasks-app.ts";
import { expectError, expectShape, S, ownFields } from "../helpers/schemas.ts";
import { appFor, call, modernRequest, roundRobin, TASKS } from "../helpers/wire.ts";

/** Where the suite's tasks live. */
export interface TaskBackend {
  readonly label: string;
  /** `mcpTasks` options for each instance of one fresh logical server (its own, empty keyspace). */
  instances(): McpTasksOptions[];
}

export const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

/** Retries `check` until it passes (progress crosses an await, and maybe an instance and Redis). */
export const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 5000, interval: 5 });

export async function create(app: any, name: string, args?: Record<string, unknown>, opts: any = {}) {
  const r = await call(app, "tools/call", { name, ...(args ? { arguments: args } : {}) }, { caps, ...opts });
  return r.body.result;
}
export const get = (app: any, taskId: string, opts: any = {}) => call(app, "tasks/get", { taskId }, { caps, ...opts });
export const update = (app: any, taskId: string, inputResponses: unknown, opts: any = {}) =>
  call(app, "tasks/update", { taskId, inputResponses }, { caps, ...opts });
export const cancel = (app: any, taskId: string, opts: any = {}) => call(app, "tasks/cancel", { taskId }, { caps, ...opts });
const statusOf = async (app: any, taskId: string) => (await get(app, taskId)).body.result;
/** Resolves with the task once tasks/get shows `status`. */
const untilStatus = (app: any, taskId: string, status: string) =>
  until(async () => {
    const task = await statusOf(app, taskId);
    expect(task.status).toBe(status);
    return task;
  });

export function tasksWireSuite(backend: TaskBackend): void {
  const app = (options: McpTasksOptions = {}, handler: { dynamic?: boolean } = {}) =>
    tasksApp(options, { ...handler, instances: backend.instances() });
  /** A server of the backend's instances, each with `tools` and its own plugin. */
  const serverWith = (tools: ToolDefinition[]) =>
    roundRobin(backend.instances().map((own) => appFor(defineMcpHandler({ name: "x", version: "1", tools }, { extensionPlugins: [mcpTasks(own)] }))));

  describe(`tasks on the wire (${backend.label})`, () => {
    describe("installing mcpTasks()", () => {
      it("advertises the extension and serves tasks/*; without it neither exists", async () => {
        const { app: served } = app();
        expect((await call(served, "server/discover")).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
        const bare = appFor(defineMcpHandler({ name: "x", version: "1" }));
        expect((await call(bare, "server/discover")).body.result.capabilities.extensions).toBeUndefined();
        for (const m of ["tasks/get", "tasks/update", "tasks/cancel"]) {
          const r = await call(bare, m, { taskId: "a" }, { caps });
          expect(r.status).toBe(404);
          expectError(r.body, -32601);
        }
      });

      it("answers -32601 for tasks/result and tasks/list", async () => {
        const { app: served } = app();
        for (const m of ["tasks/result", "tasks/list"]) expectError((await call(served, m, { taskId: "a" }, { caps })).body, -32601);
      });
    });

    describe("the handle", () => {
      it("is a flat CreateTaskResult, stored before it is returned", async () => {
        const { app: served } = app();
        const handle = await create(served, "render");
        expectShape(S.createTask, handle);
        expect(Object.keys(handle).sort()).toEqual(["_meta", "createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "statusMessage", "taskId", "ttlMs"]);
        expect(handle).toMatchObject({ resultType: "task", status: "working", statusMessage: "Queued", ttlMs: 600_000, pollIntervalMs: 1000 });
        expect(handle.taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(handle.createdAt).toBe(handle.lastUpdatedAt);
        expect(new Date(handle.createdAt).toISOString()).toBe(handle.createdAt);
        // No await between creation and the first get (on the next instance): the handle must already resolve.
        const r = await get(served, handle.taskId);
        expect(r.body.result.status).toBe("working");
      });

      it("takes ttlMs and pollIntervalMs from the plugin; null means unlimited", async () => {
        const { app: served } = app({ ttlMs: null, pollIntervalMs: 250 });
        const handle = await create(served, "render");
        expect([handle.ttlMs, handle.pollIntervalMs]).toEqual([null, 250]);
        expectShape(S.createTask, handle);
        expect((await get(served, handle.taskId)).body.result).toMatchObject({ ttlMs: null, pollIntervalMs: 250 });
      });
    });

    describe("canCreateTask and mcpTask", () => {
      it("answers synchronously a client that did not declare the extension", async () => {
        const { app: served } = app();
        const r = await call(served, "tools/call", { name: "render" }, { caps: {} });
        expect(r.body.result.content[0].text).toBe("Rendered synchronously.");
      });

      it("throws the JSON-RPC error the call answers with when the client did not declare, the plugin is missing or disabled, or the store is full", async () => {
        const { app: served } = app({ max: 1 });
        expect((await call(served, "tools/call", { name: "try_task" }, { caps: {} })).body.result.content[0].text).toMatch(/Missing required client capability/);
        expect((await call(served, "tools/call", { name: "try_task" }, { caps })).body.result.resultType).toBe("task");
        expect((await call(served, "tools/call", { name: "try_task" }, { caps })).body.result.content[0].text).toMatch(/full|too many tasks/i);

        const tool = defineTool({ name: "t", handler: (e) => mcpTask(e, { run: () => ({ content: [] }) }) });
        const none = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }));
        expect(expectError((await call(none, "tools/call", { name: "t" }, { caps })).body, -32603).message).toMatch(/not installed/);
        const [own] = backend.instances();
        const off = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ ...own, enabled: false })] }));
        expect(expectError((await call(off, "tools/call", { name: "t" }, { caps })).body, -32603).message).toMatch(/not enabled/);
      });
    });

    describe("inside run(task)", () => {
      it("task.update sets the statusMessage tasks/get shows", async () => {
        const { app: served, gates } = app();
        const { taskId } = await create(served, "render", { frames: 2 });
        gates.open(`frame:${taskId}:1`);
        await until(async () => expect((await statusOf(served, taskId)).statusMessage).toBe("Frame 1/2"));
        gates.open(`frame:${taskId}:2`);
        const done = await untilStatus(served, taskId, "completed");
        expectShape(S.getTask, done);
        expect(done).toMatchObject({ status: "completed", statusMessage: "Frame 2/2", result: { content: [{ type: "text", text: "Rendered." }] } });
      });

      it("requestInput parks the task, surfaces the requests on every get, and resolves with the answers", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "confirm_delete");
        await untilStatus(served, taskId, "input_required");
        for (let i = 0; i < 2; i++) {
          const parked = await statusOf(served, taskId);
          expectShape(S.getTask, parked);
          expect(parked.status).toBe("input_required");
          expect(Object.keys(parked.inputRequests)).toEqual(["confirm"]);
        }
        const ack = (await update(served, taskId, { confirm: { action: "accept", content: { confirm: true } } })).body.result;
        expect(ownFields(ack)).toEqual({ resultType: "complete" });
        expectShape(S.updateTask, ack);
        expect((await untilStatus(served, taskId, "completed")).result.content[0].text).toBe("Deleted.");
      });

      it("acks partial answers, keeps the task parked, ignores unknown and consumed keys, and renames a key asked twice", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "two_rounds");
        await untilStatus(served, taskId, "input_required");
        expect(Object.keys((await statusOf(served, taskId)).inputRequests).sort()).toEqual(["confirm", "name"]);
        await update(served, taskId, { name: { action: "accept", content: { name: "Ada" } }, bogus: { action: "accept" } });
        const partial = await until(async () => {
          const task = await statusOf(served, taskId);
          expect(Object.keys(task.inputRequests)).toEqual(["confirm"]);
          return task;
        });
        expect(partial.status).toBe("input_required");
        await update(served, taskId, { confirm: { action: "accept", content: { confirm: true } } });
        await until(async () => expect(Object.keys((await statusOf(served, taskId)).inputRequests ?? {})).toEqual(["confirm.2"]));
        // An answer to the consumed key must not be attributed to the new round.
        await update(served, taskId, { confirm: { action: "decline" }, name: { action: "decline" } });
        const still = await statusOf(served, taskId);
        expect(still.status).toBe("input_required");
        expect(Object.keys(still.inputRequests)).toEqual(["confirm.2"]);
        await update(served, taskId, { "confirm.2": { action: "decline" } });
        const done = await untilStatus(served, taskId, "completed");
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
        const served = serverWith([tool]);
        const { taskId } = (await call(served, "tools/call", { name: "overlap" }, { caps })).body.result;
        await until(() => expect(outcomes).toEqual(["INPUT_PENDING", "INPUT_PENDING"]));
        expect(Object.keys((await untilStatus(served, taskId, "input_required")).inputRequests)).toEqual(["a"]);
        await update(served, taskId, { a: { action: "decline" } });
        expect((await untilStatus(served, taskId, "completed")).result.content[0].text).toBe('{"a":{"action":"decline"}}');
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
        const served = serverWith([tool]);
        const { taskId } = (await call(served, "tools/call", { name: "proto" }, { caps })).body.result;
        const parked = await untilStatus(served, taskId, "input_required");
        expect(Object.keys(parked.inputRequests)).toEqual(["__proto__"]);
        await update(served, taskId, JSON.parse('{"__proto__": {"action": "decline"}}'));
        expect((await untilStatus(served, taskId, "completed")).result.content[0].text).toBe('{"__proto__":{"action":"decline"}}');
      });

      it("fails clearly when asking for an input kind the creating request did not declare", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "asks_roots");
        const r = await untilStatus(served, taskId, "failed");
        expectShape(S.getTask, r);
        expect(r.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
      });

      it.each([
        ["tool_error", { status: "completed", result: { content: [{ type: "text", text: "upstream refused" }], isError: true } }],
        ["sync_throw", { status: "completed", result: { content: [{ type: "text", text: "sync boom" }], isError: true } }],
        ["non_error_reject", { status: "completed", result: { content: [{ type: "text", text: "a string" }], isError: true } }],
        ["protocol_error", { status: "failed", error: { code: -32603, message: "API rate limit exceeded" } }],
        ["bad_result", { status: "failed", error: { code: -32603 } }],
      ])("%s ends as the chart says", async (name, expected) => {
        const { app: served } = app();
        const { taskId } = await create(served, name);
        const r = await untilStatus(served, taskId, expected.status);
        expectShape(S.getTask, r);
        expect(r).toMatchObject(expected);
      });
    });

    describe("tasks/cancel", () => {
      it("acks, aborts the signal, reads cancelled, and a late result changes nothing", async () => {
        const { app: served, gates, seen } = app();
        const { taskId } = await create(served, "controlled");
        const ack = (await cancel(served, taskId)).body.result;
        expect(ownFields(ack)).toEqual({ resultType: "complete" });
        expectShape(S.cancelTask, ack);
        await until(() => expect(seen.signalAborted).toEqual([taskId]));
        expect((await statusOf(served, taskId)).status).toBe("cancelled");
        gates.open(taskId, { content: [{ type: "text", text: "late" }] });
        await until(() => expect(seen.lateResults).toBe(1));
        for (let i = 0; i < 2; i++) {
          const after = await statusOf(served, taskId);
          expect(after.status).toBe("cancelled");
          expect(after.result).toBeUndefined();
        }
      });

      it("acks a terminal task the same way, and answers -32602 for an unknown one", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "tool_error");
        await untilStatus(served, taskId, "completed");
        expect(ownFields((await cancel(served, taskId)).body.result)).toEqual({ resultType: "complete" });
        expect((await statusOf(served, taskId)).status).toBe("completed");
        expectError((await cancel(served, "00000000-0000-4000-8000-000000000000")).body, -32602);
      });

      it("is never triggered by notifications/cancelled", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "controlled");
        const res = await served.fetch(modernRequest("notifications/cancelled", { requestId: 1, taskId }, { id: null, caps }));
        expect(res.status).toBe(202);
        expect((await statusOf(served, taskId)).status).toBe("working");
        expect((await statusOf(served, taskId)).status).toBe("working");
      });
    });

    describe("tasks/* handlers", () => {
      it("answers -32602 for unknown ids and for a missing taskId", async () => {
        const { app: served } = app();
        expectError((await get(served, "nope")).body, -32602);
        expectError((await update(served, "nope", {})).body, -32602);
        expectError((await call(served, "tasks/get", {}, { caps })).body, -32602);
      });

      it("answers -32021 on all three when the request does not declare the extension", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "controlled");
        for (const m of ["tasks/get", "tasks/update", "tasks/cancel"]) {
          const r = await call(served, m, { taskId, inputResponses: {} }, { caps: {} });
          expect(r.status).toBe(400);
          expect(expectError(r.body, -32021).data.requiredCapabilities).toEqual({ extensions: { [TASKS]: {} } });
        }
      });

      it("requires Mcp-Name to equal params.taskId", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "controlled");
        expectError((await get(served, taskId, { headers: { "mcp-name": "other" } })).body, -32020);
        expectError((await get(served, taskId, { headers: { "mcp-name": null } })).body, -32020);
      });

      it("answers -32602 for inputResponses that are not an object", async () => {
        const { app: served } = app();
        const { taskId } = await create(served, "confirm_delete");
        expectError((await update(served, taskId, [1])).body, -32602);
      });
    });

    describe("execution.taskSupport", () => {
      it("refuses a required tool with -32021 before the handler runs", async () => {
        const { app: served, seen } = app();
        const r = await call(served, "tools/call", { name: "required" }, { caps: {} });
        expect(r.status).toBe(400);
        expect(r.body.error).toEqual({
          code: -32021,
          message: "Missing required client capability",
          data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
        });
        expect(seen.handlerRuns).toBe(0);
        expect((await call(served, "tools/call", { name: "required" }, { caps })).body.result.resultType).toBe("task");
      });

      it("never changes dispatch for optional and forbidden", async () => {
        const { app: served } = app();
        expect((await call(served, "tools/call", { name: "forbidden" }, { caps })).body.result.content[0].text).toBe("forbidden ran");
        expect((await call(served, "tools/call", { name: "render" }, { caps: {} })).body.result.resultType).toBe("complete");
      });
    });

    describe("the store's bound", () => {
      it("fails creation at max without dropping a handle", async () => {
        const { app: served } = app({ max: 2 });
        const a = await create(served, "controlled");
        const b = await create(served, "controlled");
        const c = await create(served, "try_task");
        expect(c.content[0].text).toMatch(/full|too many tasks/i);
        for (const t of [a, b]) expect((await get(served, t.taskId)).body.result.status).toBe("working");
      });
    });

    describe("bind", () => {
      it("scopes tasks to their caller; a foreign caller gets byte-for-byte the unknown-id error", async () => {
        const { app: served } = app({ bind: (e) => e.req.headers.get("x-user") });
        const { taskId } = await create(served, "controlled", undefined, { headers: { "x-user": "alice" } });
        expect((await get(served, taskId, { headers: { "x-user": "alice" } })).body.result.status).toBe("working");
        for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
          const foreign = await served.fetch(modernRequest(method, { taskId, inputResponses: {} }, { caps, headers: { "x-user": "mallory" } }));
          const unknown = await served.fetch(modernRequest(method, { taskId: "11111111-1111-4111-8111-111111111111", inputResponses: {} }, {
            caps,
            headers: { "x-user": "mallory", "mcp-name": "11111111-1111-4111-8111-111111111111" },
          }));
          expect(foreign.status).toBe(unknown.status);
          expect(await foreign.text()).toBe(await unknown.text());
        }
        expect((await get(served, taskId, { headers: { "x-user": "alice" } })).body.result.status).toBe("working");
      });
    });

    describe("enabled(event)", () => {
      it("refuses tasks/* with -32601 for a rejected request; static options advertise once, dynamic follow the predicate", async () => {
        const beta = (e: any) => e.req.headers.get("x-beta") === "1";
        const { app: served } = app({ enabled: beta });
        const { taskId } = await create(served, "controlled", undefined, { headers: { "x-beta": "1" } });
        expectError((await get(served, taskId)).body, -32601);
        expect((await get(served, taskId, { headers: { "x-beta": "1" } })).body.result.status).toBe("working");
        expect((await call(served, "server/discover")).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });

        const { app: dyn } = app({ enabled: beta }, { dynamic: true });
        expect((await call(dyn, "server/discover")).body.result.capabilities.extensions).toBeUndefined();
        expect((await call(dyn, "server/discover", {}, { headers: { "x-beta": "1" } })).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
      });
    });
  });
}
