// The same tests as tools.test.ts with node:test and node:assert, for projects without vitest:
//   node --import tsx --test examples/testing/tools.node-test.ts
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHold, createTestClient, driveModelPath, getModelPaths } from "h3-mcp/tasks/testing";
import { createServer } from "./server.ts";

const yes = () => ({ action: "accept", content: { ok: true } });

describe("add", () => {
  it("adds", async () => {
    const client = createTestClient(createServer());
    const answer = await client.callTool("add", { a: 2, b: 3 });
    assert.equal(answer.resultType, "complete");
    assert.deepEqual("content" in answer && answer.content, [{ type: "text", text: "5" }]);
  });

  it("refuses arguments its schema does not allow", async () => {
    const client = createTestClient(createServer());
    await assert.rejects(client.callTool("add", { a: "two", b: 3 }), { code: -32602 });
  });
});

describe("deploy", () => {
  it("deploys once confirmed", async () => {
    const run = await createTestClient(createServer()).runTool("deploy", { env: "staging" }, { onInput: () => ({ confirm: yes() }) });
    assert.equal(run.status, "completed");
    assert.deepEqual(run.result?.content, [{ type: "text", text: "Deployed to staging." }]);
  });

  it("fails when the target refuses", async () => {
    const run = await createTestClient(createServer()).runTool("deploy", { env: "broken" }, { onInput: () => ({ confirm: yes() }) });
    assert.equal(run.status, "failed");
    assert.deepEqual(run.error, { code: -32603, message: "The target refused the release" });
  });

  it("stops when cancelled", async () => {
    const hold = createHold();
    const client = createTestClient(createServer({ beforeStep: hold.step }));
    const handle = await client.callTool("deploy", { env: "production" });
    assert.equal(handle.resultType, "task");
    if (handle.resultType !== "task") return;
    await client.cancelTask(handle.taskId);
    assert.equal((await client.waitForTask(handle.taskId)).status, "cancelled");
  });
});

describe("deploy along the task chart", () => {
  const hold = createHold();
  const app = createServer({ beforeStep: hold.step });
  const drive = (env: string) => ({ app, tool: "deploy", arguments: { env }, answer: yes, proceed: hold.release });

  for (const path of getModelPaths({ tool: { rounds: [["confirm"]], held: true } })) {
    it(path.name, async () => assert.equal((await driveModelPath(path, drive("staging"))).task.status, path.final));
  }
  for (const path of getModelPaths({ tool: { rounds: [["confirm"]], held: true, ends: "protocolError" } })) {
    it(`${path.name} (the target refuses)`, async () => assert.equal((await driveModelPath(path, drive("broken"))).task.status, path.final));
  }
});
