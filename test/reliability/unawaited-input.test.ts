// A run that returns without awaiting its question (or its sleep): the task ends while it waits, and the promise
// the run was given rejects then. Under Node's default unhandled-rejection mode an unhandled rejection ends
// the process, so this runs a real server process (test/fixtures/unawaited-input-server.ts) with no
// --unhandled-rejections flag and without CI or TEST, and checks it still serves and reported nothing.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { overHttp } from "../helpers/demo-process.ts";
import { checkTaskShape } from "../helpers/schemas.ts";
import { until } from "../helpers/wait.ts";
import { call, TASKS } from "../helpers/wire.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

let child: ChildProcess;
let output = "";
let server: ReturnType<typeof overHttp>;

beforeAll(async () => {
  const { CI: _ci, TEST: _test, NODE_OPTIONS: _options, ...env } = process.env;
  child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/unawaited-input-server.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  // Generous: a loaded machine may take seconds to start it.
  await vi.waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}):\n${output}`);
      expect(output).toMatch(/listening on (\S+)/);
    },
    { timeout: 60_000, interval: 50 },
  );
  server = overHttp(/listening on (\S+)/.exec(output)![1]!);
}, 70_000);
afterAll(() => {
  if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
});

async function endedTask(tool: string) {
  const created = await call(server, "tools/call", { name: tool }, { caps });
  checkTaskShape("createTask", created.body.result);
  let task: any;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}):\n${output}`);
    task = (await call(server, "tasks/get", { taskId: created.body.result.taskId }, { caps })).body.result;
    expect(task.status).toBe("completed");
  });
  return task;
}

describe("a question left waiting when its task ends", () => {
  it.each(["leave_question", "leave_question_named"])("%s: the task completes, and the process keeps serving without an unhandled rejection", async (tool) => {
    const task = await endedTask(tool);
    checkTaskShape("getTask", task);
    expect(task.result.content).toEqual([{ type: "text", text: "left the question" }]);
    // Served after the rejection: a process that died of it would not answer.
    const listed = await call(server, "tools/list", {}, { caps });
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toContain(tool);
    expect(child.exitCode).toBeNull();
    expect(output).not.toMatch(/unhandled|McpUsageError|while waiting for input/i);
  });

  it("leave_sleep: a task cancelled while a sleep it did not await waits leaves the process serving", async () => {
    const created = await call(server, "tools/call", { name: "leave_sleep" }, { caps });
    const { taskId } = created.body.result;
    expect((await call(server, "tasks/cancel", { taskId }, { caps })).body.result.resultType).toBe("complete");
    await until(async () => {
      if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}):\n${output}`);
      expect((await call(server, "tasks/get", { taskId }, { caps })).body.result.status).toBe("cancelled");
    });
    expect((await call(server, "tools/list", {}, { caps })).body.result.tools.length).toBe(3);
    expect(child.exitCode).toBeNull();
    expect(output).not.toMatch(/unhandled|AbortError|cancelled/i);
  });
});
