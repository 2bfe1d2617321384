// A task answers exactly what its call would have answered, and reports only through its own
// channel: statusMessage, never notifications/progress or notifications/message.
import type { H3Event } from "h3";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpLog, mcpProgress } from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { expectError, expectResult, expectShape, ownFields, S } from "../helpers/schemas.ts";
import { appFor, call, messages, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} } };
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
const LOUD = { progressToken: "p1", "io.modelcontextprotocol/logLevel": "debug" };

/** Each tool answers synchronously to a client without the extension and with a task to one with it. */
function both(name: string, produce: () => unknown, extra: Partial<Parameters<typeof defineTool>[0]> = {}) {
  return defineTool({
    name,
    ...extra,
    handler: (event: H3Event) => (canCreateTask(event) ? mcpTask(event, { run: async () => produce() as never }) : (produce() as never)),
  });
}

const tools = [
  both("structured", () => ({ content: [], structuredContent: { n: 3 } }), { outputSchema: z.object({ n: z.number() }) }),
  both("mismatch", () => ({ content: [], structuredContent: { n: "three" } }), { outputSchema: z.object({ n: z.number() }) }),
  both("plain", () => "just text"),
  both("reordered", () => ({ content: [{ type: "text", text: "x" }], resultType: "complete", _meta: { "com.example/k": 1 } })),
  both("not_a_result", () => 42),
];
const app = appFor(defineMcpHandler({ name: "results", version: "1", tools }, { extensionPlugins: [mcpTasks()] }));

async function settled(taskId: string) {
  for (let i = 0; i < 50; i++) {
    const r = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
    if (r.status !== "working") return r;
    await tick();
  }
  throw new Error("task never settled");
}

describe("a task's result", () => {
  it.each(["structured", "plain", "reordered"])("%s: is byte for byte the synchronous call's result", async (name) => {
    const sync = (await call(app, "tools/call", { name }, { caps: {} })).body;
    expectResult(sync, S.callTool);
    const handle = (await call(app, "tools/call", { name }, { caps })).body.result;
    expectShape(S.createTask, handle);
    const done = await settled(handle.taskId);
    expectShape(S.getTask, done);
    expect(done.status).toBe("completed");
    // The synchronous answer's own result; the serverInfo `_meta` belongs to the response, not the result inlined.
    expect(JSON.stringify(done.result)).toBe(JSON.stringify(ownFields(sync.result)));
  });

  it("gets the text block a structuredContent-only result gets synchronously", async () => {
    const { taskId } = (await call(app, "tools/call", { name: "structured" }, { caps })).body.result;
    expect((await settled(taskId)).result.content).toEqual([{ type: "text", text: '{"n":3}' }]);
  });

  it.each(["mismatch", "not_a_result"])("%s: fails with the -32603 the synchronous call answers", async (name) => {
    const sync = (await call(app, "tools/call", { name }, { caps: {} })).body;
    const error = expectError(sync, -32603);
    const { taskId } = (await call(app, "tools/call", { name }, { caps })).body.result;
    const failed = await settled(taskId);
    expectShape(S.getTask, failed);
    expect(failed).toMatchObject({ status: "failed", statusMessage: error.message });
    expect(failed.error).toEqual(error);
  });
});

describe("a task whose run returns a string", () => {
  const texts = [
    defineTool({ name: "async_text", handler: (event) => mcpTask(event, { run: async () => "rendered" }) }),
    defineTool({ name: "sync_text", handler: (event) => mcpTask(event, { run: () => "at once" }) }),
  ];
  const textApp = appFor(defineMcpHandler({ name: "texts", version: "1", tools: texts }, { extensionPlugins: [mcpTasks()] }));

  it.each([
    ["async_text", "rendered"],
    ["sync_text", "at once"],
  ])("%s: completes with the string as its one text block", async (name, text) => {
    const { taskId } = (await call(textApp, "tools/call", { name }, { caps })).body.result;
    let done = (await call(textApp, "tasks/get", { taskId }, { caps })).body.result;
    for (let i = 0; i < 50 && done.status === "working"; i++) {
      await tick();
      done = (await call(textApp, "tasks/get", { taskId }, { caps })).body.result;
    }
    expectShape(S.getTask, done);
    expect(done.status).toBe("completed");
    expect(done.result).toEqual({ resultType: "complete", content: [{ type: "text", text }] });
  });
});

describe("progress and logs in a task", () => {
  const reporting = (report: (event: H3Event) => void, when: "before" | "after") =>
    defineTool({
      name: `${when}`,
      handler: (event) =>
        mcpTask(event, {
          async run() {
            if (when === "after") await tick();
            report(event);
            return { content: [{ type: "text", text: "reported" }] };
          },
        }),
    });

  it.each([
    ["mcpProgress", (e: H3Event) => mcpProgress(e, 1, 2, "half")],
    ["mcpLog", (e: H3Event) => mcpLog(e, "info", "hello")],
  ])("%s: the creating response is plain JSON and the call throws a usage error pointing to task.update", async (_name, report) => {
    for (const when of ["before", "after"] as const) {
      const loud = appFor(defineMcpHandler({ name: "x", version: "1", tools: [reporting(report, when)] }, { extensionPlugins: [mcpTasks()] }));
      const res = await loud.fetch(modernRequest("tools/call", { name: when }, { caps, meta: LOUD }));
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const msg = await res.json();
      expectShape(S.createTask, msg.result);
      await tick(20);
      const done = (await call(loud, "tasks/get", { taskId: msg.result.taskId }, { caps })).body.result;
      expect(done).toMatchObject({ status: "completed", result: { isError: true } });
      expect(done.result.content[0].text).toMatch(/task\.update/);
    }
  });

  it("sends what the handler reported before it made the task, then the handle, as SSE", async () => {
    const early = defineTool({
      name: "early",
      handler: (event) => {
        mcpProgress(event, 1);
        mcpLog(event, "info", "starting");
        return mcpTask(event, { run: () => ({ content: [] }) });
      },
    });
    const loud = appFor(defineMcpHandler({ name: "x", version: "1", tools: [early] }, { extensionPlugins: [mcpTasks()] }));
    const res = await loud.fetch(modernRequest("tools/call", { name: "early" }, { caps, meta: LOUD }));
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const [progress, log, last, ...rest] = await messages(res);
    expect(progress).toMatchObject({ method: "notifications/progress", params: { progressToken: "p1", progress: 1 } });
    expect(log).toMatchObject({ method: "notifications/message", params: { level: "info", data: "starting" } });
    expectShape(S.createTask, last.result);
    expect(rest).toEqual([]);
  });
});
