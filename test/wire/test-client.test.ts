// createTestClient (h3-mcp/tasks/testing) against a real server over app.fetch: every message it reads is
// checked against the official schemas on the way, and what it returns is checked against what the wire
// said (tasks/get, listen) by a raw request beside it.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit, mcpInput, mcpProgress, mcpTask, McpJsonRpcError } from "h3-mcp";
import { mcpAuth } from "h3-mcp/auth";
import { defineTaskRun, mcpTasks } from "h3-mcp/tasks";
import { createTestClient, TestClientError } from "h3-mcp/tasks/testing";
import { officialShapes } from "../helpers/schemas.ts";
import { call, TASKS } from "../helpers/wire.ts";

const askConfirm = mcpElicit({
  message: "Deploy?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
});
const askName = mcpElicit({ message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

/** Promises a test settles by hand. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function server() {
  const held = gate();
  const aborted: string[] = [];
  // A run found by name: its task tells its attempt in `_meta`, as a closure's does not.
  const heldRun = defineTaskRun({
    name: "held_run",
    run: async () => {
      await held.promise;
      return "released by name";
    },
  });
  const tools = [
    defineTool({ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } }, handler: (_e, args) => String(args.text) }),
    defineTool({
      name: "progress",
      handler: async (event) => {
        mcpProgress(event, 1, 2);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return "halfway and back";
      },
    }),
    defineTool({
      name: "greet",
      handler: (event) => {
        const input = mcpInput(event, { name: askName });
        if (!input.complete) return input.ask();
        return `Hello, ${(input.answers.name?.content as { name?: string } | undefined)?.name}!`;
      },
    }),
    defineTool({
      name: "deploy",
      handler: (event) =>
        mcpTask(event, {
          statusMessage: "Queued",
          run: async (task) => {
            const first = await task.requestInput({ confirm: askConfirm, name: askName });
            const second = await task.requestInput({ confirm: askConfirm });
            const ok = first.confirm?.action === "accept" && second.confirm?.action === "accept";
            return { content: [{ type: "text", text: ok ? `Deployed ${(first.name?.content as { name: string }).name}.` : "Not deployed." }] };
          },
        }),
    }),
    defineTool({ name: "rate_limited", handler: (event) => mcpTask(event, { run: async () => { throw new McpJsonRpcError(-32603, "API rate limit exceeded"); } }) }),
    defineTool({ name: "held_run", handler: (event) => mcpTask(event, { run: heldRun, input: {} }) }),
    defineTool({
      name: "held",
      handler: (event) =>
        mcpTask(event, {
          run: async (task) => {
            task.signal.addEventListener("abort", () => aborted.push(task.taskId));
            await held.promise;
            return { content: [{ type: "text", text: "released" }] };
          },
        }),
    }),
  ];
  const app = new H3().all("/mcp", defineMcpHandler({ name: "client-test", version: "1", tools }, { extensionPlugins: [mcpTasks({ runs: [heldRun] })] }));
  return { app, held, aborted };
}

const taskCaps = { caps: { extensions: { [TASKS]: {} }, elicitation: {} } };

describe("createTestClient", () => {
  it("calls a tool that answers at once, through JSON and through SSE", async () => {
    const shapes = officialShapes();
    const client = createTestClient(server().app, shapes);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("deploy");
    expect(await client.callTool("echo", { text: "hi" })).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "hi" }] });

    const streamed = await client.request("tools/call", { name: "progress" }, { meta: { progressToken: "p" } });
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    expect(streamed.messages.map((m) => m.method ?? "response")).toEqual(["notifications/progress", "response"]);
    expect(streamed.result.content).toEqual([{ type: "text", text: "halfway and back" }]);
    expect(shapes.checked).toBe(4);
  });

  it("throws a TestClientError with the code and HTTP status of a JSON-RPC error, and request() returns it as is", async () => {
    const client = createTestClient(server().app, officialShapes());
    const error = await client.callTool("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TestClientError);
    expect(error).toMatchObject({ code: -32602, status: 400 });
    const raw = await client.request("tools/call", { name: "nope" });
    expect(raw).toMatchObject({ status: 400, error: { code: -32602 } });
    expect(raw.result).toBeUndefined();
  });

  it("answers a tool's MRTR round by calling it again with the answers", async () => {
    const client = createTestClient(server().app, officialShapes());
    const first = await client.callTool("greet");
    expect(first.resultType).toBe("input_required");
    const run = await client.runTool("greet", {}, { onInput: (requests) => ({ ...Object.fromEntries(Object.keys(requests).map((k) => [k, accept({ name: "Ada" })])) }) });
    expect(run).toMatchObject({ status: "completed", inputRounds: 1, result: { content: [{ type: "text", text: "Hello, Ada!" }] } });
    expect(run.task).toBeUndefined();
  });

  it("follows a task through two input rounds to its result, as tasks/get shows it", async () => {
    const { app } = server();
    const client = createTestClient(app, officialShapes());
    const rounds: string[][] = [];
    const run = await client.runTool("deploy", {}, {
      onInput: (requests, task) => {
        expect(task?.status).toBe("input_required");
        rounds.push(Object.keys(requests));
        return Object.fromEntries(Object.keys(requests).map((k) => [k, accept(k === "name" ? { name: "web" } : { ok: true })]));
      },
    });
    // The second round's key is renamed on the wire: a key means one request for a task's whole life.
    expect(rounds).toEqual([["confirm", "name"], ["confirm.2"]]);
    expect(run).toMatchObject({ status: "completed", inputRounds: 2, result: { content: [{ type: "text", text: "Deployed web." }] } });
    const wire = await call(app, "tasks/get", { taskId: run.task!.taskId }, taskCaps);
    const { resultType: _t, _meta: _m, ...task } = wire.body.result;
    expect(run.task).toEqual(task);
  });

  it("stops at input_required without an answerer, and answers a round by hand with updateTask", async () => {
    const client = createTestClient(server().app, officialShapes());
    const handle = await client.callTool("deploy");
    if (handle.resultType !== "task") throw new Error("expected a task");
    expect(handle.status).toBe("working");
    const waiting = await client.waitForTask(handle.taskId);
    expect(waiting.status).toBe("input_required");
    expect(Object.keys(waiting.inputRequests!)).toEqual(["confirm", "name"]);
    expect(await client.updateTask(handle.taskId, { confirm: accept({ ok: false }), name: accept({ name: "x" }) })).toMatchObject({ resultType: "complete" });
    const second = await client.waitForTask(handle.taskId, { until: "input_required" });
    expect(Object.keys(second.inputRequests!)).toEqual(["confirm.2"]);
    const done = await client.waitForTask(handle.taskId, { onInput: () => ({ "confirm.2": { action: "decline" } }) });
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "Not deployed." }] } });
  });

  it("reports a failed task's error, cancels a task, and times out a wait with a clear error", async () => {
    const { app, held, aborted } = server();
    const client = createTestClient(app, { ...officialShapes(), timeoutMs: 100 });
    const failed = await client.runTool("rate_limited");
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "API rate limit exceeded" }, task: { statusMessage: "API rate limit exceeded" } });

    const handle = await client.callTool("held");
    if (handle.resultType !== "task") throw new Error("expected a task");
    const timedOut = await client.waitForTask(handle.taskId).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(TestClientError);
    expect((timedOut as Error).message).toMatch(/still working after 100 ms/);
    await client.cancelTask(handle.taskId);
    expect(await client.waitForTask(handle.taskId)).toMatchObject({ status: "cancelled" });
    expect(aborted).toEqual([handle.taskId]);
    held.open();
  });

  it("listens to a task's notifications until it ends", async () => {
    const { app, held } = server();
    const client = createTestClient(app, officialShapes());
    const handle = await client.callTool("held");
    if (handle.resultType !== "task") throw new Error("expected a task");
    const listener = await client.listen([handle.taskId, "not-a-task"]);
    try {
      expect(listener.taskIds).toEqual([handle.taskId]);
      expect((await listener.next()).status).toBe("working");
      held.open();
      const done = await listener.until("completed");
      expect(done.result).toMatchObject({ content: [{ type: "text", text: "released" }] });
      expect(listener.seen.map((t) => t.status)).toEqual(["working", "completed"]);
      expect(done).toEqual(await client.getTask(handle.taskId));
    } finally {
      await listener.close();
    }
  });

  it("keeps the task's own _meta in its view, the same on tasks/get and listen frames, without the message's keys", async () => {
    const { app, held } = server();
    const client = createTestClient(app, officialShapes());
    const handle = await client.callTool("held_run");
    if (handle.resultType !== "task") throw new Error("expected a task");
    const listener = await client.listen([handle.taskId]);
    try {
      const working = await client.getTask(handle.taskId);
      const attempt: number | undefined = working._meta?.["io.github.h3-mcp/attempt"];
      expect(attempt).toBe(1);
      expect(working._meta).toEqual({ "io.github.h3-mcp/attempt": 1 });
      expect(await listener.next()).toEqual(working);
      held.open();
      const done = await listener.until("completed");
      expect(done).toMatchObject({ result: { content: [{ type: "text", text: "released by name" }] }, _meta: { "io.github.h3-mcp/attempt": 1 } });
      expect(done).toEqual(await client.getTask(handle.taskId));
    } finally {
      await listener.close();
    }
    // The wire carries the server's serverInfo beside the attempt: it is the answer's, not the task's.
    const wire = await call(app, "tasks/get", { taskId: handle.taskId }, taskCaps);
    expect(Object.keys(wire.body.result._meta).sort()).toEqual(["io.github.h3-mcp/attempt", "io.modelcontextprotocol/serverInfo"]);
    // A closure's task tells nothing of itself there: its view has no `_meta`.
    const closure = await client.runTool("rate_limited");
    expect(closure.task).toBeDefined();
    expect(Object.keys(closure.task!)).not.toContain("_meta");
  });
});

describe("createTestClient with authorization", () => {
  const tokens: Record<string, string> = { "alice-token": "alice", "bob-token": "bob" };
  const authed = () => {
    const auth = mcpAuth({
      resource: "http://localhost/mcp",
      authorizationServers: ["https://as.example"],
      verifier: (token) => (tokens[token] ? { issuer: "https://as.example", subject: tokens[token], scopes: [], audience: ["http://localhost/mcp"], claims: {} } : undefined),
    });
    const whoami = defineTool({ name: "whoami", handler: (event) => mcpTask(event, { run: () => ({ content: [{ type: "text", text: "me" }] }) }) });
    return new H3().all("/mcp", defineMcpHandler({ name: "authed", version: "1", tools: [whoami] }, { auth, extensionPlugins: [mcpTasks()] }));
  };

  it("sends the token on every request; another caller's headers see none of the first caller's tasks", async () => {
    const app = authed();
    const anonymous = await createTestClient(app).request("tools/list");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer /);

    const alice = createTestClient(app, { ...officialShapes(), token: "alice-token" });
    const run = await alice.runTool("whoami");
    expect(run.status).toBe("completed");
    const bob = alice.withHeaders({ authorization: "Bearer bob-token" });
    const theirs = await bob.getTask(run.task!.taskId).catch((e: unknown) => e);
    expect(theirs).toMatchObject({ code: -32602, status: 400 });
    expect(await alice.getTask(run.task!.taskId)).toEqual(run.task);
  });
});
