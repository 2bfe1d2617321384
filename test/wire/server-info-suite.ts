// `_meta["io.modelcontextprotocol/serverInfo"]` on every 2026-07-28 result (ResultMetaObject: servers SHOULD
// include it on every response unless configured not to), whichever way the answer leaves: plain JSON, JSON
// for a request that asked for progress or logs, the last frame of an SSE stream, a listen stream's end; and
// never on an error, whose object has no `_meta`. Run per task store (test/wire/server-info.test.ts in memory,
// test/redis/server-info.test.ts on two instances sharing Redis).
import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  defineMcpHandler,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  mcpLog,
  mcpProgress,
  McpJsonRpcError,
  type McpPlugin,
  type McpServerOptions,
} from "../../src/index.ts";
import { mcpTask, mcpTasks, type McpTasksOptions } from "../../src/tasks/index.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError, expectResult, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, roundRobin, TASKS } from "../helpers/wire.ts";

const INFO = "io.modelcontextprotocol/serverInfo";
const SUB = "io.modelcontextprotocol/subscriptionId";
const caps = { extensions: { [TASKS]: {} } };
const serverInfo = { name: "info-test", version: "2.1.0", title: "Info test" };
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** How a request may ask to be answered: plainly, with progress, or with logs (both open a stream channel). */
const MODES = {
  "a plain request": {},
  "a request with a progressToken": { progressToken: "p1" },
  "a request asking for logs": { "io.modelcontextprotocol/logLevel": "debug" },
} as const;

function options(extra: Partial<McpServerOptions> = {}): McpServerOptions {
  return {
    ...serverInfo,
    tools: [
      defineTool({ name: "echo", inputSchema: z.object({ text: z.string() }), handler: (_e, { text }) => text }),
      defineTool({ name: "echo_later", handler: async () => (await tick(), "later") }),
      defineTool({ name: "own_meta", handler: () => ({ content: [], _meta: { "com.example/trace": "t1" } }) }),
      defineTool({ name: "job", handler: (e) => mcpTask(e, { run: () => ({ content: [{ type: "text", text: "done" }] }) }) }),
      // Frames queued before a synchronous answer: the answer streams, its result the last frame.
      defineTool({
        name: "report_then_answer",
        handler: (e) => {
          mcpProgress(e, 1, 2);
          mcpLog(e, "info", "half way");
          return "answered";
        },
      }),
      defineTool({
        name: "report_then_answer_later",
        handler: async (e) => {
          mcpProgress(e, 1, 2);
          mcpLog(e, "info", "half way");
          await tick();
          return "answered later";
        },
      }),
      defineTool({
        name: "report_then_fail",
        handler: async (e) => {
          mcpProgress(e, 1, 2);
          mcpLog(e, "info", "about to fail");
          await tick();
          throw new McpJsonRpcError(-32602, "refused after reporting");
        },
      }),
      defineTool({
        name: "fail",
        handler: () => {
          throw new McpJsonRpcError(-32602, "refused at once");
        },
      }),
    ],
    prompts: [
      definePrompt({ name: "greet", handler: () => "Hello" }),
      definePrompt({
        name: "greet_later",
        arguments: z.object({ who: z.string() }),
        complete: { who: (value) => ["ada", "alan"].filter((n) => n.startsWith(value)) },
        handler: async (e, { who }) => {
          mcpProgress(e, 1);
          await tick();
          return `Hello ${who}`;
        },
      }),
    ],
    resources: [defineResource({ uri: "file:///a.txt", name: "a", read: () => "A" })],
    resourceTemplates: [defineResourceTemplate({ uriTemplate: "file:///docs/{name}", name: "doc", read: (_e, _uri, { name }) => `doc ${name}` })],
    ...extra,
  };
}

