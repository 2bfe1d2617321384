// Redis trouble, for real: the server stopped and restarted, the subscriber connections killed, Redis made
// slow, a zombie worker whose lease was taken. Each answers a bounded, clear JSON-RPC error (-32603, HTTP 503)
// where it must, keeps serving what needs no Redis, recovers by itself, and loses nothing it acknowledged.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectError, ownFields } from "../helpers/schemas.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest } from "../helpers/wire.ts";
import { until } from "../helpers/wait.ts";
import { caps, client, cluster } from "./cluster.ts";

const TIMEOUT_MS = 400;
const LEASE_MS = 600;
let redis: RedisServer;
let open: { close(): Promise<unknown> }[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => redis?.stop());

function start(n = 2, leaseMs = LEASE_MS) {
  const c = cluster(redis, n, {}, { timeoutMs: TIMEOUT_MS, leaseMs });
  open.push(c);
  return c;
}

/** Resolves with how long `promise` took; fails if it takes longer than `ms` (a hang is the bug here). */
async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} hung for more than ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

const unavailable = (r: { status: number; body: any }) => {
  expect(r.status).toBe(503);
  expect(expectError(r.body, -32603).message).toMatch(/^The task store is unavailable/);
};

describe("Redis stopped and restarted mid-run", () => {
  it("answers 503 -32603 within the timeout, keeps serving the rest, and recovers by itself", async () => {
    const { instances: [a, b] } = start();
    const { taskId } = await client(a!).create("controlled");
    await redis.stop();
    try {
      for (const inst of [a!, b!]) {
        unavailable(await bounded(client(inst).get(taskId), TIMEOUT_MS * 4, "tasks/get with Redis down"));
        unavailable(await bounded(client(inst).cancel(taskId), TIMEOUT_MS * 4, "tasks/cancel with Redis down"));
        // Creating a task needs Redis: a clear refusal, not a 500 or a hang.
        const created = await bounded(call(inst.app, "tools/call", { name: "controlled" }, { caps }), TIMEOUT_MS * 4, "tools/call with Redis down");
        expect(created.status).not.toBe(500);
        expect(JSON.stringify(created.body)).toMatch(/unavailable/);
        // What needs no Redis still works.
        expect((await call(inst.app, "tools/call", { name: "forbidden" }, { caps })).body.result.content[0].text).toBe("forbidden ran");
        expect((await call(inst.app, "tools/list")).status).toBe(200);
      }
    } finally {
      await redis.restart();
    }
    // The restarted Redis keeps no data (no persistence): the task is gone, and its worker, whose lease
    // went with it, gives up the run.
    await until(() => expect(a!.seen.signalAborted).toContain(taskId));
    await until(async () => expectError((await client(b!).get(taskId)).body, -32602));
    // New work runs across instances again, listen streams included.
    const fresh = await client(a!).create("confirm_delete");
    await until(async () => expect((await client(b!).get(fresh.taskId)).body.result.status).toBe("input_required"));
    const sse = sseReader(await b!.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [fresh.taskId] } }, { caps, id: "l" })));
    try {
      await sse.next();
      expect((await sse.next()).params.status).toBe("input_required");
      await client(b!).update(fresh.taskId, { confirm: { action: "accept", content: { confirm: true } } });
      let frame;
      do frame = await sse.next(3000);
      while (frame.params.status !== "completed");
      expect(frame.params.result.content[0].text).toBe("Deleted.");
    } finally {
      await sse.close();
    }
  });
});

describe("the subscriber connections killed (CLIENT KILL TYPE pubsub)", () => {
  it("still delivers cancels to the worker and frames to listeners, and resubscribes", async () => {
    const { instances: [a, b] } = start();
    const channel = `${a!.store.keyPrefix}changes`;
    expect(await redis.cli("PUBSUB", "NUMSUB", channel)).toBe(`${channel}\n2`);
    const first = await client(a!).create("confirm_delete");
    const second = await client(a!).create("controlled");
    await until(async () => expect((await client(b!).get(first.taskId)).body.result.status).toBe("input_required"));
    const sse = sseReader(await b!.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [first.taskId] } }, { caps, id: "l" })));
    try {
      await sse.next();
      expect((await sse.next()).params.status).toBe("input_required");

      expect(Number(await redis.cli("CLIENT", "KILL", "TYPE", "pubsub"))).toBeGreaterThanOrEqual(2);
      // Both messages are published while the subscribers may be away; neither may be lost.
      expect(ownFields((await client(b!).cancel(second.taskId)).body.result)).toEqual({ resultType: "complete" });
      expect(ownFields((await client(a!).update(first.taskId, { confirm: { action: "accept", content: { confirm: true } } })).body.result)).toEqual({ resultType: "complete" });
      await until(() => expect(a!.seen.signalAborted).toContain(second.taskId));
      let frame;
      do frame = await sse.next(LEASE_MS * 4);
      while (frame.params.status !== "completed");
      expect(frame.params.result.content[0].text).toBe("Deleted.");
      await until(async () => expect(await redis.cli("PUBSUB", "NUMSUB", channel)).toBe(`${channel}\n2`));
    } finally {
      await sse.close();
    }
  });
});

