// The bound on what one task keeps (`mcpTasks({ maxTaskBytes })`), on the wire, for any store: a call whose
// arguments or named run's input are over it answers -32602 and makes no task; a status message, a question
// or a checkpoint over it is refused in the run; a result over it fails the task with a -32603 naming the
// option. test/wire/task-bounds.test.ts runs these on the in-memory store, test/redis/task-bounds.test.ts
// on Redis.
import { afterEach, describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, type McpTasksOptions } from "../../src/tasks/index.ts";
import type { TaskStore } from "../../src/tasks/store.ts";
import { checkTaskShape, expectError } from "./schemas.ts";
import { until } from "./wait.ts";
import { appFor, call, TASKS } from "./wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
/** The limit most cases set, small enough that what goes over it stays small. */
const LIMIT = 2000;
const blob = (bytes: number) => "x".repeat(bytes);
const refusal = (error: unknown) => `refused: ${(error as Error).message}`;

function boundsApp(store: TaskStore, options: McpTasksOptions = {}) {
  const echo = defineTaskRun({ name: "echo", run: () => "echoed" });
  const keep = defineTaskRun({
    name: "keep",
    async run(task, input: { bytes: number }) {
      try {
        await task.saveCheckpoint({ blob: blob(input.bytes) });
      } catch (error) {
        return refusal(error);
      }
      return "saved";
    },
  });
  const sized = { type: "object", properties: { bytes: { type: "integer" }, blob: { type: "string" } } } as const;
  const bytesOf = (args: unknown) => (args as { bytes?: number }).bytes ?? 0;
  const tool = (name: string, handler: Parameters<typeof defineTool>[0]["handler"]) =>
    defineTool({ name, execution: { taskSupport: "required" }, inputSchema: sized, handler });
  const tools = [
    tool("closure", (event) => mcpTask(event, { run: () => "done" })),
    tool("named", (event, args) => mcpTask(event, { run: echo, input: { blob: blob(bytesOf(args)) } })),
    tool("status", (event, args) =>
      mcpTask(event, {
        statusMessage: "Started",
        run(task) {
          try {
            task.update({ statusMessage: blob(bytesOf(args)) });
          } catch (error) {
            return refusal(error);
          }
          return "updated";
        },
      }),
    ),
    tool("ask", (event, args) =>
      mcpTask(event, {
        async run(task) {
          const question = mcpElicit({ message: blob(bytesOf(args)), requestedSchema: { type: "object", properties: {} } });
          try {
            await task.requestInput({ question });
          } catch (error) {
            return refusal(error);
          }
          return "answered";
        },
      }),
    ),
    tool("checkpoint", (event, args) => mcpTask(event, { run: keep, input: { bytes: bytesOf(args) } })),
    tool("result", (event, args) => mcpTask(event, { run: () => blob(bytesOf(args)) })),
    tool("throws", (event, args) =>
      mcpTask(event, {
        run() {
          throw new Error(blob(bytesOf(args)));
        },
      }),
    ),
  ];
  const plugin = mcpTasks({ store, runs: [echo, keep], ...options });
  return appFor(defineMcpHandler({ name: "bounds", version: "1", tools }, { extensionPlugins: [plugin] }));
}

/** Calls `tool` and returns the task it made, once it ended. */
async function ended(app: ReturnType<typeof boundsApp>, tool: string, args: Record<string, unknown>) {
  const created = await call(app, "tools/call", { name: tool, arguments: args }, { caps });
  checkTaskShape("createTask", created.body.result);
  const { taskId } = created.body.result;
  let task: any;
  await until(async () => {
    task = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
    expect(["completed", "failed"]).toContain(task.status);
  });
  checkTaskShape("getTask", task);
  return task;
}

const textOf = (task: any) => task.result?.content?.[0]?.text as string | undefined;