/** `plugins` are installed before the tasks extension on every instance (hooks the answers pass through). */
export function serverInfoSuite(label: string, instances: () => McpTasksOptions[], plugins: () => McpPlugin[] = () => []): void {
  const served = (extra: Partial<McpServerOptions> = {}) => {
    const handlers = instances().map((own) => defineMcpHandler(options(extra), { plugins: plugins(), extensionPlugins: [mcpTasks(own)] }));
    return { app: roundRobin(handlers.map(appFor)), handlers };
  };

  /** Every kind of 2026-07-28 result this server gives, by method, each answered in `mode`. */
  async function everyResult(app: ReturnType<typeof served>["app"], meta: Record<string, unknown> = {}) {
    const results: Record<string, any> = {};
    const one = async (label: string, method: string, params: Record<string, unknown> = {}) => {
      const r = await call(app, method, params, { caps, meta });
      expect(r.body.error, label).toBeUndefined();
      results[label] = r.body.result;
      return r.body.result;
    };
    await one("server/discover", "server/discover");
    await one("tools/list", "tools/list");
    await one("tools/call", "tools/call", { name: "echo", arguments: { text: "hi" } });
    await one("tools/call answered later", "tools/call", { name: "echo_later" });
    await one("tools/call with its own _meta", "tools/call", { name: "own_meta" });
    const handle = await one("tools/call answered with a task", "tools/call", { name: "job" });
    await expect.poll(async () => (await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result.status).toBe("completed");
    await one("tasks/get of a finished task", "tasks/get", { taskId: handle.taskId });
    await one("tasks/update", "tasks/update", { taskId: handle.taskId, inputResponses: {} });
    await one("tasks/cancel", "tasks/cancel", { taskId: handle.taskId });
    await one("prompts/list", "prompts/list");
    await one("prompts/get", "prompts/get", { name: "greet" });
    await one("resources/list", "resources/list");
    await one("resources/templates/list", "resources/templates/list");
    await one("resources/read", "resources/read", { uri: "file:///a.txt" });
    await one("resources/read of a template", "resources/read", { uri: "file:///docs/x" });
    await one("completion/complete", "completion/complete", { ref: { type: "ref/prompt", name: "greet_later" }, argument: { name: "who", value: "a" } });
    return results;
  }

  describe(`serverInfo in _meta (${label})`, () => {
    for (const [mode, meta] of Object.entries(MODES)) {
      it(`is on every result of ${mode}, as the server describes itself`, async () => {
        const { app } = served();
        const results = await everyResult(app, meta);
        for (const [label, result] of Object.entries(results)) expect([label, result._meta?.[INFO]]).toEqual([label, serverInfo]);
        // A synchronous answer that queued no frame leaves as JSON, progress asked for or not.
        const sync = await call(app, "tools/call", { name: "echo", arguments: { text: "hi" } }, { caps, meta });
        expect(sync.res.headers.get("content-type")).toBe("application/json");
        expectResult({ jsonrpc: "2.0", id: 1, result: results["tools/call"] }, S.callTool);
        expectShape(S.createTask, results["tools/call answered with a task"]);
        expectShape(S.getTask, results["tasks/get of a finished task"]);
        // A result's own _meta keeps its keys.
        expect(results["tools/call with its own _meta"]._meta).toEqual({ "com.example/trace": "t1", [INFO]: serverInfo });
      });
    }

    it("is on the last frame of a streamed answer, after the progress and logs, for every method that streams", async () => {
      const { app } = served();
      const meta = { progressToken: "p1", "io.modelcontextprotocol/logLevel": "debug" };
      for (const [method, params] of [
        ["tools/call", { name: "report_then_answer" }],
        ["tools/call", { name: "report_then_answer_later" }],
        ["prompts/get", { name: "greet_later", arguments: { who: "ada" } }],
      ] as const) {
        const r = await call(app, method, params, { caps, meta });
        expect(r.res.headers.get("content-type"), `${method} ${JSON.stringify(params)}`).toContain("text/event-stream");
        const notes = r.messages.slice(0, -1).map((m) => m.method);
        expect(notes).toContain("notifications/progress");
        expect(r.body.result._meta).toEqual({ [INFO]: serverInfo });
        expectResult(r.body, method === "tools/call" ? S.callTool : S.getPrompt);
      }
    });

    it("is never on an error, as JSON or as a stream's last frame", async () => {
      const { app } = served();
      for (const meta of Object.values(MODES)) {
        for (const [name, streamed] of [
          ["fail", false],
          ["missing_tool", false],
          ["report_then_fail", "progressToken" in meta || "io.modelcontextprotocol/logLevel" in meta],
        ] as const) {
          const r = await call(app, "tools/call", { name }, { caps, meta });
          expect(r.res.headers.get("content-type")?.includes("text/event-stream"), name).toBe(streamed);
          expectError(r.body, -32602);
          expect(r.body.result).toBeUndefined();
          expect(Object.keys(r.body.error).sort()).toEqual(["code", "message"]);
        }
      }
    });

    it("is never on an error of any method or stage: the message is jsonrpc, id and error, the error code, message and data", async () => {
      const { app, handlers } = served();
      const errors: [string, Request, number][] = [
        ["tools/call of an unknown tool", modernRequest("tools/call", { name: "nope" }, { caps }), -32602],
        ["tools/call with bad arguments", modernRequest("tools/call", { name: "echo", arguments: { text: 1 } }, { caps }), -32602],
        ["prompts/get of an unknown prompt", modernRequest("prompts/get", { name: "nope" }, { caps }), -32602],
        ["resources/read of an unknown resource", modernRequest("resources/read", { uri: "file:///nope" }, { caps }), -32602],
        ["completion/complete of an unknown prompt", modernRequest("completion/complete", { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "a", value: "" } }, { caps }), -32602],
        ["tasks/get of an unknown task", modernRequest("tasks/get", { taskId: "nope" }, { caps }), -32602],
        ["tools/list with a bad cursor", modernRequest("tools/list", { cursor: "nope" }, { caps }), -32602],
        ["an unknown method", modernRequest("nope/nope", {}, { caps }), -32601],
        ["a header that does not match the body", modernRequest("tools/call", { name: "echo", arguments: { text: "hi" } }, { caps, headers: { "mcp-name": "other" } }), -32020],
        ["an unsupported protocol version", modernRequest("tools/list", {}, { caps, meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" }, headers: { "mcp-protocol-version": "2099-01-01" } }), -32022],
        ["a body that is not JSON", new Request("http://localhost/mcp", { method: "POST", headers: { "content-type": "application/json", "mcp-protocol-version": "2026-07-28" }, body: "{" }), -32700],
      ];
      for (const [label, request, code] of errors) {
        const res = await app.fetch(request);
        const text = await res.text();
        const body = JSON.parse(text);
        expect([label, res.headers.get("content-type")]).toEqual([label, "application/json"]);
        expect([label, body.error?.code]).toEqual([label, code]);
        expectError(body, code);
        expect([label, Object.keys(body).filter((k) => k !== "id").sort()]).toEqual([label, ["error", "jsonrpc"]]);
        expect(Object.keys(body.error).every((k) => ["code", "message", "data"].includes(k)), label).toBe(true);
        expect(text, label).not.toContain(INFO);
      }
      // A legacy session's errors have no such key either.
      const client = await legacyClient(appFor(handlers[0]!));
      for (const [method, params] of [["tools/call", { name: "nope" }], ["prompts/get", { name: "nope" }], ["nope/nope", {}]] as const) {
        const r = await client.request(method, params);
        expect(Object.keys(r.body).sort(), method).toEqual(["error", "id", "jsonrpc"]);
        expect(JSON.stringify(r.body), method).not.toContain(INFO);
      }
    });

    it("is on the result that ends a listen stream, beside its subscriptionId", async () => {
      const { app, handlers } = served();
      const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "s1" })));
      expect((await sse.next()).method).toBe("notifications/subscriptions/acknowledged");
      for (const handler of handlers) handler.closeStreams();
      const end = await sse.next();
      expect(end).toEqual({ jsonrpc: "2.0", id: "s1", result: { resultType: "complete", _meta: { [SUB]: "s1", [INFO]: serverInfo } } });
      await sse.close();
    });

    it("is left out everywhere with serverInfoMeta: false", async () => {
      const { app } = served({ serverInfoMeta: false });
      for (const meta of Object.values(MODES)) {
        const results = await everyResult(app, meta);
        for (const [label, result] of Object.entries(results)) expect([label, result._meta?.[INFO]]).toEqual([label, undefined]);
        expect(results["tools/call with its own _meta"]._meta).toEqual({ "com.example/trace": "t1" });
      }
      const streamed = await call(app, "tools/call", { name: "report_then_answer" }, { caps, meta: { progressToken: 1 } });
      expect(streamed.body.result._meta).toBeUndefined();
    });

    it("is not added for a legacy session, whose results have no such key, streamed or not", async () => {
      // A legacy session lives on the instance that opened it.
      const { handlers } = served();
      const client = await legacyClient(appFor(handlers[0]!));
      const own = await client.request("tools/call", { name: "own_meta" });
      expect(own.body.result).toEqual({ content: [], _meta: { "com.example/trace": "t1" } });
      for (const [name, progressToken] of [["echo", undefined], ["echo", "p1"], ["report_then_answer", "p2"], ["report_then_answer_later", "p3"]] as const) {
        const params = { name, arguments: name === "echo" ? { text: "hi" } : {}, ...(progressToken && { _meta: { progressToken } }) };
        const r = await client.request("tools/call", params);
        expect(r.body.result.content.length, name).toBeGreaterThan(0);
        expect(r.body.result._meta, `${name} ${progressToken}`).toBeUndefined();
        // Nor any other 2026-07-28 field: a 2025-11-25 result has no resultType.
        expect(r.body.result.resultType, `${name} ${progressToken}`).toBeUndefined();
      }
    });
  });
}
