// The tasks extension's surface on the wire, for any store: installing the plugin, the handle,
// canCreateTask and mcpTask, the tasks/* handlers' errors, taskSupport, the cap, bind and enabled
// (what `run` can do is in run-cases.ts).
import { mcpTask } from "../../features/task-api.ts";
import { defineTool } from "../../features/tools.ts";
import { defineMcpHandler } from "../../transport/handler.ts";
import { mcpTasks, type McpTasksOptions } from "../plugin.ts";
import { equal, includes, matches } from "./assert.ts";
import { appFor, call, modernRequest, TASKS, type CallOptions, type Fetcher } from "./client.ts";
import { caps, errorOf, kitTest, type KitCase, type TaskStoreKitOptions } from "./kit.ts";
import { tasksApp } from "./tasks-app.ts";

const get = (app: Fetcher, taskId: string, opts: CallOptions = {}) => call(app, "tasks/get", { taskId }, { caps, ...opts });
const update = (app: Fetcher, taskId: string, inputResponses: unknown, opts: CallOptions = {}) => call(app, "tasks/update", { taskId, inputResponses }, { caps, ...opts });
async function create(app: Fetcher, name: string, args?: Record<string, unknown>, opts: CallOptions = {}) {
  return (await call(app, "tools/call", { name, ...(args ? { arguments: args } : {}) }, { caps, ...opts })).body.result;
}

