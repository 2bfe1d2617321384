// Draining one instance of several sharing a real redis-server: its lease holds for the whole drain (no
// other instance takes its tasks for lost, however long the deadline), its closures, input_required
// included, fail with the shutdown reason, written before the drain resolves and pushed to listen streams
// on the other instances; while it drains it refuses new closures with a 503 and serves the tasks it has.
// With Redis gone, the drain still ends within its deadline and the final writes' bound.
import { describe, expect, it } from "vitest";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { startRedis } from "../helpers/redis-server.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest } from "../helpers/wire.ts";
import { caps, client, until, useRedisClusters } from "./cluster.ts";

const clusters = useRedisClusters();
const SHUT_DOWN = { code: -32603, message: "The server instance running this task shut down", data: { attempts: 1, reason: "shutdown" } };

describe("draining an instance on Redis", () => {
  it("keeps its lease through a drain several leases long, then fails its closures everywhere before it resolves", async () => {
    const { instances: [a, b] } = clusters.start(2, {}, { leaseMs: 400 });
    const working = (await client(a).create("controlled")).taskId;
    const parked = (await client(a).create("confirm_delete")).taskId;
    await until(async () => (await client(b).get(parked)).body.result.status === "input_required");
    const sse = sseReader(await b.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [working, parked] } }, { caps, id: "w" })));
    try {
      await sse.next(); // the acknowledgement
      await sse.next();
      await sse.next();

      let report: unknown;
      const deadlineAt = Date.now() + 2000;
      const drained = a.plugin.drain({ deadlineMs: 2000 }).then((r) => (report = r));
      // Five leases of waiting: the other instance sees both tasks as they are all along. A read still on its
      // way when the deadline's final writes land may see them before the drain resolves: those are not judged.
      while (report === undefined) {
        const seen = await Promise.all([working, parked].map(async (id) => (await client(b).get(id)).body.result));
        if (report !== undefined || Date.now() >= deadlineAt) break;
        expect(seen.map((t) => t.status)).toEqual(["working", "input_required"]);
        await new Promise((r) => setTimeout(r, 20));
      }
      await drained;
      expect(report).toEqual({ finished: 0, handedOff: 0, failed: 2, fenced: 0 });
      // Written before the drain resolved: read from the other instance at once.
      for (const id of [working, parked]) {
        const task = (await client(b).get(id)).body.result;
        expect(task).toMatchObject({ status: "failed", error: SHUT_DOWN });
      }
      const frames = [await sse.next(2000), await sse.next(2000)];
      for (const frame of frames) {
        expectShape(S.taskNotification, frame);
        expect(frame.params).toMatchObject({ status: "failed", error: SHUT_DOWN });
      }
      expect(a.plugin.stats.localTasks).toBe(0);
    } finally {
      await sse.close();
    }
  });

  it("refuses new closures with a 503 while it drains, serves answers to its waiting task, and ends once that finishes", async () => {
    const { instances: [a, b] } = clusters.start(2, {}, { leaseMs: 1000 });
    const parked = (await client(a).create("confirm_delete")).taskId;
    await until(async () => (await client(b).get(parked)).body.result.status === "input_required");
    const drained = a.plugin.drain({ deadlineMs: 60_000 });

    const refused = await call(a.app, "tools/call", { name: "controlled" }, { caps });
    expect(refused.status).toBe(503);
    expect(refused.res.headers.get("retry-after")).toBe("1");
    expect(refused.body.error.message).toMatch(/shutting down/);
    // Another instance takes new tasks.
    const elsewhere = (await client(b).create("controlled")).taskId;
    expect((await client(b).get(elsewhere)).body.result.status).toBe("working");

    // Answered through the other instance, the run on the draining one goes on and finishes there.
    await client(b).update(parked, { confirm: { action: "accept", content: { confirm: true } } });
    expect(await drained).toEqual({ finished: 1, handedOff: 0, failed: 0, fenced: 0 });
    expect((await client(b).get(parked)).body.result).toMatchObject({ status: "completed", result: { content: [{ text: "Deleted." }] } });
    b.gates.open(elsewhere, { content: [] });
  });

  it("ends when Redis is gone, its runs ended here", async () => {
    const redis = await startRedis();
    const store = redisTaskStore({ url: redis.url, prefix: "drain-down", secret: "s", leaseMs: 5000 });
    const a = tasksApp({ store });
    try {
      const id = (await call(a.app, "tools/call", { name: "controlled" }, { caps })).body.result.taskId;
      expect(typeof id).toBe("string");
      await redis.stop();
      // Resolves although the store answers nothing (the lease, far longer, has not lapsed): the final
      // writes are bounded by the drain itself, and the run is ended here.
      expect(await a.plugin.drain({ deadlineMs: 0 })).toEqual({ finished: 0, handedOff: 0, failed: 1, fenced: 0 });
      expect(a.plugin.stats.localTasks).toBe(0);
      expect(a.seen.signalAborted).toEqual([id]);
    } finally {
      await store.close().catch(() => {});
    }
  });
});
