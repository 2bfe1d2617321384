// The key names docs/scale-out.md tells operators to look for: every key of a store starts with its prefix in
// braces (a Redis Cluster hash tag), and `redis-cli --scan` finds them with the braces in the pattern, and
// only so. redis-cli runs as a real process against a real server.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { client, until } from "./cluster.ts";

const run = promisify(execFile);
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

/** `redis-cli --scan --pattern <pattern>`, as the docs write it; the keys it printed, sorted. */
async function scan(pattern: string): Promise<string[]> {
  const { stdout } = await run("redis-cli", ["-p", String(redis.port), "--scan", "--pattern", pattern]);
  return stdout.split("\n").filter(Boolean).sort();
}

it("names every key {prefix}:…, found by a scan for '{my-app}:*' and by none for 'my-app:*'", async () => {
  const store = redisTaskStore({ url: redis.url, prefix: "my-app" });
  const app = { ...tasksApp({ store }), store };
  try {
    const { taskId } = await client(app).create("confirm_delete");
    await until(async () => (await client(app).get(taskId)).body.result.status === "input_required");
    const keys = await scan("{my-app}:*");
    expect(keys).toContain(`{my-app}:task:${taskId}`);
    expect(keys).toContain("{my-app}:tasks");
    expect(keys).toContain(`{my-app}:lease:${store.workerId}`);
    expect(keys.every((k) => k.startsWith("{my-app}:"))).toBe(true);
    expect(store.keyPrefix).toBe("{my-app}:");
    expect(await scan("my-app:*")).toEqual([]);
    expect(await redis.cli("TYPE", `{my-app}:task:${taskId}`)).toBe("hash");
  } finally {
    await store.close();
  }
});
