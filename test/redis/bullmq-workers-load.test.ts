// 1,000 tasks over 4 worker processes (`npm run worker`) on a real redis-server, created through two demo
// web processes started with MCP_TASKS_EXECUTOR=bullmq: every task completes, and none is run twice (each
// attempt prints one line naming its task; all are attempt 1). A file of its own: a fresh store under the
// demo's cap of 1,000 tasks retained.
import { describe, expect, it } from "vitest";
import { create, get, probe, startWorker } from "./demo-workers.ts";

describe("durable runs executed by worker processes through BullMQ, at load", () => {
  it("1,000 tasks over 4 workers all complete, none run twice", async () => {
    const pool = await Promise.all([0, 1, 2, 3].map(() => startWorker({ MCP_WORKER_CONCURRENCY: "25" })));
    const ids: string[] = [];
    const creators = Array.from({ length: 20 }, async (_, c) => {
      for (let i = c; i < 1000; i += 20) ids.push(await create(i, "durable_steps", { steps: 0, stepMs: 0 }));
    });
    await Promise.all(creators);
    expect(new Set(ids).size).toBe(1000);
    // Every delivery is done, none given up on.
    await expect.poll(() => probe.queue.getJobCounts("active", "waiting", "delayed", "failed"), { timeout: 60_000, interval: 200 }).toEqual({ active: 0, waiting: 0, delayed: 0, failed: 0 });
    const lines = pool.flatMap((worker) => worker.output().split("\n").filter((line) => line.startsWith("durable_steps ")));
    const ran = lines.map((line) => /^durable_steps (\S+): attempt (\d+)/.exec(line)!).map(([, id, attempt]) => `${id}:${attempt}`);
    expect(ran.sort()).toEqual(ids.map((id) => `${id}:1`).sort());
    for (const worker of pool) expect(worker.output().match(/^durable_steps /gm)?.length ?? 0).toBeGreaterThan(0);
    const statuses = await Promise.all(Array.from({ length: 20 }, async (_, c) => {
      const seen: string[] = [];
      for (let i = c; i < ids.length; i += 20) seen.push((await get(i, ids[i]!)).status);
      return seen;
    }));
    expect(statuses.flat().filter((status) => status !== "completed")).toEqual([]);
  }, 120_000);
});
