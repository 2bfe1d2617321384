// The demo's durable tools on the in-memory store, over app.fetch: durable_steps and durable_ask are runs
// found by name (attempt 1 here, its checkpoint and answers kept with the task), steps a closure; a demo
// given a store without the runs lists the durable tools and answers a clear error for them.
import { describe, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { durableRuns } from "../../examples/demo/tools/durable.ts";
import { memoryTaskStore } from "../../src/tasks/index.ts";
import { createTestClient } from "../../src/tasks/testing/index.ts";

const ATTEMPT = "io.github.h3-mcp/attempt";
const accept = (value: string) => ({ action: "accept", content: { value } });

describe("the demo's durable tools in memory", () => {
  const { app } = createDemo();
  const client = createTestClient(app, { pollMs: 10 });

  it("lists steps, durable_steps and durable_ask, each needing a task", async () => {
    const { tools } = await client.listTools();
    const durable = tools.filter((t) => ["steps", "durable_steps", "durable_ask"].includes(t.name));
    expect(durable.map((t) => [t.name, t.execution])).toEqual([
      ["steps", { taskSupport: "required" }],
      ["durable_steps", { taskSupport: "required" }],
      ["durable_ask", { taskSupport: "required" }],
    ]);
    expect(durable[1].inputSchema).toMatchObject({ properties: { steps: { type: "integer" }, stepMs: { type: "integer" } }, required: ["steps", "stepMs"] });
  });

  it("runs durable_steps as attempt 1 from step 0, the attempt on tasks/get", async () => {
    const run = await client.runTool("durable_steps", { steps: 3, stepMs: 1 });
    expect(run.status).toBe("completed");
    expect(run.result?.structuredContent).toEqual({ steps: 3, attempt: 1, resumedFrom: 0 });
    const task = await client.send("tasks/get", { taskId: run.task!.taskId });
    expect(task._meta[ATTEMPT]).toBe(1);
  });

  it("asks durable_ask's rounds one after the other and answers with both", async () => {
    const asked: string[][] = [];
    const run = await client.runTool("durable_ask", undefined, {
      onInput: (requests) => {
        const keys = Object.keys(requests);
        asked.push(keys);
        return Object.fromEntries(keys.map((key) => [key, accept(`${key} answer`)]));
      },
    });
    expect(asked).toEqual([["first"], ["second"]]);
    expect(run.result?.structuredContent).toEqual({ first: "first answer", second: "second answer", attempt: 1 });
  });

  it("keeps steps a closure: no attempt on its task", async () => {
    const run = await client.runTool("steps", { steps: 2, stepMs: 1 });
    expect(run.result?.structuredContent).toEqual({ steps: 2 });
    expect((await client.send("tasks/get", { taskId: run.task!.taskId }))._meta?.[ATTEMPT]).toBeUndefined();
  });

  it("refuses bad arguments with -32602 before a task is made", async () => {
    const refused = await client.request("tools/call", { name: "durable_steps", arguments: { steps: 1.5, stepMs: 1 } });
    expect(refused.error).toMatchObject({ code: -32602 });
  });
});

describe("a demo whose store is given without the runs", () => {
  const { app } = createDemo({ store: memoryTaskStore() });
  const client = createTestClient(app);

  it("lists the durable tools and answers a clear error naming MCP_TASKS_SECRET; the closure still runs", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["durable_steps", "durable_ask"]));
    for (const name of ["durable_steps", "durable_ask"]) {
      const refused = await client.request("tools/call", { name, arguments: name === "durable_steps" ? { steps: 1, stepMs: 1 } : {} });
      expect(refused.error).toMatchObject({ code: -32603, message: expect.stringContaining(`${name} is a run found by name`) });
      expect(refused.error?.message).toContain("MCP_TASKS_SECRET");
    }
    expect((await client.runTool("steps", { steps: 1, stepMs: 1 })).status).toBe("completed");
  });

  it("runs them when the caller lists them", async () => {
    const { app: listing } = createDemo({ store: memoryTaskStore(), runs: durableRuns });
    const run = await createTestClient(listing, { pollMs: 10 }).runTool("durable_steps", { steps: 1, stepMs: 1 });
    expect(run.result?.structuredContent).toEqual({ steps: 1, attempt: 1, resumedFrom: 0 });
  });
});
