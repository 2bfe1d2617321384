// `_meta["io.modelcontextprotocol/serverInfo"]` on every 2026-07-28 result (ResultMetaObject: servers
// SHOULD include it on every response unless configured not to), and nowhere once turned off.
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, definePrompt, defineResource, defineTool, type McpServerOptions } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectResult, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const INFO = "io.modelcontextprotocol/serverInfo";
const SUB = "io.modelcontextprotocol/subscriptionId";
const caps = { extensions: { [TASKS]: {} } };
const serverInfo = { name: "info-test", version: "2.1.0", title: "Info test" };

function served(extra: Partial<McpServerOptions> = {}) {
  const options: McpServerOptions = {
    ...serverInfo,
    tools: [
      defineTool({ name: "echo", inputSchema: z.object({ text: z.string() }), handler: (_e, { text }) => text }),
      defineTool({ name: "own_meta", handler: () => ({ content: [], _meta: { "com.example/trace": "t1" } }) }),
      defineTool({ name: "job", handler: (e) => mcpTask(e, { run: () => ({ content: [{ type: "text", text: "done" }] }) }) }),
    ],
    prompts: [definePrompt({ name: "greet", handler: () => "Hello" })],
    resources: [defineResource({ uri: "file:///a.txt", name: "a", read: () => "A" })],
    ...extra,
  };
  const handler = defineMcpHandler(options, { extensionPlugins: [mcpTasks()] });
  return { app: appFor(handler), handler };
}

/** Every kind of 2026-07-28 result this server gives, by method. */
async function everyResult(app: ReturnType<typeof served>["app"]) {
  const results: Record<string, any> = {};
  const one = async (label: string, method: string, params: Record<string, unknown> = {}) => {
    const r = await call(app, method, params, { caps });
    expect(r.body.error, label).toBeUndefined();
    results[label] = r.body.result;
    return r.body.result;
  };
  await one("server/discover", "server/discover");
  await one("tools/list", "tools/list");
  await one("tools/call", "tools/call", { name: "echo", arguments: { text: "hi" } });
  await one("tools/call with its own _meta", "tools/call", { name: "own_meta" });
  const handle = await one("tools/call answered with a task", "tools/call", { name: "job" });
  await one("tasks/get", "tasks/get", { taskId: handle.taskId });
  await new Promise((r) => setTimeout(r, 5));
  await one("tasks/get of a finished task", "tasks/get", { taskId: handle.taskId });
  await one("tasks/update", "tasks/update", { taskId: handle.taskId, inputResponses: {} });
  await one("tasks/cancel", "tasks/cancel", { taskId: handle.taskId });
  await one("prompts/list", "prompts/list");
  await one("prompts/get", "prompts/get", { name: "greet" });
  await one("resources/list", "resources/list");
  await one("resources/templates/list", "resources/templates/list");
  await one("resources/read", "resources/read", { uri: "file:///a.txt" });
  return results;
}

describe("serverInfo in _meta", () => {
  it("is on every result, as the server describes itself", async () => {
    const { app } = served();
    const results = await everyResult(app);
    for (const [label, result] of Object.entries(results)) expect([label, result._meta?.[INFO]]).toEqual([label, serverInfo]);
    expectResult({ jsonrpc: "2.0", id: 1, result: results["tools/call"] }, S.callTool);
    expectShape(S.createTask, results["tools/call answered with a task"]);
    expectShape(S.getTask, results["tasks/get of a finished task"]);
    // A result's own _meta keeps its keys.
    expect(results["tools/call with its own _meta"]._meta).toEqual({ "com.example/trace": "t1", [INFO]: serverInfo });
  });

  it("is on the result that ends a listen stream, beside its subscriptionId", async () => {
    const { app, handler } = served();
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "s1" })));
    expect((await sse.next()).method).toBe("notifications/subscriptions/acknowledged");
    handler.closeStreams();
    const end = await sse.next();
    expect(end).toEqual({ jsonrpc: "2.0", id: "s1", result: { resultType: "complete", _meta: { [SUB]: "s1", [INFO]: serverInfo } } });
    await sse.close();
  });

  it("is left out everywhere with serverInfoMeta: false", async () => {
    const { app } = served({ serverInfoMeta: false });
    const results = await everyResult(app);
    for (const [label, result] of Object.entries(results)) expect([label, result._meta?.[INFO]]).toEqual([label, undefined]);
    expect(results["tools/call with its own _meta"]._meta).toEqual({ "com.example/trace": "t1" });
  });

  it("is not added for a legacy session, whose results have no such key", async () => {
    const { app } = served();
    const client = await legacyClient(app);
    const r = await client.request("tools/call", { name: "echo", arguments: { text: "hi" } });
    expect(r.body.result._meta).toBeUndefined();
  });
});
