// The plugin hooks on the wire: one hook around every JSON-RPC request of both eras, one around a task's run,
// `wrapToolCall` around a task's result, what a task carries from its creating call, and sessions' ends.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { defineMcpHandler, defineMcpPlugin, defineTool, getMcpContext, McpJsonRpcError, type McpNext, type McpPlugin, type McpTaskStatus } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError } from "../helpers/schemas.ts";
import { appFor, call, messages, modernRequest, TASKS } from "../helpers/wire.ts";
import { until } from "../helpers/wait.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

interface Seen {
  method: string;
  era: string;
  outcome: "result" | "error" | "tool_error";
  code?: number;
  sessionId?: string;
  result?: Record<string, unknown>;
}

/** A plugin that records what each request hook saw. */
function recorder(): McpPlugin & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    name: "recorder",
    seen,
    async wrapRequest(event, next) {
      const ctx = getMcpContext(event);
      try {
        const result = await next();
        seen.push({ method: ctx.method, era: ctx.era, outcome: result.isError === true ? "tool_error" : "result", sessionId: ctx.sessionId, result });
        return result;
      } catch (error) {
        seen.push({ method: ctx.method, era: ctx.era, outcome: "error", code: (error as McpJsonRpcError).code, sessionId: ctx.sessionId });
        throw error;
      }
    },
  };
}

