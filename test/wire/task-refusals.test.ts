// Where no task may be given, the answer is a JSON-RPC error that names the cause, never a tool
// result a model would read as its own tool failing: an undeclared extension, a plugin that is not
// installed or not enabled, a full store, a caller that already went away, a `bind` that refuses.
import { memoryStore } from "../helpers/memory-store.ts";
import { request as httpRequest } from "node:http";
import { H3, HTTPError, serve, type H3Event } from "h3";
import { describe, expect, it } from "vitest";
import * as root from "../../src/index.ts";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import * as tasksEntry from "../../src/tasks/index.ts";
import { canCreateTask, mcpTask, mcpTasks, type McpTasksOptions } from "../../src/tasks/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} } };
const REQUIRED = { requiredCapabilities: { extensions: { [TASKS]: {} } } };

/** A server with a tool that always answers with a task and a `taskSupport: "required"` one, counting handler runs. */
function server(plugins: ReturnType<typeof mcpTasks>[]) {
  const runs = { always: 0, required: 0 };
  const work = { run: () => ({ content: [{ type: "text" as const, text: "done" }] }) };
  const tools = [
    defineTool({ name: "always", handler: (e) => (runs.always++, mcpTask(e, work)) }),
    defineTool({ name: "required", execution: { taskSupport: "required" }, handler: (e) => (runs.required++, mcpTask(e, work)) }),
  ];
  const app = appFor(defineMcpHandler({ name: "x", version: "1", tools }, { extensionPlugins: plugins }));
  return { app, runs };
}

describe("mcpTask where no task may be given", () => {
  it("answers -32021 with HTTP 400 naming the extension to a client that did not declare it, as a required tool does", async () => {
    const { app, runs } = server([mcpTasks()]);
    for (const name of ["always", "required"]) {
      const r = await call(app, "tools/call", { name }, { caps: {} });
      expect(r.status).toBe(400);
      expect(expectError(r.body, -32021)).toEqual({ code: -32021, message: "Missing required client capability", data: REQUIRED });
    }
    expect(runs).toEqual({ always: 1, required: 0 });
  });

  it.each([
    ["the plugin is not installed", [], /not installed.*mcpTasks\(\)/],
    ["the plugin is disabled", [mcpTasks({ enabled: false })], /not enabled/],
    ["enabled(event) rejects the request", [mcpTasks({ enabled: () => false })], /not enabled/],
  ])("answers a JSON-RPC error naming the cause when %s, and refuses a required tool before its handler", async (_why, plugins, cause) => {
    const { app, runs } = server(plugins as ReturnType<typeof mcpTasks>[]);
    for (const name of ["always", "required"]) {
      const r = await call(app, "tools/call", { name }, { caps });
      expect(expectError(r.body, -32603).message).toMatch(cause);
      expect(r.body.result).toBeUndefined();
    }
    expect(runs).toEqual({ always: 1, required: 0 });
  });

  it("answers a legacy session with a JSON-RPC error, not a tool result", async () => {
    const { app } = server([mcpTasks()]);
    const client = await legacyClient(app);
    const r = await client.request("tools/call", { name: "always" });
    expect(r.body.error.message).toMatch(/2026-07-28/);
    expect(r.body.result).toBeUndefined();
  });
});

describe("a full store", () => {
  it("is a JSON-RPC -32603 naming the cap, for mcpTask and for a required tool (refused before its handler); canCreateTask is false", async () => {
    const { app, plugin, seen } = tasksApp({ max: 1 });
    expect((await call(app, "tools/call", { name: "controlled" }, { caps })).body.result.resultType).toBe("task");
    const full = await call(app, "tools/call", { name: "controlled" }, { caps });
    expect(full.body.error).toEqual({ code: -32603, message: "The task store is full (1 task retained); try again later", data: { max: 1 } });
    const required = await call(app, "tools/call", { name: "required" }, { caps });
    expect(required.body.error).toEqual(full.body.error);
    expect(seen.handlerRuns).toBe(0);
    expect((await call(app, "tools/call", { name: "render" }, { caps })).body.result.content[0].text).toBe("Rendered synchronously.");
    expect(memoryStore(plugin).size).toBe(1);
  });
});

describe("a call whose client has already gone", () => {
  it("creates no task: canCreateTask is false and mcpTask throws, storing nothing", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const verdicts: boolean[] = [];
    const tool = defineTool({
      name: "slow",
      handler: async (event) => {
        await released;
        verdicts.push(canCreateTask(event));
        return mcpTask(event, { run: () => ({ content: [] }) });
      },
    });
    const plugin = mcpTasks();
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [plugin] }));
    const client = new AbortController();
    const base = modernRequest("tools/call", { name: "slow" }, { caps });
    const pending = app.fetch(new Request(base, { signal: client.signal }));
    client.abort();
    release();
    const res = await pending;
    expect(verdicts).toEqual([false]);
    expect(memoryStore(plugin).size).toBe(0);
    expect(expectError(await res.json(), -32603).message).toMatch(/went away/);
  });
});

