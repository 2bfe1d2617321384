// A dead worker is noticed, a live one never is, and a worker that lost its lease stops its work.
// A lost change message is caught up with.
import { describe, expect, it } from "vitest";
import { nextSnapshot } from "../../src/tasks/chart.ts";
import { APPLY } from "../../src/tasks/redis/scripts.ts";
import { toGetTaskResultJson } from "../../src/tasks/kept-json.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { modernRequest } from "../helpers/wire.ts";
import { caps, client, sleep, until, useRedisClusters } from "./cluster.ts";

const clusters = useRedisClusters();
const start = clusters.start;
const LOST = { code: -32603, message: "The server instance running this task was lost" };
const listen = async (app: any, taskIds: string[], id: string) => {
  const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds } }, { caps, id })));
  expect((await sse.next()).method).toBe("notifications/subscriptions/acknowledged");
  return sse;
};

describe("the lease", () => {
  it("keeps a live worker's task working for many leases, and stops renewing once it has none", async () => {
    const { instances: [a, b] } = start(2, {}, { leaseMs: 200 });
    const { taskId } = await client(a).create("controlled");
    expect(a.plugin.stats.timer).toBe(true);
    const end = Date.now() + 1200;
    while (Date.now() < end) {
      expect((await client(b).get(taskId)).body.result.status).toBe("working");
      await sleep(40);
    }
    a.gates.open(taskId, { content: [{ type: "text", text: "ok" }] });
    await until(async () => (await client(b).get(taskId)).body.result.status === "completed");
    await until(() => !a.plugin.stats.timer, 1000, "the lease timer stopping");
    expect(a.plugin.stats.localTasks).toBe(0);
    // Its lease lapses by itself once it runs nothing.
    await until(async () => Number(await clusters.redis.cli("EXISTS", a.store.leaseKey)) === 0, 1000, "the idle lease lapsing");
  });

  it("fails a dead worker's tasks within about two leases, on every instance and on listen streams", async () => {
    const { instances: [a, b, c] } = start(3, {}, { leaseMs: 300 });
    const { taskId } = await client(a).create("confirm_delete");
    await until(async () => (await client(b).get(taskId)).body.result.status === "input_required");
    const sse = await listen(c.app, [taskId], "watch");
    expect((await sse.next()).params.status).toBe("input_required");
    // The worker goes silent: no renewal, no subscriber (its process would be gone).
    const died = Date.now();
    await a.store.close();
    const frame = await sse.next(2000);
    const noticed = Date.now() - died;
    expectShape(S.taskNotification, frame);
    expect(frame.params).toMatchObject({ taskId, status: "failed", error: LOST });
    expect(noticed).toBeLessThan(2 * 300 + 300);
    const failed = (await client(b).get(taskId)).body.result;
    expect(failed).toMatchObject({ status: "failed", error: LOST });
    expect((await client(c).get(taskId)).body.result).toEqual(failed);
    expect(await sse.quiet(100)).toBe(true);
    await sse.close();
  });

  it("makes a worker whose lease was taken end its own tasks' signals", async () => {
    const { instances: [a, b] } = start(2, {}, { leaseMs: 300 });
    const { taskId } = await client(a).create("controlled");
    await clusters.redis.cli("DEL", a.store.leaseKey);
    await until(() => a.seen.signalAborted.includes(taskId), 1000, "the worker aborting its work");
    expect((await client(b).get(taskId)).body.result).toMatchObject({ status: "failed", error: LOST });
    // Whatever the work says later changes nothing.
    a.gates.open(taskId, { content: [{ type: "text", text: "too late" }] });
    await sleep(50);
    expect((await client(b).get(taskId)).body.result).toMatchObject({ status: "failed", error: LOST });
  });
});

describe("a lost change message", () => {
  it("is caught up with by the worker and by listen streams on the next tick", async () => {
    const { instances: [a, b, c] } = start(3, {}, { leaseMs: 300 });
    const { taskId } = await client(a).create("controlled");
    const sse = await listen(c.app, [taskId], "watch");
    expect((await sse.next()).params.status).toBe("working");
    // Cancel the task as the store would, but publish the change where nobody listens.
    const key = `${a.store.keyPrefix}task:${taskId}`;
    const [version, snapshot] = (await clusters.redis.cli("HMGET", key, "v", "s")).split("\n");
    const step = nextSnapshot(JSON.parse(snapshot!), { type: "task.cancel", at: Date.now() })!;
    const written = await clusters.redis.cli("EVAL", APPLY.source, "1", key, version!, "", toGetTaskResultJson(step.snapshot), "nobody-listens", "{}");
    expect(written).toBe("1");
    await until(() => a.seen.signalAborted.includes(taskId), 1000, "the worker catching up");
    const frame = await sse.next(1000);
    expect(frame.params).toMatchObject({ taskId, status: "cancelled" });
    expect((await client(b).get(taskId)).body.result.status).toBe("cancelled");
    expect(c.plugin.stats.listeners).toBe(0);
    await sse.close();
  });
});
