// Runs found by name (defineTaskRun) on the in-memory store: listed in mcpTasks({ runs }), given to mcpTask
// with their input, run here as attempt 1; the attempt on the wire (_meta on tasks/get and notifications),
// checkpoints kept with the task, and closures unchanged beside them.
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, memoryTaskStore, type McpTaskRunContext } from "../../src/tasks/index.ts";
import { expectError } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { until } from "../helpers/wait.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const ATTEMPT = "io.github.h3-mcp/attempt";
const get = async (app: any, taskId: string) => (await call(app, "tasks/get", { taskId }, { caps })).body.result;

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function setup() {
  const seen: { task?: McpTaskRunContext; input?: unknown; checkpoint?: unknown; attempt?: number } = {};
  const gate = deferred();
  const steps = defineTaskRun({
    name: "steps",
    maxAttempts: 3,
    async run(task, input: { steps: number }) {
      Object.assign(seen, { task, input, checkpoint: task.checkpoint, attempt: task.attempt });
      await task.saveCheckpoint({ done: 1 });
      await gate.promise;
      return `done ${input.steps}`;
    },
  });
  const ask = defineTaskRun({
    name: "ask",
    async run(task) {
      const { first } = await task.requestInput({ first: mcpElicit({ message: "First?", requestedSchema: { type: "object", properties: { value: { type: "string" } } } }) });
      return { content: [], structuredContent: { first: first?.content?.value ?? null } };
    },
  });
  const unlisted = defineTaskRun({ name: "unlisted", run: () => "never" });
  const store = memoryTaskStore();
  const plugin = mcpTasks({ store, runs: [steps, ask] });
  const tools = [
    defineTool({ name: "steps", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: steps, input: { steps: 2 }, statusMessage: "Queued" }) }),
    defineTool({ name: "ask", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: ask, input: undefined }) }),
    defineTool({ name: "unlisted", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: unlisted, input: {} }) }),
    defineTool({ name: "closure", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: () => "closure done" }) }),
  ];
  const app = appFor(defineMcpHandler({ name: "runs", version: "1", tools }, { extensionPlugins: [plugin] }));
  return { app, store, plugin, seen, gate };
}

describe("defineTaskRun", () => {
  it("refuses a bad name, version, maxAttempts or run, and mcpTasks two runs of one name", () => {
    const run = () => "x";
    expect(() => defineTaskRun({ name: "", run })).toThrow(/name must be/);
    expect(() => defineTaskRun({ name: "a b", run })).toThrow(/name must be/);
    expect(() => defineTaskRun({ name: "a", version: 0, run })).toThrow(/version must be a positive integer/);
    expect(() => defineTaskRun({ name: "a", maxAttempts: 1.5, run })).toThrow(/maxAttempts must be a positive integer/);
    expect(() => defineTaskRun({ name: "a", run: undefined as never })).toThrow(/run must be a function/);
    expect(defineTaskRun({ name: "a", run })).toMatchObject({ name: "a", version: 1, maxAttempts: 1 });
    expect(() => mcpTasks({ runs: [defineTaskRun({ name: "a", run }), defineTaskRun({ name: "a", run })] })).toThrow("mcpTasks: two runs are named a");
    expect(() => mcpTasks({ runs: [{ name: "a" } as never] })).toThrow(/must come from defineTaskRun/);
  });
});

describe("a run found by name", () => {
  it("runs here as attempt 1 with its input, and shows its attempt on tasks/get until it completes", async () => {
    const { app, store, seen, gate } = setup();
    const created = (await call(app, "tools/call", { name: "steps" }, { caps })).body.result;
    expect(created).toMatchObject({ resultType: "task", status: "working", statusMessage: "Queued" });
    await until(() => expect(seen.task).toBeDefined());
    expect(seen).toMatchObject({ input: { steps: 2 }, attempt: 1, checkpoint: undefined });
    expect(seen.task!.taskId).toBe(created.taskId);

    const working = await get(app, created.taskId);
    expect(working).toMatchObject({ status: "working", _meta: { [ATTEMPT]: 1 } });
    // The checkpoint is kept with the task, in the store.
    await until(() => expect(store.loadRun(created.taskId)).toMatchObject({ outcome: "loaded", record: { name: "steps", version: 1, input: { steps: 2 }, checkpoint: { done: 1 } } }));

    gate.resolve();
    await until(async () => expect((await get(app, created.taskId)).status).toBe("completed"));
    const done = await get(app, created.taskId);
    // The run's string return is one text block; the attempt stays on the finished task.
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "done 2" }] });
    expect(done._meta[ATTEMPT]).toBe(1);
    expect(done._meta["io.modelcontextprotocol/serverInfo"]).toBeDefined();
  });

  it("refuses a run that is not in mcpTasks({ runs }) with a clear error", async () => {
    const { app } = setup();
    const res = await call(app, "tools/call", { name: "unlisted" }, { caps });
    const error = res.body.error ?? res.body.result;
    expect(JSON.stringify(error)).toContain("the run unlisted is not in mcpTasks({ runs })");
  });

  it("puts the attempt on notifications/tasks, and a closure's task carries none", async () => {
    const { app } = setup();
    const asked = (await call(app, "tools/call", { name: "ask" }, { caps })).body.result;
    const closure = (await call(app, "tools/call", { name: "closure" }, { caps })).body.result;
    await until(async () => expect((await get(app, closure.taskId)).status).toBe("completed"));
    expect((await get(app, closure.taskId))._meta[ATTEMPT]).toBeUndefined();

    const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [asked.taskId, closure.taskId] } }, { caps }));
    const sse = sseReader(res);
    await sse.next();
    const frames = [await sse.next(), await sse.next()];
    const byId = Object.fromEntries(frames.map((f) => [f.params.taskId, f.params]));
    expect(byId[asked.taskId]).toMatchObject({ status: "input_required", _meta: { [ATTEMPT]: 1 } });
    expect(byId[closure.taskId].status).toBe("completed");
    expect(byId[closure.taskId]._meta[ATTEMPT]).toBeUndefined();

    await call(app, "tasks/update", { taskId: asked.taskId, inputResponses: { first: { action: "accept", content: { value: "one" } } } }, { caps });
    expect((await sse.next()).params).toMatchObject({ status: "working", _meta: { [ATTEMPT]: 1 } });
    const completed = (await sse.next()).params;
    expect(completed).toMatchObject({ status: "completed", result: { structuredContent: { first: "one" } }, _meta: { [ATTEMPT]: 1 } });
    await sse.close();
  });

  it("answers a checkpoint that is not JSON data with a rejection, not a crash", async () => {
    const seen: unknown[] = [];
    const bad = defineTaskRun({
      name: "bad",
      async run(task) {
        await task.saveCheckpoint(10n).catch((e: Error) => seen.push(e.message));
        return "ok";
      },
    });
    const tool = defineTool({ name: "bad", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: bad, input: {} }) });
    const app = appFor(defineMcpHandler({ name: "bad", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ runs: [bad] })] }));
    const { taskId } = (await call(app, "tools/call", { name: "bad" }, { caps })).body.result;
    await until(async () => expect((await get(app, taskId)).status).toBe("completed"));
    expect(seen).toEqual(["task.saveCheckpoint needs JSON data"]);
    expectError((await call(app, "tasks/get", { taskId: "nope" }, { caps })).body, -32602);
  });
});