describe("a call whose client hung up, over real HTTP (srvx on Node)", () => {
  it("creates no task once the connection is gone", async () => {
    let hungUp!: () => void;
    const gone = new Promise<void>((r) => (hungUp = r));
    const verdicts: boolean[] = [];
    let answered!: () => void;
    const handled = new Promise<void>((r) => (answered = r));
    const tool = defineTool({
      name: "slow",
      handler: async (event) => {
        await gone;
        // The close reaches the response a moment after the socket is destroyed.
        await new Promise((r) => setTimeout(r, 50));
        verdicts.push(canCreateTask(event));
        try {
          return mcpTask(event, { run: () => ({ content: [] }) });
        } finally {
          answered();
        }
      },
    });
    const plugin = mcpTasks();
    const app = new H3().all("/mcp", defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [plugin] }));
    const server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    try {
      const base = modernRequest("tools/call", { name: "slow" }, { caps });
      const url = new URL("/mcp", server.url!);
      const req = httpRequest(url, { method: "POST", headers: Object.fromEntries(base.headers) });
      req.on("error", () => {});
      req.end(await base.text());
      await new Promise((r) => setTimeout(r, 100));
      req.destroy();
      hungUp();
      await handled;
      expect(verdicts).toEqual([false]);
      expect(memoryStore(plugin).size).toBe(0);
    } finally {
      await server.close(true);
    }
  });
});

describe("mcpTasks() options that cannot go on the wire", () => {
  it.each([
    ["pollIntervalMs", 2.5],
    ["pollIntervalMs", -1],
    ["pollIntervalMs", 0],
    ["pollIntervalMs", Number.NaN],
    ["pollIntervalMs", null],
    ["ttlMs", 1.5],
    ["ttlMs", -5],
    ["ttlMs", Number.POSITIVE_INFINITY],
    ["max", 2.5],
    ["max", 0],
  ])("refuses %s: %s with a TypeError", (key, value) => {
    expect(() => mcpTasks({ [key]: value } as McpTasksOptions)).toThrow(TypeError);
  });

  it("takes positive integers, and null for an unlimited ttlMs", async () => {
    const { app } = tasksApp({ pollIntervalMs: 250, ttlMs: null, max: 3 });
    const handle = (await call(app, "tools/call", { name: "controlled" }, { caps })).body.result;
    expectShape(S.createTask, handle);
    expect([handle.pollIntervalMs, handle.ttlMs]).toEqual([250, null]);
  });
});

describe("mcpTasks({ enabled: false })", () => {
  it("advertises nothing and serves nothing", async () => {
    const { app } = tasksApp({ enabled: false });
    const discover = (await call(app, "server/discover")).body.result;
    expectShape(S.discover, discover);
    expect(discover.capabilities.extensions).toBeUndefined();
    expectError((await call(app, "tasks/get", { taskId: "a" }, { caps })).body, -32601);
  });
});

describe("bind throwing an h3 HTTPError", () => {
  const unauthenticated = () => {
    throw new HTTPError({ status: 401, message: "Sign in first", headers: { "www-authenticate": 'Bearer realm="mcp"' } });
  };
  const bindFor = (e: H3Event) => {
    const user = e.req.headers.get("x-user");
    if (user === "blocked") throw HTTPError.status(403);
    return user ?? unauthenticated();
  };

  it("keeps its status with a JSON-RPC error that says unauthenticated or forbidden, on creation, tasks/* and listen", async () => {
    const { app } = tasksApp({ bind: bindFor });
    const { taskId } = (await call(app, "tools/call", { name: "controlled" }, { caps, headers: { "x-user": "alice" } })).body.result;
    const requests: [string, Record<string, unknown>][] = [
      ["tools/call", { name: "controlled" }],
      ["tasks/get", { taskId }],
      ["tasks/update", { taskId, inputResponses: {} }],
      ["tasks/cancel", { taskId }],
      ["subscriptions/listen", { notifications: { taskIds: [taskId] } }],
    ];
    for (const [method, params] of requests) {
      const anonymous = await app.fetch(modernRequest(method, params, { caps }));
      expect([method, anonymous.status]).toEqual([method, 401]);
      expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="mcp"');
      expect(anonymous.headers.get("content-type")).toMatch(/application\/json/);
      expect(expectError(await anonymous.json(), -32600).message).toMatch(/^Unauthenticated/);
      const blocked = await app.fetch(modernRequest(method, params, { caps, headers: { "x-user": "blocked" } }));
      expect([method, blocked.status]).toEqual([method, 403]);
      expect(expectError(await blocked.json(), -32600).message).toMatch(/^Forbidden/);
    }
    expect((await call(app, "tasks/get", { taskId }, { caps, headers: { "x-user": "alice" } })).body.result.status).toBe("working");
  });
});

describe("the tasks entry", () => {
  it("exports McpJsonRpcError and mcpElicit, the same as the root entry", () => {
    expect(tasksEntry.McpJsonRpcError).toBe(root.McpJsonRpcError);
    expect(tasksEntry.mcpElicit).toBe(root.mcpElicit);
  });
});
