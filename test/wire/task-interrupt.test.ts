// interruptTask (h3-mcp/tasks/testing) over app.fetch on the in-memory store: the stopped attempt's signal
// aborts with the reason a fenced or a handed-off attempt gets and nothing it does later reaches the task,
// listeners hear the next attempt, and what cannot be interrupted is refused with a message saying why.
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, type McpTaskRunContext } from "../../src/tasks/index.ts";
import { createTestClient, interruptTask } from "../../src/tasks/testing/index.ts";
import { Database, exampleTaskStore } from "../../docs/examples/task-store.ts";
import { officialShapes } from "../helpers/schemas.ts";
import { until } from "../helpers/wait.ts";
import { appFor } from "../helpers/wire.ts";

function setup() {
  const attempts: McpTaskRunContext[] = [];
  /** The checkpoint each attempt started from. */
  const startedFrom: unknown[] = [];
  const steps = defineTaskRun({
    name: "steps",
    maxAttempts: 2,
    async run(task) {
      attempts.push(task);
      startedFrom.push(task.checkpoint);
      await task.saveCheckpoint({ attempt: task.attempt });
      // Waits until its signal aborts, or for ever.
      await new Promise((_, reject) => task.signal.addEventListener("abort", () => reject(task.signal.reason), { once: true }));
      return "never";
    },
  });
  const tasks = mcpTasks({ runs: [steps] });
  const tools = [
    defineTool({ name: "steps", handler: (event) => mcpTask(event, { statusMessage: "Queued", run: steps, input: {} }) }),
    defineTool({ name: "closure", handler: (event) => mcpTask(event, { run: () => new Promise(() => {}) }) }),
  ];
  const app = appFor(defineMcpHandler({ name: "interrupt", version: "1", tools }, { extensionPlugins: [tasks] }));
  return { client: createTestClient(app, officialShapes()), tasks, attempts, startedFrom };
}

async function taskOf(client: ReturnType<typeof createTestClient>, tool: string) {
  const handle = await client.callTool(tool);
  if (handle.resultType !== "task") throw new Error("expected a task");
  return handle.taskId;
}

describe("interruptTask", () => {
  for (const [how, reason] of [
    ["crash", /^Attempt 1 was fenced: it lost its lease on the task/],
    ["drain", /^Attempt 1 was stopped: this server instance shut down \(shutdown\)/],
  ] as const) {
    it(`stops attempt 1 as a ${how} would: its signal aborts, its later writes change nothing, listeners hear attempt 2`, async () => {
      const { client, tasks, attempts, startedFrom } = setup();
      const taskId = await taskOf(client, "steps");
      await until(() => expect(attempts).toHaveLength(1));
      const listener = await client.listen([taskId]);
      try {
        expect((await listener.next())._meta?.["io.github.h3-mcp/attempt"]).toBe(1);
        expect(await interruptTask(tasks, taskId, how)).toEqual({ attempt: 2 });
        const [first, second] = attempts as [McpTaskRunContext, McpTaskRunContext];
        expect(first.signal.aborted).toBe(true);
        expect((first.signal.reason as Error).message).toMatch(reason);
        expect(second.attempt).toBe(2);
        expect(startedFrom).toEqual([undefined, { attempt: 1 }]);
        expect(second.signal.aborted).toBe(false);
        expect((await listener.next())._meta?.["io.github.h3-mcp/attempt"]).toBe(2);

        const before = await client.getTask(taskId);
        first.update({ statusMessage: "from the stopped attempt" });
        await expect(first.saveCheckpoint({ attempt: "stale" })).rejects.toThrow(reason);
        expect(await client.getTask(taskId)).toEqual(before);
        second.update({ statusMessage: "from attempt 2" });
        expect((await client.getTask(taskId)).statusMessage).toBe("from attempt 2");
        await client.cancelTask(taskId);
        expect((await client.waitForTask(taskId)).status).toBe("cancelled");
      } finally {
        await listener.close();
      }
    });
  }

  it("refuses what it cannot interrupt, saying why", async () => {
    const { client, tasks } = setup();
    await expect(interruptTask(tasks, await taskOf(client, "closure"), "crash")).rejects.toThrow(/has no attempt of a run found by name running here \(a closure cannot be delivered again/);
    await expect(interruptTask(tasks, "00000000-0000-4000-8000-000000000000", "crash")).rejects.toThrow(/has no attempt of a run found by name running here/);
    await expect(interruptTask(tasks, await taskOf(client, "steps"), "kill" as never)).rejects.toThrow(/how must be "crash" or "drain", not "kill"/);
    await expect(interruptTask({ ...tasks }, "any", "crash")).rejects.toThrow(/give it the plugin mcpTasks\(\) made/);
    const shared = mcpTasks({ store: exampleTaskStore(new Database()) });
    await expect(interruptTask(shared, "any", "drain")).rejects.toThrow(/works on a store only this process uses .* with a shared store, stop an instance instead/);
    (shared.store as ReturnType<typeof exampleTaskStore>).close();
  });
});
