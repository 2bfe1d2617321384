// getModelPaths and driveModelPath (h3-mcp/tasks/testing) on task tools written as a user writes them: every
// path each tool can take is driven over app.fetch, every message checked against the official schemas; and
// the driver fails, saying where, when the tool or the wire is not what the chart says.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit, mcpTask, McpJsonRpcError } from "h3-mcp";
import { mcpTasks } from "h3-mcp/tasks";
import { createHold, createTestClient, driveModelPath, getModelPaths, ModelPathError, type ModelPath, type ToolModel } from "h3-mcp/tasks/testing";
import { officialShapes } from "../helpers/schemas.ts";

const ask = (message: string) => mcpElicit({ message, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });

function server() {
  const held = createHold();
  const tools = [
    // Two rounds, the second repeating a key; each step held until the test lets it go.
    defineTool({
      name: "release",
      handler: (event) =>
        mcpTask(event, {
          statusMessage: "Queued",
          run: async (task) => {
            await held.step(task.signal);
            const first = await task.requestInput({ confirm: ask("Release?"), notes: ask("Notes?") });
            await held.step(task.signal);
            const second = await task.requestInput({ confirm: ask("Really?") });
            await held.step(task.signal);
            return `released: ${JSON.stringify([first.confirm, second.confirm])}`;
          },
        }),
    }),
    // One round, not held, ending each way the chart knows.
    ...(["result", "toolError", "protocolError"] as const).map((ends) =>
      defineTool({
        name: `approve_${ends}`,
        handler: (event) =>
          mcpTask(event, {
            run: async (task) => {
              await task.requestInput({ approve: ask("Approve?") });
              if (ends === "toolError") throw new Error("the tool broke");
              if (ends === "protocolError") throw new McpJsonRpcError(-32603, "upstream down");
              return "approved";
            },
          }),
      }),
    ),
    // Does not do what it is declared to do: it never asks.
    defineTool({ name: "never_asks", handler: (event) => mcpTask(event, { run: () => "done at once" }) }),
  ];
  const app = new H3().all("/mcp", defineMcpHandler({ name: "model-test", version: "1", tools }, { extensionPlugins: [mcpTasks()] }));
  return { app, held };
}

const statusesOf = (path: ModelPath) => path.steps.map((s) => s.status);

describe("getModelPaths", () => {
  it("makes every path a tool can take: each round whole, a key at a time, a key never asked, a cancel in each state", () => {
    const paths = getModelPaths({ tool: { rounds: [["confirm", "notes"], ["confirm"]], held: true } });
    const names = paths.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const path of paths) expect(["completed", "cancelled"]).toContain(path.final);
    // The second round's key is the wire's, renamed.
    expect(names).toContain("input.request[confirm,notes] → input.answer[confirm,notes] → input.request[confirm] → input.answer[confirm.2] → work.done");
    expect(names).toContain("input.request[confirm,notes] → input.answer[confirm] → input.answer[notes] → task.cancel");
    expect(names).toContain("task.cancel");
    expect(names.some((n) => n.includes("input.answer[never-issued]"))).toBe(true);
    // A cancel in working is made only for a tool that can be held there.
    expect(getModelPaths({ tool: { rounds: [["confirm"]] } }).map((p) => p.name)).not.toContain("task.cancel");
    expect(statusesOf(paths.find((p) => p.name === "task.cancel")!)).toEqual(["cancelled"]);
  });

  it("gives the chart's own paths without a tool, leaving out expiry unless asked", () => {
    const paths = getModelPaths();
    const withExpiry = getModelPaths({ expiry: true });
    expect(paths.some((p) => p.steps.some((s) => s.by === "clock"))).toBe(false);
    expect(withExpiry.filter((p) => p.steps.some((s) => s.event.type === "task.expire")).length).toBe(withExpiry.length - paths.length);
    const seen = new Set(paths.flatMap((p) => p.steps.map((s) => `${s.event.type}:${s.status}`)));
    for (const expected of ["status.update:working", "input.request:input_required", "input.answer:working", "work.done:completed", "work.toolError:completed", "work.protocolError:failed", "task.cancel:cancelled"]) expect(seen).toContain(expected);
  });
});

