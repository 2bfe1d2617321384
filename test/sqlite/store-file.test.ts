// The SQLite store on its file, on the wire: a file locked by another connection answers 503 with
// Retry-After and loses nothing already accepted; tasks outlive every store and connection on the file;
// the file names no principal and holds a run's input only sealed; setups it cannot serve are refused.
import { afterAll, describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { sqliteTaskStore, type SqliteTaskStore } from "../../src/tasks/sqlite/index.ts";
import { until } from "../helpers/wait.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { sqliteFolder } from "./files.ts";

const caps = { extensions: { [TASKS]: {} } };
const folder = sqliteFolder();
afterAll(() => folder.remove());

const render = defineTaskRun({ name: "render", run: (_task, input: { frames: number }) => ({ content: [{ type: "text" as const, text: `rendered ${input.frames}` }] }) });
const tools = [
  defineTool({ name: "quick", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: () => ({ content: [{ type: "text" as const, text: "done" }] }) }) }),
  defineTool({ name: "render", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: render, input: { frames: 4242 } }) }),
];
const appOn = (store: SqliteTaskStore, bind?: () => string) =>
  appFor(defineMcpHandler({ name: "sqlite", version: "1", tools }, { extensionPlugins: [mcpTasks({ store, runs: [render], bind })] }));
const result = async (app: ReturnType<typeof appFor>, taskId: string) => {
  let got: any;
  await until(async () => {
    got = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
    expect(got.status).toBe("completed");
  });
  return got;
};

describe("the SQLite store on its file", () => {
  it("answers 503 with Retry-After while another connection holds the write lock, serves reads meanwhile, and loses nothing accepted", async () => {
    const file = folder.file();
    const store = sqliteTaskStore({ database: folder.open(file), secret: "s", timeoutMs: 100 });
    const app = appOn(store);
    const before = (await call(app, "tools/call", { name: "quick" }, { caps })).body.result.taskId as string;
    await result(app, before);
    const holder = folder.open(file);
    holder.exec("BEGIN IMMEDIATE");
    try {
      const refused = await call(app, "tools/call", { name: "quick" }, { caps });
      expect(refused.status).toBe(503);
      expect(refused.res.headers.get("retry-after")).toBeTruthy();
      expect(refused.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^The task store is unavailable: the SQLite file .* is locked/) });
      // Readers never wait for a writer under WAL: the finished task is served all along.
      expect((await call(app, "tasks/get", { taskId: before }, { caps })).body.result.status).toBe("completed");
    } finally {
      holder.exec("COMMIT");
    }
    const after = (await call(app, "tools/call", { name: "quick" }, { caps })).body.result.taskId as string;
    await result(app, after);
    expect((await result(app, before)).status).toBe("completed");
    store.close();
  });

  it("keeps every task through a restart of every store and connection on the file", async () => {
    const file = folder.file();
    const first = sqliteTaskStore({ database: folder.open(file), secret: "s" });
    const a = appOn(first);
    const ids = [
      (await call(a, "tools/call", { name: "quick" }, { caps })).body.result.taskId as string,
      (await call(a, "tools/call", { name: "render" }, { caps })).body.result.taskId as string,
    ];
    for (const id of ids) await result(a, id);
    first.close();
    const b = appOn(sqliteTaskStore({ database: folder.open(file), secret: "s" }));
    expect((await result(b, ids[0]!)).status).toBe("completed");
    const rendered = (await call(b, "tasks/get", { taskId: ids[1] }, { caps })).body.result;
    expect(JSON.stringify(rendered)).toContain("rendered 4242");
  });

  it("keeps owners as keyed hashes and a live run's input sealed: the file names neither", async () => {
    const file = folder.file();
    const store = sqliteTaskStore({ database: folder.open(file), secret: "s" });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slow = defineTaskRun({ name: "slow", run: async (_task, input: { secretInput: string }) => (await gate, { content: [{ type: "text" as const, text: input.secretInput.length.toString() }] }) });
    const tool = defineTool({ name: "slow", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: slow, input: { secretInput: "input-8b1f0c" } }) });
    const app = appFor(defineMcpHandler({ name: "sqlite", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ store, runs: [slow], bind: () => "principal-5e2a9d" })] }));
    const taskId = (await call(app, "tools/call", { name: "slow" }, { caps })).body.result.taskId as string;
    const dump = JSON.stringify(folder.open(file).prepare("SELECT * FROM mcp_tasks").all()) + JSON.stringify(folder.open(file).prepare("SELECT * FROM mcp_task_changes").all());
    expect(dump).toContain(taskId);
    expect(dump).not.toContain("principal-5e2a9d");
    expect(dump).not.toContain("input-8b1f0c");
    open();
    await result(app, taskId);
    store.close();
  });

  it("refuses at definition a misspelt option, a handle that is not a synchronous SQLite one, and a bound setup without a secret", () => {
    const database = folder.open(folder.file());
    expect(() => sqliteTaskStore({ database, leaseMS: 1000 } as never)).toThrow(/unknown option "leaseMS" \(did you mean "leaseMs"\?\)/);
    expect(() => sqliteTaskStore({ database: { query: () => [] } } as never)).toThrow(/database must be a synchronous SQLite handle/);
    const unbound = sqliteTaskStore({ database });
    expect(() => defineMcpHandler({ name: "x", version: "1", tools }, { extensionPlugins: [mcpTasks({ store: unbound, bind: () => "someone" })] })).toThrow(/needs `secret`/);
  });
});
