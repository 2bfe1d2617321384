import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { coreApp } from "../fixtures/core-app.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, rawRequest } from "../helpers/wire.ts";
import { mountOf } from "../../src/transport/handler.ts";

const taskTool = defineTool({
  name: "maybe_task",
  execution: { taskSupport: "optional" },
  handler: (event) => (canCreateTask(event) ? mcpTask(event, { run: () => ({ content: [] }) }) : "ran synchronously"),
});
const requiredTool = defineTool({ name: "must_task", execution: { taskSupport: "required" }, handler: () => "never" });

function appWithTasks() {
  const handler = defineMcpHandler({ name: "legacy-test", version: "1", tools: [taskTool, requiredTool] }, { extensionPlugins: [mcpTasks()] });
  return { handler, app: appFor(handler) };
}

describe("legacy era on the same route", () => {
  it.each(["2025-11-25", "2025-06-18", "2025-03-26"])("initializes a %s client with an unguessable session id", async (version) => {
    const { app } = coreApp();
    const c = await legacyClient(app, version);
    expect(c.initStatus).toBe(200);
    expectShape(S.initialize, c.initResult);
    expect(c.initResult.protocolVersion).toBe(version);
    expect(c.initResult.serverInfo).toEqual({ name: "core-test", version: "1.2.3" });
    expect(c.initResult.instructions).toBe("Be nice");
    expect(c.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const list = await c.request("tools/list");
    expect(list.body.result.tools.length).toBeGreaterThan(0);
    expect(list.body.result.resultType).toBeUndefined();
    expect(list.body.result.ttlMs).toBeUndefined();
    const echo = await c.request("tools/call", { name: "echo", arguments: { text: "old" } });
    expect(echo.body.result).toEqual({ content: [{ type: "text", text: "old" }] });
    expect((await c.request("ping")).body.result).toEqual({});
  });

  it("negotiates down to 2025-11-25 for a version it does not know", async () => {
    const c = await legacyClient(coreApp().app, "2024-01-01");
    expect(c.initResult.protocolVersion).toBe("2025-11-25");
  });

  it("never shows modern-only capabilities, and runs tools synchronously ignoring params.task", async () => {
    const { app } = appWithTasks();
    const c = await legacyClient(app);
    expect(c.initResult.capabilities.extensions).toBeUndefined();
    expect(c.initResult.capabilities.tasks).toBeUndefined();
    const r = await c.request("tools/call", { name: "maybe_task", task: { ttl: 1000 } });
    expect(r.body.result).toEqual({ content: [{ type: "text", text: "ran synchronously" }] });
    const tools = (await c.request("tools/list")).body.result.tools;
    expect(tools.find((t: any) => t.name === "must_task").execution).toEqual({ taskSupport: "required" });
  });

  it("gives a clear error for a tool that requires a task", async () => {
    const c = await legacyClient(appWithTasks().app);
    const r = await c.request("tools/call", { name: "must_task" });
    expect(r.body.error.code).toBe(-32601);
    expect(r.body.error.message).toMatch(/only run as a task/);
  });

  it("does not serve tasks/* to a legacy session", async () => {
    const c = await legacyClient(appWithTasks().app);
    const r = await c.request("tasks/get", { taskId: "x" });
    expect(r.body.error.code).toBe(-32601);
  });

  it("accepts notifications/initialized with 202", async () => {
    const c = await legacyClient(coreApp().app);
    const res = await c.post({ method: "notifications/initialized" });
    expect(res.status).toBe(202);
  });

  it("answers 400 without a session and 404 for an unknown one", async () => {
    const { app } = coreApp();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect((await app.fetch(rawRequest(body, { "mcp-protocol-version": "2025-11-25" }))).status).toBe(400);
    const unknown = await app.fetch(rawRequest(body, { "mcp-protocol-version": "2025-11-25", "mcp-session-id": "nope" }));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(-32600);
  });

  it("streams list changes on the session's GET stream and ends the session on DELETE", async () => {
    const { app, handler } = coreApp();
    const c = await legacyClient(app);
    const get = await c.get();
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("text/event-stream");
    const sse = sseReader(get);
    handler.notifyListChanged("tools");
    expect(await sse.next()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} });
    expect((await c.del()).status).toBe(200);
    expect((await c.request("ping")).status).toBe(404);
    await sse.close();
    expect(mountOf(handler).hub.size).toBe(0);
  });

  it("sets a session log level with logging/setLevel", async () => {
    const c = await legacyClient(coreApp().app);
    expect((await c.request("logging/setLevel", { level: "warning" })).body.result).toEqual({});
    expect((await c.request("logging/setLevel", { level: "nope" })).body.error.code).toBe(-32602);
    const r = await c.request("tools/call", { name: "progress" });
    expect(r.messages.filter((m) => m.method === "notifications/message").map((m) => m.params.data)).toEqual(["warning line"]);
  });

  it("can be turned off, leaving a modern-only server", async () => {
    const app = appFor(defineMcpHandler({ name: "m", version: "1" }, { legacy: false }));
    const res = await app.fetch(rawRequest(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }), { "mcp-protocol-version": "2026-07-28" }));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: -32022, data: { supported: ["2026-07-28"] } });
  });
});