/** The bound's cases on the stores `open` gives (a fresh one each time), each given to `close` after its test. */
export function describeTaskBounds<S extends TaskStore>(label: string, open: () => S, close: (store: S) => unknown = () => {}) {
  const opened: S[] = [];
  const makeStore = () => {
    const store = open();
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(close));
  });
  describe(`what one task keeps (${label})`, () => {
    it("refuses with -32602, making no task, a call whose arguments are over the default 1 MiB, and takes them once the limit is raised", async () => {
      const args = { blob: blob(1024 * 1024 + 1) };
      // One task at most: the call after the refused one still finds room, so the refused one kept nothing.
      const app = boundsApp(makeStore(), { max: 1 });
      const refused = await call(app, "tools/call", { name: "closure", arguments: args }, { caps });
      const error = expectError(refused.body, -32602);
      expect(refused.status).toBe(400);
      expect(error.message).toBe("The call's arguments: 1048588 bytes, over the 1048576 bytes one task may keep (raise mcpTasks({ maxTaskBytes }) to allow more)");
      expect(error.data).toEqual({ bytes: 1048588, maxTaskBytes: 1048576 });
      expect(textOf(await ended(app, "closure", {}))).toBe("done");
      expectError((await call(app, "tools/call", { name: "closure", arguments: {} }, { caps })).body, -32603);
      const raised = await ended(boundsApp(makeStore(), { maxTaskBytes: 2 * 1024 * 1024 }), "closure", args);
      expect(textOf(raised)).toBe("done");
    });

    it("measures arguments in UTF-8 bytes: under the limit in characters, over it in bytes", async () => {
      // 700 characters of three bytes each: 2100 bytes of arguments, inside a short body.
      const refused = await call(boundsApp(makeStore(), { maxTaskBytes: LIMIT }), "tools/call", { name: "closure", arguments: { blob: "€".repeat(700) } }, { caps });
      expect(expectError(refused.body, -32602).data).toEqual({ bytes: 2111, maxTaskBytes: LIMIT });
      expect(textOf(await ended(boundsApp(makeStore(), { maxTaskBytes: LIMIT }), "closure", { blob: "€".repeat(600) }))).toBe("done");
    });

    it("refuses with -32602 a run found by name whose input is over the limit, though the arguments are small", async () => {
      const app = boundsApp(makeStore(), { maxTaskBytes: LIMIT });
      const refused = await call(app, "tools/call", { name: "named", arguments: { bytes: LIMIT } }, { caps });
      const error = expectError(refused.body, -32602);
      expect(error.message).toMatch(/^The input of run echo: \d+ bytes, over the 2000 bytes one task may keep/);
      expect(textOf(await ended(app, "named", { bytes: 100 }))).toBe("echoed");
    });

    it("throws from task.update a status message over the limit, and the task keeps its last one", async () => {
      const app = boundsApp(makeStore(), { maxTaskBytes: LIMIT });
      const task = await ended(app, "status", { bytes: LIMIT + 1 });
      expect(task).toMatchObject({ status: "completed", statusMessage: "Started" });
      expect(textOf(task)).toBe("refused: task.update: the status message: 2001 bytes, over the 2000 bytes one task may keep (raise mcpTasks({ maxTaskBytes }) to allow more)");
      expect(textOf(await ended(app, "status", { bytes: LIMIT }))).toBe("updated");
    });

    it("rejects from task.requestInput a question over the limit, without asking it", async () => {
      const app = boundsApp(makeStore(), { maxTaskBytes: LIMIT });
      const task = await ended(app, "ask", { bytes: LIMIT });
      expect(task.status).toBe("completed");
      expect(textOf(task)).toMatch(/^refused: task\.requestInput: the question: \d+ bytes, over the 2000 bytes one task may keep/);
    });

    it("rejects from task.saveCheckpoint a checkpoint over the limit, and keeps one under it", async () => {
      const app = boundsApp(makeStore(), { maxTaskBytes: LIMIT });
      expect(textOf(await ended(app, "checkpoint", { bytes: LIMIT }))).toMatch(/^refused: task\.saveCheckpoint: the checkpoint: 2011 bytes, over the 2000 bytes/);
      expect(textOf(await ended(app, "checkpoint", { bytes: 100 }))).toBe("saved");
    });

    it("fails with -32603 naming the limit a task whose result is over it", async () => {
      const app = boundsApp(makeStore(), { maxTaskBytes: LIMIT });
      const task = await ended(app, "result", { bytes: LIMIT });
      expect(task.status).toBe("failed");
      expect(task.error.code).toBe(-32603);
      expect(task.error.message).toMatch(/^The task's result: \d+ bytes, over the 2000 bytes one task may keep \(raise mcpTasks\(\{ maxTaskBytes \}\) to allow more\)$/);
      expect(task.result).toBeUndefined();
      const fits = await ended(app, "result", { bytes: LIMIT - 100 });
      expect(textOf(fits)).toBe(blob(LIMIT - 100));
      // A tool error's message is its result's text: kept as a result is.
      const thrown = await ended(app, "throws", { bytes: LIMIT + 1 });
      expect(thrown).toMatchObject({ status: "failed", error: { code: -32603, data: { bytes: LIMIT + 1, maxTaskBytes: LIMIT } } });
      expect(await ended(app, "throws", { bytes: 10 })).toMatchObject({ status: "completed", result: { isError: true, content: [{ type: "text", text: blob(10) }] } });
    });
  });
}