describe("wrapRequest", () => {
  it("wraps every core and extension method of 2026-07-28, seeing results, JSON-RPC errors and tool errors", async () => {
    const rec = recorder();
    const { app } = createDemo({}, undefined, [rec]);
    await call(app, "server/discover");
    await call(app, "tools/list");
    await call(app, "prompts/list");
    await call(app, "resources/list");
    await call(app, "resources/templates/list");
    await call(app, "tools/call", { name: "echo", arguments: { text: "hi" } });
    await call(app, "tools/call", { name: "test_error_handling" });
    await call(app, "tools/call", { name: "no_such_tool" });
    await call(app, "prompts/get", { name: "test_simple_prompt" });
    await call(app, "resources/read", { uri: "test://static-text" });
    await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "a" } });
    const task = (await call(app, "tools/call", { name: "greet_user" }, { caps })).body.result;
    expect(task).toBeDefined();
    const handle = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, { caps })).body.result;
    await until(async () => expect((await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result.status).toBe("completed"));
    await call(app, "tasks/cancel", { taskId: handle.taskId }, { caps });
    await call(app, "tasks/update", { taskId: "nope", inputResponses: {} }, { caps });
    const listen = await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true, taskIds: [handle.taskId] } }, { caps }));
    const reader = listen.body!.getReader();
    await reader.read();
    await reader.cancel();

    const byMethod = (m: string) => rec.seen.filter((s) => s.method === m);
    for (const m of ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "prompts/get", "resources/read", "completion/complete"]) {
      expect(byMethod(m), m).toMatchObject([{ era: "modern", outcome: "result" }]);
    }
    // The prepared list is seen as the object it is.
    expect((byMethod("tools/list")[0]!.result!.tools as unknown[]).length).toBeGreaterThan(5);
    expect(byMethod("tools/call").map((s) => s.outcome)).toEqual(["result", "tool_error", "error", "result", "result"]);
    expect(byMethod("tools/call")[2]!.code).toBe(-32602);
    expect(byMethod("tools/call")[4]!.result).toMatchObject({ resultType: "task", taskId: handle.taskId });
    // A finished task's tasks/get is answered from its stored JSON: the hook sees it parsed.
    expect(byMethod("tasks/get").at(-1)!.result).toMatchObject({ taskId: handle.taskId, status: "completed" });
    expect(byMethod("tasks/cancel")).toMatchObject([{ outcome: "result" }]);
    expect(byMethod("tasks/update")).toMatchObject([{ outcome: "error", code: -32602 }]);
    expect(byMethod("subscriptions/listen")).toMatchObject([{ outcome: "result", result: { notifications: { toolsListChanged: true, taskIds: [handle.taskId] } } }]);
  });

  it("wraps initialize, ping and every method of a 2025-11-25 session, which the hook sees by id", async () => {
    const rec = recorder();
    const { app } = createDemo({}, undefined, [rec]);
    const client = await legacyClient(app);
    expect(client.initStatus).toBe(200);
    await client.request("ping");
    await client.request("tools/list");
    await client.request("tools/call", { name: "echo", arguments: { text: "x" } });
    await client.request("resources/subscribe", { uri: "test://watched-resource" });
    await client.request("logging/setLevel", { level: "info" });
    await client.request("nope/nope");
    expect(rec.seen.map((s) => [s.method, s.outcome])).toEqual([
      ["initialize", "result"],
      ["ping", "result"],
      ["tools/list", "result"],
      ["tools/call", "result"],
      ["resources/subscribe", "result"],
      ["logging/setLevel", "result"],
      ["nope/nope", "error"],
    ]);
    expect(new Set(rec.seen.map((s) => s.sessionId))).toEqual(new Set([client.sessionId]));
    expect(rec.seen.every((s) => s.era === "legacy")).toBe(true);
  });

  it("refuses before the method runs, first plugin outermost, in both eras", async () => {
    let ran = 0;
    const counted = defineTool({ name: "counted", handler: () => `${++ran}` });
    const order: string[] = [];
    const guard = (tag: string, refuse: (method: string) => boolean) =>
      defineMcpPlugin({
        name: tag,
        wrapRequest(event, next) {
          order.push(`enter ${tag}`);
          const method = getMcpContext(event).method;
          if (refuse(method)) throw new McpJsonRpcError(-32001, `${tag} refuses ${method}`);
          return next();
        },
      });
    const mcp = defineMcpHandler({ name: "x", version: "1", tools: [counted] }, { plugins: [guard("a", () => false), guard("b", (m) => m === "tools/call" || m === "initialize")] });
    const app = appFor(mcp);
    const refused = await call(app, "tools/call", { name: "counted" });
    expectError(refused.body, -32001);
    expect(refused.body.error.message).toBe("b refuses tools/call");
    expect(ran).toBe(0);
    expect(order).toEqual(["enter a", "enter b"]);
    const res = await app.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } }),
      }),
    );
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect((await messages(res))[0].error).toMatchObject({ code: -32001, message: "b refuses initialize" });
    // A plugin of hooks only is not an extension: nothing is advertised.
    expect((await call(app, "server/discover")).body.result.capabilities.extensions).toBeUndefined();
  });

  it("calls each hook on its plugin object (this is the plugin)", async () => {
    const counter = {
      name: "counter",
      calls: 0,
      wrapRequest(this: { calls: number }, _event: unknown, next: () => unknown) {
        this.calls++;
        return next();
      },
    } as McpPlugin & { calls: number };
    const app = appFor(defineMcpHandler({ name: "x", version: "1" }, { plugins: [counter] }));
    await call(app, "tools/list");
    await call(app, "server/discover");
    expect(counter.calls).toBe(2);
  });

  it("may change a result, also one prepared at mount", async () => {
    const stamp = defineMcpPlugin({
      name: "stamp",
      async wrapRequest(_event, next) {
        const result = await next();
        return { ...result, _meta: { ...(result._meta as object), "com.example/stamped": true } };
      },
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [defineTool({ name: "t", handler: () => "ok" })] }, { plugins: [stamp] }));
    for (const method of ["tools/list", "server/discover"]) {
      const body = (await call(app, method)).body;
      expect(body.result._meta["com.example/stamped"], method).toBe(true);
      expect(body.result._meta["io.modelcontextprotocol/serverInfo"], method).toMatchObject({ name: "x" });
    }
    expect((await call(app, "tools/call", { name: "t" })).body.result._meta["com.example/stamped"]).toBe(true);
  });
});

