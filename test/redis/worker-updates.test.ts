// A worker reporting progress as fast as it can: its status updates are written as fast as Redis takes
// them, only the latest one counting, and requests for the same task keep being answered meanwhile.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { appFor, call } from "../helpers/wire.ts";
import { caps, until } from "./cluster.ts";

let redis: RedisServer;
const open: RedisTaskStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => redis?.stop());

const TIMEOUT_MS = 1000;

/** An app whose `spin` task calls `task.update()` once per turn of the event loop until told to stop. */
function spinningApp(prefix: string) {
  const store = redisTaskStore({ url: redis.url, prefix, timeoutMs: TIMEOUT_MS });
  open.push(store);
  const spin = { stop: false, sent: 0, last: "" };
  const tool = defineTool({
    name: "spin",
    execution: { taskSupport: "required" },
    handler: (event) =>
      mcpTask(event, {
        async run(task) {
          while (!spin.stop) {
            spin.last = `step ${++spin.sent}`;
            task.update({ statusMessage: spin.last });
            await new Promise((resolve) => setImmediate(resolve));
          }
          return { content: [{ type: "text", text: "spun" }] };
        },
      }),
  });
  const handler = defineMcpHandler({ name: "spin", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ store })] });
  return { app: appFor(handler), store, spin };
}

describe("a worker updating its status in a tight loop", () => {
  it("does not starve tasks/get of the same task, and its last message is the one kept", async () => {
    const prefix = `spin-${Date.now()}`;
    const { app, spin } = spinningApp(prefix);
    const other = redisTaskStore({ url: redis.url, prefix });
    open.push(other);
    const reader = appFor(defineMcpHandler({ name: "r", version: "1" }, { extensionPlugins: [mcpTasks({ store: other })] }));
    const { taskId } = (await call(app, "tools/call", { name: "spin" }, { caps })).body.result;
    const seen = new Set<string>();
    try {
      // For several of the store's timeouts, tasks/get on the worker's own instance answers each time.
      const end = Date.now() + 3 * TIMEOUT_MS;
      while (Date.now() < end) {
        const got = await call(app, "tasks/get", { taskId }, { caps });
        expect(got.status).toBe(200);
        expect(got.body.result?.status).toBe("working");
        seen.add(got.body.result.statusMessage);
      }
    } finally {
      spin.stop = true;
    }
    // Progress was written meanwhile, and the end is not held back behind a backlog of stale updates.
    expect(seen.size).toBeGreaterThan(2);
    await until(async () => (await call(reader, "tasks/get", { taskId }, { caps })).body.result?.status === "completed", TIMEOUT_MS);
    expect((await call(reader, "tasks/get", { taskId }, { caps })).body.result.statusMessage).toBe(spin.last);
  });
});
