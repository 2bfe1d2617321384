// Testing the report of ./report-server.ts with vitest: driven along every path of the task chart while it
// reports progress, then a crash and a drain in the middle of it, each followed by the next attempt in this
// same process, on the in-memory store: it starts after the last checkpoint and is not asked again what
// was already answered.
import { describe, expect, it } from "vitest";
import { createHold, createTestClient, driveModelPath, getModelPaths, interruptTask, type TaskView } from "h3-mcp/tasks/testing";
import { createReportServer } from "./report-server.ts";

const add = () => ({ action: "accept", content: { add: true } });
const attemptOf = (task: TaskView) => task._meta?.["io.github.h3-mcp/attempt"];

describe("report, along every path of the task chart", () => {
  const hold = createHold();
  const { app } = createReportServer({ beforeStep: hold.step });
  for (const path of getModelPaths({ tool: { rounds: [["appendix"]], held: true } })) {
    it(path.name, async () => {
      const report = await driveModelPath(path, { app, tool: "report", arguments: { sections: 4 }, answer: add, proceed: hold.release });
      expect(report.task.status).toBe(path.final);
      // Whatever the path, the progress the wire showed went forward, section by section.
      const sections = report.messages.slice(1).map((m) => Number(/^Section (\d)\/4 \(attempt 1\)$/.exec(m)![1]));
      expect(sections).toEqual([...sections].sort());
    });
  }
});

/** A report whose first attempt stops after section `stopAt`'s checkpoint until its signal aborts. */
function stoppingAt(stopAt: number) {
  const written: string[] = [];
  let reached!: () => void;
  const stopped = new Promise<void>((resolve) => (reached = resolve));
  const server = createReportServer({
    afterSection(section, attempt, signal) {
      written.push(`${attempt}:${section}`);
      if (attempt > 1 || section !== stopAt) return;
      reached();
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    },
  });
  return { ...server, client: createTestClient(server.app), written, stopped };
}

/** Starts a report of five sections and answers its question (asked after section 2). */
async function started(client: ReturnType<typeof createTestClient>) {
  const handle = await client.callTool("report", { sections: 5 });
  if (handle.resultType !== "task") throw new Error("report makes a task");
  const asked = await client.waitForTask(handle.taskId, { until: "input_required" });
  expect(Object.keys(asked.inputRequests ?? {})).toEqual(["appendix"]);
  await client.updateTask(handle.taskId, { appendix: add() });
  return handle.taskId;
}

describe("report, delivered again", () => {
  for (const how of ["crash", "drain"] as const) {
    it(`after a ${how} at section 3, attempt 2 starts at section 4 from the checkpoint and is not asked again`, async () => {
      const { client, tasks, written, stopped } = stoppingAt(3);
      const taskId = await started(client);
      await stopped;
      expect(await interruptTask(tasks, taskId, how)).toEqual({ attempt: 2 });
      // No onInput: a question asked again would end this wait at input_required.
      const done = await client.waitForTask(taskId);
      expect(done.status).toBe("completed");
      expect(attemptOf(done)).toBe(2);
      expect(written).toEqual(["1:1", "1:2", "1:3", "2:4", "2:5"]);
      expect(done.result?.content).toEqual([{ type: "text", text: "Section 1\nSection 2\nSection 3\nSection 4\nSection 5\nAppendix" }]);
      expect(done.statusMessage).toBe("Section 5/5 (attempt 2)");
    });
  }

  it("keeps a question that is open when its attempt crashes: attempt 2 waits on the same key", async () => {
    const { client, tasks, written } = stoppingAt(0);
    const handle = await client.callTool("report", { sections: 3 });
    if (handle.resultType !== "task") throw new Error("report makes a task");
    await client.waitForTask(handle.taskId, { until: "input_required" });
    expect(await interruptTask(tasks, handle.taskId, "crash")).toEqual({ attempt: 2 });
    const waiting = await client.getTask(handle.taskId);
    expect(waiting).toMatchObject({ status: "input_required", _meta: { "io.github.h3-mcp/attempt": 2 } });
    expect(Object.keys(waiting.inputRequests ?? {})).toEqual(["appendix"]);
    await client.updateTask(handle.taskId, { appendix: { action: "decline" } });
    const done = await client.waitForTask(handle.taskId);
    expect(done.result?.content).toEqual([{ type: "text", text: "Section 1\nSection 2\nSection 3" }]);
    expect(written).toEqual(["1:1", "1:2", "2:3"]);
  });

  it("fails the task once a crash leaves no attempt, while drains spend none", async () => {
    const { client, tasks } = stoppingAt(0);
    const handle = await client.callTool("report", { sections: 3 });
    if (handle.resultType !== "task") throw new Error("report makes a task");
    await client.waitForTask(handle.taskId, { until: "input_required" });
    expect(await interruptTask(tasks, handle.taskId, "drain")).toEqual({ attempt: 2 });
    expect(await interruptTask(tasks, handle.taskId, "crash")).toEqual({ attempt: 3 });
    expect(await interruptTask(tasks, handle.taskId, "drain")).toEqual({ attempt: 4 });
    expect(await interruptTask(tasks, handle.taskId, "crash")).toEqual({ attempt: 5 });
    // maxAttempts is 3: two attempts lost, two handed off, and this third loss is one too many.
    expect(await interruptTask(tasks, handle.taskId, "crash")).toEqual({ status: "failed" });
    const failed = await client.getTask(handle.taskId);
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "The server instance running this task was lost" } });
    await expect(interruptTask(tasks, handle.taskId, "crash")).rejects.toThrow(/has no attempt of a run found by name running here/);
  });
});