describe("Redis made slow (DEBUG SLEEP)", () => {
  it("answers 503 -32603 after the timeout while it sleeps, then serves again, keeping what it acknowledged", async () => {
    // A stall shorter than the lease: every worker keeps its tasks (a longer one fails them as lost).
    const { instances: [a, b] } = start(2, 3000);
    const { taskId } = await client(a!).create("two_rounds");
    await until(async () => expect((await client(b!).get(taskId)).body.result.status).toBe("input_required"));
    // Acknowledged before the stall: must survive it.
    expect(ownFields((await client(b!).update(taskId, { name: { action: "accept", content: { name: "Ada" } } })).body.result)).toEqual({ resultType: "complete" });

    const sleeping = redis.cli("DEBUG", "SLEEP", String((TIMEOUT_MS * 3) / 1000));
    await new Promise((r) => setTimeout(r, 50));
    unavailable(await bounded(client(a!).get(taskId), TIMEOUT_MS * 2.5, "tasks/get while Redis sleeps"));
    await sleeping;

    const parked = await until(async () => {
      const task = (await client(a!).get(taskId)).body.result;
      expect(Object.keys(task?.inputRequests ?? {}), JSON.stringify(task)).toEqual(["confirm"]);
      return task;
    });
    expect(parked.status).toBe("input_required");
    await client(a!).update(taskId, { confirm: { action: "decline" } });
    await until(async () => expect((await client(b!).get(taskId)).body.result.status).toBe("input_required"));
    expect(Object.keys((await client(b!).get(taskId)).body.result.inputRequests)).toEqual(["confirm.2"]);
  });
});

describe("each command's own time bound", () => {
  it("gives every request waiting on a stalled Redis its whole timeout, counted from when it asked, and no more", async () => {
    const { instances: [a] } = start(1, 5000);
    const { taskId } = await client(a!).create("two_rounds");
    await until(async () => expect((await client(a!).get(taskId)).body.result.status).toBe("input_required"));
    const sleeping = redis.cli("DEBUG", "SLEEP", String((TIMEOUT_MS * 4) / 1000));
    await new Promise((r) => setTimeout(r, 50));
    // Requests a third of the timeout apart: each one's bound runs from its own start, so none fails early
    // (as it would if a later command shared an earlier one's deadline) and none waits out the stall.
    const timed = async () => {
      const from = performance.now();
      const r = await bounded(client(a!).get(taskId), TIMEOUT_MS * 3, "tasks/get while Redis sleeps");
      return { r, ms: performance.now() - from };
    };
    const runs: Promise<{ r: Awaited<ReturnType<typeof timed>>["r"]; ms: number }>[] = [];
    for (let i = 0; i < 3; i++) {
      runs.push(timed());
      await new Promise((r) => setTimeout(r, TIMEOUT_MS / 3));
    }
    for (const { r, ms } of await Promise.all(runs)) {
      unavailable(r);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    }
    await sleeping;
    await until(async () => expect((await client(a!).get(taskId)).body.result.status).toBe("input_required"));
  });
});

describe("a zombie worker whose lease was taken", () => {
  it("loses its task to another instance, aborts its run, and cannot overwrite the failure", async () => {
    const { instances: [a, b] } = start();
    const { taskId } = await client(a!).create("controlled");
    // As if `a` had been cut off for longer than its lease: the lease lapses while it still runs.
    expect(await redis.cli("DEL", a!.store.leaseKey)).toBe("1");
    const lost = await until(async () => {
      const task = (await client(b!).get(taskId)).body.result;
      expect(task.status).toBe("failed");
      return task;
    });
    expect(lost.error).toEqual({ code: -32603, message: "The server instance running this task was lost" });
    await until(() => expect(a!.seen.signalAborted).toContain(taskId));
    // The zombie's late result changes nothing, on either instance.
    a!.gates.open(taskId, { content: [{ type: "text", text: "too late" }] });
    await until(() => expect(a!.seen.lateResults).toBe(1));
    await new Promise((r) => setTimeout(r, LEASE_MS));
    for (const inst of [a!, b!]) expect((await client(inst).get(taskId)).body.result).toEqual(lost);
    expect(a!.plugin.stats.localTasks).toBe(0);
  });
});
