// The demo's durable tools on Redis, in real demo processes on a real redis-server: with MCP_TASKS_SECRET
// durable_steps and durable_ask run (read and answered from any instance); without it they are listed and
// answer a clear error, and the closure `steps` still runs.
import { beforeAll, describe, expect, it } from "vitest";
import { accept, ATTEMPT, createTask, demoCluster, eventually, type Instance } from "./cluster.ts";

const cluster = demoCluster({ leaseMs: 1000, drainMs: 1000 });
let a: Instance;
let b: Instance;
let unsealed: Instance;
beforeAll(async () => {
  [a, b, unsealed] = await Promise.all([cluster.start("a"), cluster.start("b"), cluster.start("unsealed", { MCP_TASKS_SECRET: "" })]);
}, 120_000);

describe("with MCP_TASKS_SECRET", () => {
  it("runs durable_steps to its end, read from another instance with its attempt", async () => {
    const id = await createTask(a.client, "durable_steps", { steps: 3, stepMs: 10 });
    const done = await b.client.waitForTask(id);
    expect(done.result?.structuredContent).toEqual({ steps: 3, attempt: 1, resumedFrom: 0 });
    expect((await b.client.send("tasks/get", { taskId: id }))._meta[ATTEMPT]).toBe(1);
  });

  it("asks durable_ask's rounds in turn, each answered through another instance", async () => {
    const id = await createTask(a.client, "durable_ask");
    const first = await b.client.waitForTask(id, { until: "input_required" });
    expect(Object.keys(first.inputRequests ?? {})).toEqual(["first"]);
    await b.client.updateTask(id, { first: accept("one") });
    await eventually(async () => expect(Object.keys((await b.client.getTask(id)).inputRequests ?? {})).toEqual(["second"]));
    await a.client.updateTask(id, { second: accept("two") });
    expect((await b.client.waitForTask(id)).result?.structuredContent).toEqual({ first: "one", second: "two", attempt: 1 });
  });
});

describe("without MCP_TASKS_SECRET", () => {
  it("says so when it starts, lists the durable tools and answers them with a clear error", async () => {
    expect(unsealed.output()).toContain("MCP_TASKS_SECRET is unset: durable_steps and durable_ask answer an error");
    const { tools } = await unsealed.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["steps", "durable_steps", "durable_ask"]));
    const refused = await unsealed.client.request("tools/call", { name: "durable_steps", arguments: { steps: 1, stepMs: 1 } });
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^durable_steps is a run found by name.*set MCP_TASKS_SECRET/) });
    expect((await unsealed.client.runTool("steps", { steps: 1, stepMs: 1 })).result?.structuredContent).toEqual({ steps: 1 });
  });
});
