// `redisTaskStore({ client })`: the app's own node-redis client, which the store uses and never closes.
import { createClient } from "redis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { call } from "../helpers/wire.ts";
import { caps, client, cluster, until } from "./cluster.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

it("serves tasks through a client the app passed in, shared with a url-made instance, and leaves it open on close", async () => {
  const own = createClient({ url: redis.url });
  own.on("error", () => {});
  await own.connect();
  const other = cluster(redis, 1);
  const store = redisTaskStore({ client: own as never, prefix: other.prefix });
  const a = { ...tasksApp({ store }), store };
  try {
    const { taskId } = await client(a).create("confirm_delete");
    const b = other.instances[0]!;
    await until(async () => (await client(b).get(taskId)).body.result.status === "input_required");
    await client(b).update(taskId, { confirm: { action: "accept", content: { confirm: true } } });
    await until(async () => (await client(a).get(taskId)).body.result.status === "completed");
  } finally {
    await store.close();
    await other.close();
  }
  expect(own.isOpen).toBe(true);
  expect(await own.ping()).toBe("PONG");
  await own.close();
  // One store object is one instance: a second mcpTasks() over it is refused, clearly.
  expect(() => mcpTasks({ store })).toThrow("redisTaskStore: this store already serves an mcpTasks(); each instance needs its own");
});

it("refuses a store with neither url nor client, and nonsense settings", () => {
  expect(() => redisTaskStore({})).toThrow(/needs a url or a client/);
  expect(() => redisTaskStore({ url: redis.url, leaseMs: 10 })).toThrow(/leaseMs/);
  expect(() => redisTaskStore({ url: redis.url, timeoutMs: 0 })).toThrow(/timeoutMs/);
  expect(() => redisTaskStore({ url: redis.url, secret: "" })).toThrow(/secret must be a non-empty string/);
});

it("refuses bound tasks without a secret when mcpTasks() takes the store, naming the option; unbound tasks need none", async () => {
  const unkeyed = redisTaskStore({ url: redis.url, prefix: "no-secret" });
  const keyed = redisTaskStore({ url: redis.url, prefix: "no-secret" });
  try {
    expect(() => mcpTasks({ store: unkeyed, bind: (e) => e.req.headers.get("x-user") })).toThrow(
      "redisTaskStore: tasks are bound to their callers (mcpTasks({ bind }), or authorization), so the store needs `secret`, the key it hashes owners with before they reach Redis: give every instance the same random value, e.g. redisTaskStore({ url, secret: process.env.MCP_TASKS_SECRET })",
    );
    const { app } = tasksApp({ store: keyed });
    const handle = (await call(app, "tools/call", { name: "tool_error" }, { caps })).body.result;
    expect(handle.resultType).toBe("task");
  } finally {
    await Promise.all([unkeyed.close(), keyed.close()]);
  }
});
