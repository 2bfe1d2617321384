// Testing the server of ./server.ts with vitest: calls through the test client, then the deployment driven
// along every path of the task chart it can take. `npm test` runs this file; check-package runs it against
// the packed package.
import { describe, expect, it } from "vitest";
import { createHold, createTestClient, driveModelPath, getModelPaths } from "h3-mcp/tasks/testing";
import { createServer } from "./server.ts";

const yes = () => ({ action: "accept", content: { ok: true } });

describe("add", () => {
  it("adds", async () => {
    const client = createTestClient(createServer());
    expect(await client.callTool("add", { a: 2, b: 3 })).toMatchObject({ content: [{ type: "text", text: "5" }] });
  });

  it("refuses arguments its schema does not allow", async () => {
    const client = createTestClient(createServer());
    await expect(client.callTool("add", { a: "two", b: 3 })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("deploy", () => {
  it("deploys once confirmed", async () => {
    const run = await createTestClient(createServer()).runTool("deploy", { env: "staging" }, { onInput: () => ({ confirm: yes() }) });
    expect(run.status).toBe("completed");
    expect(run.result?.content).toEqual([{ type: "text", text: "Deployed to staging." }]);
  });

  it("is called off when declined", async () => {
    const run = await createTestClient(createServer()).runTool("deploy", { env: "staging" }, { onInput: () => ({ confirm: { action: "decline" } }) });
    expect(run.result?.content).toEqual([{ type: "text", text: "Deployment called off." }]);
  });

  it("fails when the target refuses", async () => {
    const run = await createTestClient(createServer()).runTool("deploy", { env: "broken" }, { onInput: () => ({ confirm: yes() }) });
    expect(run).toMatchObject({ status: "failed", error: { code: -32603, message: "The target refused the release" } });
  });

  it("stops when cancelled, and a listener sees it", async () => {
    const hold = createHold();
    const client = createTestClient(createServer({ beforeStep: hold.step }));
    const handle = await client.callTool("deploy", { env: "production" });
    if (handle.resultType !== "task") throw new Error("deploy makes a task");
    const listener = await client.listen([handle.taskId]);
    try {
      expect((await listener.next()).status).toBe("working");
      await client.cancelTask(handle.taskId);
      expect((await listener.until("cancelled")).status).toBe("cancelled");
    } finally {
      await listener.close();
    }
  });
});

describe("deploy along the task chart", () => {
  const hold = createHold();
  const app = createServer({ beforeStep: hold.step });
  const drive = (env: string) => ({ app, tool: "deploy", arguments: { env }, answer: yes, proceed: hold.release });

  for (const path of getModelPaths({ tool: { rounds: [["confirm"]], held: true } })) {
    it(path.name, async () => expect((await driveModelPath(path, drive("staging"))).task.status).toBe(path.final));
  }
  for (const path of getModelPaths({ tool: { rounds: [["confirm"]], held: true, ends: "protocolError" } })) {
    it(`${path.name} (the target refuses)`, async () => expect((await driveModelPath(path, drive("broken"))).task.status).toBe(path.final));
  }
});
