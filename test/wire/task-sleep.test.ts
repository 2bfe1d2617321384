// task.sleep(ms) inside a real task's run, over app.fetch: it waits between steps, it rejects the moment
// tasks/cancel aborts the signal (with the signal's own reason), and however many times a run sleeps, its
// signal is left with no abort listener.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { createTestClient } from "../../src/tasks/testing/index.ts";
import { officialShapes } from "../helpers/schemas.ts";
import { until } from "../helpers/wait.ts";
import { appFor } from "../helpers/wire.ts";

function setup() {
  const seen: { signal?: AbortSignal; listenersAfter: number[]; rejected?: unknown; reason?: unknown } = { listenersAfter: [] };
  const tools = [
    defineTool({
      name: "paced",
      inputSchema: { type: "object", properties: { steps: { type: "integer" } }, required: ["steps"] },
      handler: (event, args) =>
        mcpTask(event, {
          statusMessage: "Queued",
          async run(task) {
            seen.signal = task.signal;
            for (let step = 1; step <= (args.steps as number); step++) {
              await task.sleep(0);
              seen.listenersAfter.push(getEventListeners(task.signal, "abort").length);
              task.update({ statusMessage: `Step ${step}` });
            }
            return `${args.steps} steps`;
          },
        }),
    }),
    defineTool({
      name: "waits_long",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            seen.signal = task.signal;
            try {
              await task.sleep(600_000);
            } catch (error) {
              seen.rejected = error;
              seen.reason = task.signal.reason;
              throw error;
            }
            return "woke";
          },
        }),
    }),
    defineTool({ name: "bad_sleep", handler: (event) => mcpTask(event, { run: (task) => task.sleep(Number.NaN).then(() => "slept") }) }),
  ];
  const app = appFor(defineMcpHandler({ name: "sleep", version: "1", tools }, { extensionPlugins: [mcpTasks()] }));
  return { client: createTestClient(app, officialShapes()), seen };
}

describe("task.sleep", () => {
  it("waits between steps and leaves no abort listener behind, after any number of sleeps", async () => {
    const { client, seen } = setup();
    const run = await client.runTool("paced", { steps: 200 });
    expect(run.status).toBe("completed");
    expect(run.result?.content).toEqual([{ type: "text", text: "200 steps" }]);
    expect(seen.listenersAfter).toHaveLength(200);
    expect(new Set(seen.listenersAfter)).toEqual(new Set([0]));
    expect(getEventListeners(seen.signal!, "abort")).toEqual([]);
  });

  it("rejects at once with the signal's reason when the task is cancelled, and removes its listener", async () => {
    const { client, seen } = setup();
    const handle = await client.callTool("waits_long");
    if (handle.resultType !== "task") throw new Error("expected a task");
    await until(() => expect(getEventListeners(seen.signal!, "abort")).toHaveLength(1));
    await client.cancelTask(handle.taskId);
    // The ten-minute sleep ends with the cancel itself, not with its timer.
    await until(() => expect(seen.rejected).toBeDefined());
    expect(seen.rejected).toBe(seen.reason);
    expect((seen.rejected as DOMException).name).toBe("AbortError");
    expect(getEventListeners(seen.signal!, "abort")).toEqual([]);
    expect((await client.getTask(handle.taskId)).status).toBe("cancelled");
  });

  it("rejects a sleep that is not a finite number of ms, as the run's error", async () => {
    const { client } = setup();
    const run = await client.runTool("bad_sleep");
    expect(run.status).toBe("completed");
    expect(run.result).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/task\.sleep needs a finite number of milliseconds/) }] });
  });
});