describe("wrapTaskRun and wrapToolCall around a task", () => {
  function taskApp(plugins: McpPlugin[], tasks: Parameters<typeof mcpTasks>[0] = {}) {
    const slow = defineTool({
      name: "job",
      execution: { taskSupport: "required" },
      inputSchema: { type: "object", properties: { mode: { type: "string" } } },
      handler: (event, args: { mode?: string }) =>
        mcpTask(event, {
          statusMessage: "Queued",
          async run(task) {
            if (args.mode === "ask") {
              const answers = await task.requestInput({ ok: { method: "elicitation/create", params: { message: "ok?", requestedSchema: { type: "object", properties: {} } } } });
              return { content: [{ type: "text", text: `answered ${JSON.stringify(answers.ok)}` }] };
            }
            if (args.mode === "wait") await new Promise((_, reject) => task.signal.addEventListener("abort", () => reject(task.signal.reason)));
            if (args.mode === "fail") throw new Error("broke");
            return { content: [{ type: "text", text: "done" }] };
          },
        }),
    });
    const mcp = defineMcpHandler({ name: "x", version: "1", tools: [slow] }, { plugins, extensionPlugins: [mcpTasks(tasks)] });
    return new H3().all("/mcp", mcp);
  }

  it("sees the run's result, each status change with the input asked for, and the end", async () => {
    const runs: { taskId: string; tool: string; result?: unknown; statuses: McpTaskStatus[] }[] = [];
    const watch = defineMcpPlugin({
      name: "watch",
      async wrapTaskRun(task, next) {
        const run = { taskId: task.taskId, tool: task.tool.name, statuses: [] as McpTaskStatus[], result: undefined as unknown };
        runs.push(run);
        task.onStatus((s) => run.statuses.push(s));
        run.result = await next();
        return run.result as Record<string, unknown>;
      },
    });
    const app = taskApp([watch]);
    const handle = (await call(app, "tools/call", { name: "job", arguments: { mode: "ask" } }, { caps })).body.result;
    await until(() => expect(runs[0]?.statuses.map((s) => s.status)).toEqual(["input_required"]));
    expect(runs[0]!.statuses[0]!.inputRequests).toMatchObject({ ok: { method: "elicitation/create" } });
    const key = Object.keys(runs[0]!.statuses[0]!.inputRequests as object)[0]!;
    await call(app, "tasks/update", { taskId: handle.taskId, inputResponses: { [key]: { action: "accept", content: {} } } }, { caps });
    await until(() => expect(runs[0]!.statuses.map((s) => s.status)).toEqual(["input_required", "working", "completed"]));
    expect(runs[0]).toMatchObject({ taskId: handle.taskId, tool: "job", result: { content: [{ text: 'answered {"action":"accept","content":{}}' }] } });
    expect(runs[0]!.statuses[2]!.result).toMatchObject({ content: [{ text: expect.stringContaining("answered") }] });
  });

  it("tells a cancelled task, an expired one, and a tool error apart", async () => {
    const ends: McpTaskStatus[] = [];
    const watch = defineMcpPlugin({
      name: "watch",
      wrapTaskRun(task, next) {
        task.onStatus((s) => {
          if (!["working", "input_required"].includes(s.status)) ends.push(s);
        });
        return next();
      },
    });
    let now = 1_000_000;
    const app = taskApp([watch], { ttlMs: 1000, clock: { now: () => now } });
    const waiting = (await call(app, "tools/call", { name: "job", arguments: { mode: "wait" } }, { caps })).body.result;
    await call(app, "tasks/cancel", { taskId: waiting.taskId }, { caps });
    const expiring = (await call(app, "tools/call", { name: "job", arguments: { mode: "wait" } }, { caps })).body.result;
    now += 2000;
    expectError((await call(app, "tasks/get", { taskId: expiring.taskId }, { caps })).body, -32602);
    const failing = (await call(app, "tools/call", { name: "job", arguments: { mode: "fail" } }, { caps })).body.result;
    await until(() => expect(ends).toHaveLength(3));
    expect(ends.map((e) => [e.taskId, e.status, e.expired === true])).toEqual([
      [waiting.taskId, "cancelled", false],
      [expiring.taskId, "failed", true],
      [failing.taskId, "completed", false],
    ]);
    expect(ends[2]!.result).toMatchObject({ isError: true });
  });

  it("wrapToolCall wraps the task's result too, told which task, with the creating call's event", async () => {
    const seen: string[] = [];
    const wrap = defineMcpPlugin({
      name: "wrap",
      async wrapToolCall(event, tool, next, task) {
        const result = await next();
        seen.push(`${tool.name} ${task ? `task ${task.taskId === result.taskId || task.taskId.length > 0}` : "call"} ${result.resultType} ${getMcpContext(event).method}`);
        return task ? { ...result, content: [...(result.content as object[]), { type: "text", text: "wrapped" }] } : result;
      },
    });
    const app = taskApp([wrap]);
    const handle = (await call(app, "tools/call", { name: "job" }, { caps })).body.result;
    const done = await until(async () => {
      const task = (await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result;
      expect(task.status).toBe("completed");
      return task;
    });
    expect(done.result.content.map((c: { text: string }) => c.text)).toEqual(["done", "wrapped"]);
    expect(seen).toEqual(["job call task tools/call", "job task true complete tools/call"]);
  });

  it("carries each plugin's origin with the task, after the user's, and gives it to the run", async () => {
    const origins: unknown[] = [];
    const tag = defineMcpPlugin({
      name: "tag",
      taskOrigin: (event) => ({ via: "plugin", method: getMcpContext(event).method }),
      wrapTaskRun(task, next) {
        origins.push(task.origin);
        return next();
      },
    });
    const app = taskApp([tag], { origin: () => ({ via: "user", user: 1 }) });
    await call(app, "tools/call", { name: "job" }, { caps });
    expect(origins).toEqual([{ via: "plugin", user: 1, method: "tools/call" }]);
  });
});

describe("watchSession", () => {
  it("tells a session's start, and its end by DELETE and by eviction", async () => {
    const events: string[] = [];
    const watcher = defineMcpPlugin({
      name: "sessions",
      watchSession(session) {
        events.push(`start ${session.protocolVersion} ${session.clientInfo?.name}`);
        return (end) => events.push(`end ${end.reason}`);
      },
    });
    const mcp = defineMcpHandler({ name: "x", version: "1" }, { plugins: [watcher], legacy: { maxSessions: 1, idleTimeoutMs: 60_000 } });
    const app = appFor(mcp);
    const first = await legacyClient(app);
    await first.del();
    expect(events).toEqual(["start 2025-11-25 legacy", "end deleted"]);
    await legacyClient(app);
    await legacyClient(app); // one session at most: the older one goes as the new one is made
    expect(events.slice(2)).toEqual(["start 2025-11-25 legacy", "end evicted", "start 2025-11-25 legacy"]);
  });
});

describe("without hooks", () => {
  it("advertises an extension installed through extensionPlugins", async () => {
    const tasks = mcpTasks();
    const app = appFor(defineMcpHandler({ name: "x", version: "1" }, { extensionPlugins: [tasks] }));
    expect((await call(app, "server/discover")).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
  });
});

describe("the two plugin options", () => {
  const info = { name: "x", version: "1" };
  const hooksOnly = defineMcpPlugin({ name: "audit", wrapRequest: (_event, next) => next() });

  it("refuse each other's kind at definition, with a TypeError naming the option it belongs in", () => {
    // @ts-expect-error an MCP extension is not a hooks-only plugin
    expect(() => defineMcpHandler(info, { plugins: [mcpTasks()] })).toThrow(
      new TypeError(`defineMcpHandler: ${TASKS} is an MCP extension: install it with extensionPlugins, not plugins`),
    );
    // @ts-expect-error a hooks-only plugin has no extension id
    expect(() => defineMcpHandler(info, { extensionPlugins: [hooksOnly] })).toThrow(
      new TypeError("defineMcpHandler: the plugin audit has no extension id, so it is not an MCP extension: install it with plugins, not extensionPlugins"),
    );
    // @ts-expect-error not a list of plugins
    expect(() => defineMcpHandler(info, { extensionPlugins: mcpTasks() })).toThrow(new TypeError("defineMcpHandler: extensionPlugins must be an array of plugin objects"));
  });

  it("run the hooks of plugins outside those of extensionPlugins, each list in its order", async () => {
    const order: string[] = [];
    const around = (name: string) => (_event: unknown, next: McpNext<Record<string, unknown>>) => {
      order.push(`enter ${name}`);
      return Promise.resolve(next()).finally(() => order.push(`leave ${name}`));
    };
    const extension = (name: string) => defineMcpPlugin({ id: `com.example/${name}`, wrapRequest: around(name) });
    const app = appFor(
      defineMcpHandler(info, {
        extensionPlugins: [extension("e1"), extension("e2")],
        plugins: [defineMcpPlugin({ name: "h1", wrapRequest: around("h1") }), defineMcpPlugin({ name: "h2", wrapRequest: around("h2") })],
      }),
    );
    expect((await call(app, "server/discover")).status).toBe(200);
    expect(order).toEqual(["enter h1", "enter h2", "enter e1", "enter e2", "leave e2", "leave e1", "leave h2", "leave h1"]);
  });
});