export function wireCases(kit: TaskStoreKitOptions, shared: boolean): void {
  const test = (name: string, body: (c: KitCase) => Promise<void>) => kitTest(kit, shared, name, body);
  const app = async (c: KitCase, options: McpTasksOptions = {}, handler: { dynamic?: boolean } = {}) =>
    tasksApp(options, { ...handler, instances: await c.instances() });
  kit.runner.describe("installing mcpTasks()", () => {
    test("advertises the extension and serves tasks/*; without it neither exists", async (c) => {
      const { app: served } = await app(c);
      equal((await call(served, "server/discover")).body.result.capabilities.extensions, { [TASKS]: {} });
      const bare = appFor(defineMcpHandler({ name: "x", version: "1" }));
      equal((await call(bare, "server/discover")).body.result.capabilities.extensions, undefined);
      for (const m of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const r = await call(bare, m, { taskId: "a" }, { caps });
        equal(r.status, 404);
        errorOf(c, r.body, -32601);
      }
    });

    test("answers -32601 for tasks/result and tasks/list", async (c) => {
      const { app: served } = await app(c);
      for (const m of ["tasks/result", "tasks/list"]) errorOf(c, (await call(served, m, { taskId: "a" }, { caps })).body, -32601);
    });
  });

  kit.runner.describe("the handle", () => {
    test("is a flat CreateTaskResult, stored before it is returned", async (c) => {
      const { app: served } = await app(c);
      const handle = await create(served, "render");
      c.shape("createTask", handle);
      equal(Object.keys(handle).sort(), ["_meta", "createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "statusMessage", "taskId", "ttlMs"]);
      includes(handle, { resultType: "task", status: "working", statusMessage: "Queued", ttlMs: 600_000, pollIntervalMs: 1000 });
      matches(handle.taskId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      equal(handle.createdAt, handle.lastUpdatedAt);
      equal(new Date(handle.createdAt).toISOString(), handle.createdAt);
      // No wait between creation and the first get (on the next instance): the handle must already resolve.
      equal((await get(served, handle.taskId)).body.result?.status, "working", "the task right after its handle");
    });

    test("takes ttlMs and pollIntervalMs from the plugin; null means unlimited", async (c) => {
      const { app: served } = await app(c, { ttlMs: null, pollIntervalMs: 250 });
      const handle = await create(served, "render");
      equal([handle.ttlMs, handle.pollIntervalMs], [null, 250]);
      c.shape("createTask", handle);
      includes((await get(served, handle.taskId)).body.result, { ttlMs: null, pollIntervalMs: 250 });
    });
  });

  kit.runner.describe("canCreateTask and mcpTask", () => {
    test("answers synchronously a client that did not declare the extension", async (c) => {
      const { app: served } = await app(c);
      const r = await call(served, "tools/call", { name: "render" }, { caps: {} });
      equal(r.body.result.content[0].text, "Rendered synchronously.");
    });

    test("throws the JSON-RPC error the call answers with when the client did not declare, the plugin is missing or disabled, or the store is full", async (c) => {
      const { app: served } = await app(c, { max: 1 });
      matches((await call(served, "tools/call", { name: "try_task" }, { caps: {} })).body.result.content[0].text, /Missing required client capability/);
      equal((await call(served, "tools/call", { name: "try_task" }, { caps })).body.result.resultType, "task");
      matches((await call(served, "tools/call", { name: "try_task" }, { caps })).body.result.content[0].text, /full/);

      const tool = defineTool({ name: "t", handler: (e) => mcpTask(e, { run: () => ({ content: [] }) }) });
      const none = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }));
      matches(errorOf(c, (await call(none, "tools/call", { name: "t" }, { caps })).body, -32603).message, /not installed/);
      const [own] = await c.instances();
      const off = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ ...own, enabled: false })] }));
      matches(errorOf(c, (await call(off, "tools/call", { name: "t" }, { caps })).body, -32603).message, /not enabled/);
    });
  });

  kit.runner.describe("tasks/* handlers", () => {
    test("answers -32602 for unknown ids and for a missing taskId", async (c) => {
      const { app: served } = await app(c);
      errorOf(c, (await get(served, "nope")).body, -32602);
      errorOf(c, (await update(served, "nope", {})).body, -32602);
      errorOf(c, (await call(served, "tasks/get", {}, { caps })).body, -32602);
    });

    test("answers -32021 on all three when the request does not declare the extension", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "controlled");
      for (const m of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const r = await call(served, m, { taskId, inputResponses: {} }, { caps: {} });
        equal(r.status, 400);
        equal(errorOf(c, r.body, -32021).data.requiredCapabilities, { extensions: { [TASKS]: {} } });
      }
    });

    test("requires Mcp-Name to equal params.taskId", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "controlled");
      errorOf(c, (await get(served, taskId, { headers: { "mcp-name": "other" } })).body, -32020);
      errorOf(c, (await get(served, taskId, { headers: { "mcp-name": null } })).body, -32020);
    });

    test("answers -32602 for inputResponses that are not an object", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "confirm_delete");
      errorOf(c, (await update(served, taskId, [1])).body, -32602);
    });
  });

  kit.runner.describe("execution.taskSupport", () => {
    test("refuses a required tool with -32021 before the handler runs", async (c) => {
      const { app: served, seen } = await app(c);
      const r = await call(served, "tools/call", { name: "required" }, { caps: {} });
      equal(r.status, 400);
      equal(r.body.error, { code: -32021, message: "Missing required client capability", data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
      equal(seen.handlerRuns, 0);
      equal((await call(served, "tools/call", { name: "required" }, { caps })).body.result.resultType, "task");
    });

    test("never changes dispatch for optional and forbidden", async (c) => {
      const { app: served } = await app(c);
      equal((await call(served, "tools/call", { name: "forbidden" }, { caps })).body.result.content[0].text, "forbidden ran");
      equal((await call(served, "tools/call", { name: "render" }, { caps: {} })).body.result.resultType, "complete");
    });
  });

  kit.runner.describe("the store's bound", () => {
    test("fails creation at max without dropping a handle", async (c) => {
      const { app: served } = await app(c, { max: 2 });
      const a = await create(served, "controlled");
      const b = await create(served, "controlled");
      const refused = await create(served, "try_task");
      matches(refused.content[0].text, /full/);
      for (const t of [a, b]) equal((await get(served, t.taskId)).body.result.status, "working");
    });
  });

  kit.runner.describe("bind", () => {
    test("scopes tasks to their caller; a foreign caller gets byte-for-byte the unknown-id error", async (c) => {
      const { app: served } = await app(c, { bind: (e) => e.req.headers.get("x-user") });
      const { taskId } = await create(served, "controlled", undefined, { headers: { "x-user": "alice" } });
      equal((await get(served, taskId, { headers: { "x-user": "alice" } })).body.result.status, "working");
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const foreign = await served.fetch(modernRequest(method, { taskId, inputResponses: {} }, { caps, headers: { "x-user": "mallory" } }));
        const unknown = await served.fetch(
          modernRequest(method, { taskId: "11111111-1111-4111-8111-111111111111", inputResponses: {} }, { caps, headers: { "x-user": "mallory", "mcp-name": "11111111-1111-4111-8111-111111111111" } }),
        );
        equal(foreign.status, unknown.status);
        equal(await foreign.text(), await unknown.text());
      }
      equal((await get(served, taskId, { headers: { "x-user": "alice" } })).body.result.status, "working");
    });

    test("compares owners by value: a JSON owner built fresh, its keys in any order, is the same caller on every instance", async (c) => {
      let flip = false;
      const bind = (e: any) => {
        flip = !flip;
        const user = e.req.headers.get("x-user");
        return flip ? { user, org: "acme" } : { org: "acme", user };
      };
      const { app: served } = await app(c, { bind });
      const { taskId } = await create(served, "controlled", undefined, { headers: { "x-user": "alice" } });
      for (let i = 0; i < 3; i++) equal((await get(served, taskId, { headers: { "x-user": "alice" } })).body.result?.status, "working");
      errorOf(c, (await get(served, taskId, { headers: { "x-user": "bob" } })).body, -32602);
    });
  });

  kit.runner.describe("enabled(event)", () => {
    test("refuses tasks/* with -32601 for a rejected request; static options advertise once, dynamic follow the predicate", async (c) => {
      const beta = (e: any) => e.req.headers.get("x-beta") === "1";
      const { app: served } = await app(c, { enabled: beta });
      const { taskId } = await create(served, "controlled", undefined, { headers: { "x-beta": "1" } });
      errorOf(c, (await get(served, taskId)).body, -32601);
      equal((await get(served, taskId, { headers: { "x-beta": "1" } })).body.result.status, "working");
      equal((await call(served, "server/discover")).body.result.capabilities.extensions, { [TASKS]: {} });

      const { app: dyn } = await app(c, { enabled: beta }, { dynamic: true });
      equal((await call(dyn, "server/discover")).body.result.capabilities.extensions, undefined);
      equal((await call(dyn, "server/discover", {}, { headers: { "x-beta": "1" } })).body.result.capabilities.extensions, { [TASKS]: {} });
    });
  });
}
