// `npm start` as it runs in production (no CI or TEST in its environment, so that srvx's own signal handling
// is in force), sent SIGTERM by pid while a task runs: the draining instance itself keeps answering until it
// exits. tasks/* are answered, a new task is refused with 503 and Retry-After, and the process exits 0 once
// its last task ends or the drain's deadline passes; a second signal ends it at once.
import { describe, expect, it, vi } from "vitest";
import { createTestClient, type TestClient } from "../../src/tasks/testing/index.ts";
import { overHttp, startDemo, type DemoProcess } from "../helpers/demo-process.ts";
import { officialShapes } from "../helpers/schemas.ts";

const SHUT_DOWN = { code: -32603, message: "The server instance running this task shut down", data: { attempts: 1, reason: "shutdown" } };

/** The demo with a `steps` task running that would take 1000 s, and a client checking every answer against the official schemas. */
async function demoWithTask(drainMs: number): Promise<{ demo: DemoProcess; client: TestClient; taskId: string }> {
  const demo = await startDemo({ MCP_DRAIN_MS: String(drainMs) });
  const client = createTestClient(overHttp(demo.url), { timeoutMs: 30_000, pollMs: 20, ...officialShapes() });
  const handle = await client.callTool("steps", { steps: 10_000, stepMs: 100 });
  if (handle.resultType !== "task") throw new Error(`steps answered ${JSON.stringify(handle)}, not a task`);
  return { demo, client, taskId: handle.taskId };
}

/** Sends SIGTERM and resolves once the demo says it drains, and at least `ms` after the signal. */
async function drainingFor(demo: DemoProcess, ms: number): Promise<void> {
  const signalled = performance.now();
  demo.signal("SIGTERM");
  await vi.waitFor(() => expect(demo.output()).toMatch(/^SIGTERM: draining/m), { timeout: 20_000, interval: 10 });
  const left = ms - (performance.now() - signalled);
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
}

describe("npm start, sent SIGTERM", () => {
  it("answers tasks/get and refuses a new task with 503 and Retry-After 400 ms after the signal, then exits 0 once its task ends", async () => {
    const { demo, client, taskId } = await demoWithTask(60_000);
    try {
      // 400 ms: by then srvx's own shutdown had closed the listener, and every request was refused.
      await drainingFor(demo, 400);
      const got = await client.request("tasks/get", { taskId });
      expect(got.status).toBe(200);
      expect(got.result).toMatchObject({ taskId, status: "working" });

      const refused = await client.request("tools/call", { name: "steps", arguments: { steps: 1, stepMs: 1 } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.error).toMatchObject({ code: -32603, message: expect.stringMatching(/shutting down/) });

      // Cancelled on the draining instance, the last task ends, so does the drain, long before its deadline.
      await client.cancelTask(taskId);
      expect(await demo.exited).toEqual({ code: 0, signal: null });
      expect(demo.output()).toMatch(/^drained: 1 finished, 0 handed off, 0 failed, 0 fenced in [\d.]+ ms$/m);
    } finally {
      await demo.stop("SIGKILL");
    }
  }, 90_000);

  it("serves a listen stream while it drains, which tells the failure of the task still running at the deadline, then exits 0", async () => {
    const { demo, client, taskId } = await demoWithTask(1500);
    try {
      await drainingFor(demo, 400);
      expect((await client.request("tasks/get", { taskId })).status).toBe(200);
      const listener = await client.listen([taskId]);
      expect(listener.taskIds).toEqual([taskId]);
      // Told by the draining instance itself, before it exits.
      expect(await listener.until("failed")).toMatchObject({ taskId, status: "failed", error: SHUT_DOWN });
      expect(await demo.exited).toEqual({ code: 0, signal: null });
      expect(demo.output()).toMatch(/^drained: 0 finished, 0 handed off, 1 failed, 0 fenced in [\d.]+ ms$/m);
    } finally {
      await demo.stop("SIGKILL");
    }
  }, 90_000);

  it("exits at once with code 1 on a second signal during the drain", async () => {
    const { demo, client, taskId } = await demoWithTask(60_000);
    try {
      await drainingFor(demo, 0);
      expect((await client.request("tasks/get", { taskId })).status).toBe(200);
      demo.signal("SIGTERM");
      expect(await demo.exited).toEqual({ code: 1, signal: null });
      expect(demo.output()).not.toMatch(/^drained:/m);
    } finally {
      await demo.stop("SIGKILL");
    }
  }, 90_000);
});
