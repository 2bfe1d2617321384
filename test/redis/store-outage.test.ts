// A Redis outage as the operator sees it, with a real redis-server stopped and started again: onError is told
// once per outage (a TaskStoreOutageError whose cause is the store's first failure), not once per request;
// plugins hear of its start and of its end; every request that needs the store meanwhile is answered 503 with
// Retry-After.
import { afterAll, beforeAll, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin, defineTool, mcpTask, TaskStoreOutageError, type McpStoreAvailability } from "../../src/index.ts";
import { mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { appFor, call } from "../helpers/wire.ts";
import { caps, until } from "./cluster.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

it("tells onError once per outage, plugins its start and its end, and answers 503 with Retry-After meanwhile", async () => {
  const errors: unknown[] = [];
  const changes: McpStoreAvailability[] = [];
  const watcher = defineMcpPlugin({ name: "store-watcher", taskStoreAvailability: (change) => void changes.push(change) });
  const store = redisTaskStore({ url: redis.url, secret: "outage-secret", prefix: "outage", timeoutMs: 2000 });
  const waits = defineTool({
    name: "waits",
    execution: { taskSupport: "required" },
    handler: (event) => mcpTask(event, { run: (task) => new Promise((resolve) => task.signal.addEventListener("abort", () => resolve("stopped"))) }),
  });
  const handler = defineMcpHandler(
    { name: "outage", version: "1.0.0", tools: [waits] },
    { plugins: [watcher], extensionPlugins: [mcpTasks({ store })], onError: (error) => void errors.push(error) },
  );
  const app = appFor(handler);
  const create = () => call(app, "tools/call", { name: "waits" }, { caps });
  try {
    const created = await create();
    expect(created.body.result.resultType).toBe("task");
    const taskId = created.body.result.taskId as string;
    expect(changes).toEqual([]);

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const r = await call(app, "tasks/get", { taskId }, { caps });
      expect(r.status).toBe(503);
      expect(r.res.headers.get("retry-after")).toBe("2");
      expect(r.body.error.code).toBe(-32603);
      expect(r.body.error.message).toMatch(/^The task store is unavailable: /);
    }
    const refused = await create();
    expect(refused.status).toBe(503);
    expect(refused.res.headers.get("retry-after")).toBe("2");
    // What does not need the store is served as ever.
    expect((await call(app, "tools/list")).status).toBe(200);

    // Four requests failed: one onError, one outage told to plugins.
    expect(errors).toHaveLength(1);
    const outage = errors[0] as TaskStoreOutageError;
    expect(outage).toBeInstanceOf(TaskStoreOutageError);
    expect(outage.name).toBe("TaskStoreOutageError");
    expect(outage.message).toMatch(/^The task store is unavailable: /);
    expect((outage.cause as Error).message).toBe(outage.message);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ available: false, error: outage, at: outage.since });

    await redis.restart();
    await until(async () => (await create()).body.result?.resultType === "task", 10_000, "creating a task again");
    expect(changes).toHaveLength(2);
    const recovered = changes[1]!;
    expect(recovered.available).toBe(true);
    if (!recovered.available) throw new Error("unreachable");
    expect(recovered.downMs).toBe(recovered.at - outage.since);
    expect(recovered.failures).toBeGreaterThanOrEqual(4);
    expect(errors).toHaveLength(1);

    // A second outage is a second report.
    await redis.stop();
    expect((await create()).status).toBe(503);
    expect((await create()).status).toBe(503);
    expect(errors).toHaveLength(2);
    expect(errors[1]).toBeInstanceOf(TaskStoreOutageError);
    expect(errors[1]).not.toBe(outage);
    expect(changes.map((c) => c.available)).toEqual([false, true, false]);
    await redis.restart();
  } finally {
    await store.close();
  }
});
