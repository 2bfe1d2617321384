// Behaviour that the reliability suite once found broken, pinned down one case at a time.
import { describe, expect, it } from "vitest";
import { defineMcpHandler, definePrompt, defineTool, mcpInput, McpJsonRpcError } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { askName } from "../fixtures/core-app.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

function taskApp(run: () => unknown, options = {}) {
  const errors: unknown[] = [];
  const tool = defineTool({ name: "t", handler: (e) => mcpTask(e, { run: run as never }) });
  const handler = defineMcpHandler({ name: "r", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks(options)], onError: (e) => errors.push(e) });
  return { app: appFor(handler), errors };
}

describe("task outcomes that are not plain data", () => {
  it("fails a task whose result cannot be sent as JSON, without crashing its listeners", async () => {
    let finish!: (v: unknown) => void;
    const { app } = taskApp(() => new Promise((r) => (finish = r)));
    const { taskId } = (await call(app, "tools/call", { name: "t" }, { caps })).body.result;
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps })));
    await sse.next();
    expect((await sse.next()).params.status).toBe("working");
    finish({ content: [], structuredContent: { n: 1n } });
    const frame = await sse.next();
    expect(frame.params).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.status).toBe("failed");
    await sse.close();
  });

  it.each([
    ["content items that are not blocks", { content: [1, 2] }],
    ["a cycle", (() => { const o: any = { content: [] }; o.self = o; return o; })()],
  ])("fails a task whose run returns %s", async (_what, value) => {
    const { app } = taskApp(async () => value);
    const { taskId } = (await call(app, "tools/call", { name: "t" }, { caps })).body.result;
    await tick();
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result).toMatchObject({ status: "failed", error: { code: -32603 } });
  });

  it("completes with isError when run throws something whose toString is broken", async () => {
    const { app } = taskApp(() => { throw { toString: 1 }; });
    const { taskId } = (await call(app, "tools/call", { name: "t" }, { caps })).body.result;
    await tick();
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.result).toMatchObject({ isError: true, content: [{ text: "Unknown error" }] });
  });

  it("keeps a McpJsonRpcError whose data is not JSON as a failure with its code and message", async () => {
    const { app } = taskApp(async () => { throw new McpJsonRpcError(-32000, "custom", { big: 1n }); });
    const { taskId } = (await call(app, "tools/call", { name: "t" }, { caps })).body.result;
    await tick();
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.error).toEqual({ code: -32000, message: "custom" });
  });
});

describe("onError", () => {
  it("sees unexpected errors thrown inside a method, while the client gets a generic -32603", async () => {
    const { app, errors } = taskApp(() => ({ content: [] }), { bind: () => { throw new Error("auth store down"); } });
    const r = await call(app, "tasks/get", { taskId: "x" }, { caps });
    expect(r.body.error).toEqual({ code: -32603, message: "Internal error" });
    expect((errors[0] as Error).message).toBe("auth store down");
  });

  it("is not called for protocol errors", async () => {
    const { app, errors } = taskApp(() => ({ content: [] }));
    await call(app, "tasks/get", { taskId: "x" }, { caps });
    expect(errors).toEqual([]);
  });
});

describe("input validation corners", () => {
  const prompt = definePrompt({ name: "p", description: "p", complete: { a: () => ["x"] }, handler: () => "p" });
  const app = appFor(defineMcpHandler({ name: "r", version: "1", prompts: [prompt], tools: [defineTool({ name: "g", handler: (e) => { const i = mcpInput(e, { n: askName }); return i.complete ? "ok" : i.ask({ state: 1 }); } })] }));

  it.each(["toString", "constructor", "__proto__", "hasOwnProperty"])("completes an argument named %s with nothing", async (name) => {
    const r = await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name, value: "" } });
    expect(r.body.result.completion.values).toEqual([]);
  });

  it("answers -32602 for a ref name that is not a string", async () => {
    expect((await call(app, "completion/complete", { ref: { type: "ref/prompt", name: { toString: 1 } }, argument: { name: "a", value: "" } })).body.error.code).toBe(-32602);
  });

  it.each([[["x"]], [0.5], [2 ** 53], [{}]])("answers -32602 for the progressToken %j", async (token) => {
    expect((await call(app, "tools/call", { name: "g" }, { meta: { progressToken: token } })).body.error.code).toBe(-32602);
  });

  it("answers -32602 for params nested past the limit beside a requestState", async () => {
    const first = (await call(app, "tools/call", { name: "g" }, { caps: { elicitation: {} } })).body.result;
    let deep: unknown = 1;
    for (let i = 0; i < 500; i++) deep = [deep];
    const r = await call(app, "tools/call", { name: "g", extra: deep, requestState: first.requestState }, { caps: { elicitation: {} } });
    expect(r.body.error).toEqual({ code: -32602, message: "Params are nested too deeply" });
  });

  it.each([[1.5], [2 ** 53], [-0.1]])("answers -32600 for the id %j", async (id) => {
    expect((await call(app, "tools/list", {}, { id })).body.error.code).toBe(-32600);
  });
});

describe("legacy input bridge", () => {
  it("answers the call when the client's error message is not printable", async () => {
    const tool = defineTool({ name: "g", handler: (e) => { const i = mcpInput(e, { n: askName }); return i.complete ? "ok" : i.ask(); } });
    const c = await legacyClient(appFor(defineMcpHandler({ name: "r", version: "1", tools: [tool] })), "2025-11-25", { elicitation: {} });
    const sse = sseReader(await c.post({ id: 5, method: "tools/call", params: { name: "g" } }));
    const ask = await sse.next();
    expect((await c.post({ id: ask.id, error: { code: 1, message: { toString: 1 } } })).status).toBe(202);
    expect((await sse.next()).error.message).toMatch(/refused elicitation\/create: Unknown error/);
  });
});