describe("driveModelPath", () => {
  const answer = () => ({ action: "accept", content: { ok: true } });

  it("drives a held tool along every path it can take", async () => {
    const { app, held } = server();
    const paths = getModelPaths({ tool: { rounds: [["confirm", "notes"], ["confirm"]], held: true } });
    const client = createTestClient(app, officialShapes());
    for (const path of paths) {
      const report = await driveModelPath(path, { client, tool: "release", answer, proceed: held.release });
      expect(report.task.status).toBe(path.final);
      expect(report.statuses.at(-1)).toBe(path.final);
    }
  });

  for (const ends of ["result", "toolError", "protocolError"] as const) {
    it(`drives a tool that ends with ${ends} along every path it can take, without holding it`, async () => {
      const { app } = server();
      const shapes = officialShapes();
      const tool: ToolModel = { rounds: [["approve"]], ends };
      for (const path of getModelPaths({ tool })) {
        const report = await driveModelPath(path, { client: createTestClient(app, shapes), tool: `approve_${ends}`, answer });
        expect(report.task.status).toBe(path.final);
        if (path.final === "failed") expect(report.task.error).toEqual({ code: -32603, message: "upstream down" });
        if (ends === "toolError" && path.final === "completed") expect(report.task.result).toMatchObject({ isError: true });
      }
      expect(shapes.checked).toBeGreaterThan(20);
    });
  }

  it("fails, naming the step, when the tool does not do what its model says", async () => {
    const { app } = server();
    const [path] = getModelPaths({ tool: { rounds: [["approve"]] } }).filter((p) => p.final === "completed");
    const error = await driveModelPath(path!, { app, tool: "never_asks", timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPathError);
    expect((error as Error).message).toMatch(/never_asks along input\.request\[approve\].*step 1 \(input\.request\[approve\]\): the wire shows \{"status":"completed"/);

    const wrongKey = getModelPaths({ tool: { rounds: [["confirm"]] } })[0]!;
    await expect(driveModelPath(wrongKey, { app, tool: "approve_result", answer, timeoutMs: 200 })).rejects.toThrow(/"inputKeys":\["approve"\]\}, the chart says .*"inputKeys":\["confirm"\]/);
  });

  it("fails when the wire shows what the chart forbids: a cancelled task that still asks for input", async () => {
    const { app } = server();
    // A proxy that keeps showing the open round after the cancel, as a broken server would.
    let cancelled = false;
    const lying = {
      async fetch(request: Request) {
        const method = request.headers.get("mcp-method");
        if (method === "tasks/cancel") cancelled = true;
        const res = await app.fetch(request);
        if (method !== "tasks/get" || !cancelled) return res;
        const body = await res.json();
        body.result.status = "input_required";
        return Response.json(body);
      },
    };
    const path = getModelPaths({ tool: { rounds: [["approve"]] } }).find((p) => p.name === "input.request[approve] → task.cancel")!;
    await expect(driveModelPath(path, { app: lying, tool: "approve_result", timeoutMs: 200 })).rejects.toThrow(/step 2 \(task\.cancel\).*"status":"input_required"/);
  });

  it("refuses a path with expiry, and a call that makes no task", async () => {
    const { app } = server();
    const expiring = getModelPaths({ expiry: true }).find((p) => p.steps[0]?.by === "clock")!;
    const inMemory = new H3().all("/mcp", defineMcpHandler({ name: "x", version: "1", tools: [defineTool({ name: "plain", handler: () => "hi" })] }));
    await expect(driveModelPath(getModelPaths({ tool: {} })[0]!, { app: inMemory, tool: "plain" })).rejects.toThrow(/answered complete, not a task/);
    await expect(driveModelPath(expiring, { app, tool: "never_asks" })).rejects.toThrow(/step 1 \(task\.expire\): a path with expiry needs the server's clock moved/);
  });
});
