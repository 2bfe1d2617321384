// Redis gone: requests that need it get a clear error within the store's timeout, the rest is served,
// the worker cut off for longer than its lease ends its own work, and all recovers by itself.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { call } from "../helpers/wire.ts";
import { caps, client, cluster, until } from "./cluster.ts";
import { ownFields } from "../helpers/schemas.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

it("answers -32603 with HTTP 503 in bounded time while Redis is down, keeps serving the rest, and recovers", async () => {
  const c = cluster(redis, 2, {}, { leaseMs: 400, timeoutMs: 300 });
  const [a, b] = c.instances as [any, any];
  try {
    const { taskId } = await client(a).create("controlled");
    await redis.stop();

    for (const op of ["get", "cancel"] as const) {
      const started = Date.now();
      const r = await client(b)[op](taskId);
      expect(Date.now() - started).toBeLessThan(300 + 700);
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe(-32603);
      expect(r.body.error.message).toMatch(/^The task store is unavailable: /);
    }
    const created = await call(b.app, "tools/call", { name: "controlled" }, { caps });
    expect(created.status).toBe(503);
    expect(created.body.error.message).toMatch(/^The task store is unavailable: /);
    // What does not need Redis is served as ever.
    const tools = await call(b.app, "tools/list");
    expect(tools.status).toBe(200);
    expect(tools.body.result.tools.length).toBeGreaterThan(0);
    // Cut off for longer than its lease, the worker ends its own work.
    await until(() => a.seen.signalAborted.includes(taskId), 3000, "the cut-off worker aborting its work");

    await redis.restart();
    let fresh: any;
    await until(
      async () => {
        const r = await call(a.app, "tools/call", { name: "controlled" }, { caps });
        fresh = r.body.result;
        return fresh?.resultType === "task";
      },
      5000,
      "creating a task again",
    );
    await until(async () => (await client(b).get(fresh.taskId)).body.result?.status === "working", 5000, "reading it elsewhere");
    expect(ownFields((await client(b).cancel(fresh.taskId)).body.result)).toEqual({ resultType: "complete" });
    await until(() => a.seen.signalAborted.includes(fresh.taskId), 3000, "the cancel reaching the worker again");
  } finally {
    await c.close();
  }
});
