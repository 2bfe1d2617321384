// Nothing is left behind: after tasks finish and streams close, no Redis subscription beyond each store's
// own, no listener and no timer; after close(), no connection at all; and an idle process exits by itself.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { sseReader } from "../helpers/sse.ts";
import { modernRequest } from "../helpers/wire.ts";
import { until } from "../helpers/wait.ts";
import { caps, client, cluster } from "./cluster.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

const clients = async () => Number(/connected_clients:(\d+)/.exec(await redis.cli("INFO", "clients"))![1]) - 1; // minus the asking one
const IDLE = { localTasks: 0, listenedTasks: 0, listeners: 0, timer: false };

it("leaves each store its own two channels and nothing else once tasks finish and streams close", async () => {
  const c = cluster(redis, 2, {}, { leaseMs: 300 });
  const [a, b] = c.instances;
  const prefix = a!.store.keyPrefix;
  try {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await client(i % 2 ? b! : a!).create("confirm_delete")).taskId);
    for (const id of ids) await until(async () => expect((await client(b!).get(id)).body.result.status).toBe("input_required"));
    const streams = await Promise.all(
      [a!, b!].map(async (inst, i) => {
        const sse = sseReader(await inst.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: ids } }, { caps, id: `s${i}` })));
        await sse.next();
        return sse;
      }),
    );
    expect(a!.plugin.stats).toMatchObject({ localTasks: 2, listenedTasks: 4, listeners: 4, timer: true });
    for (const id of ids) await client(a!).update(id, { confirm: { action: "decline" } });
    for (const id of ids) await until(async () => expect((await client(b!).get(id)).body.result.status).toBe("completed"));
    await Promise.all(streams.map((s) => s.close()));

    await until(() => {
      for (const inst of [a!, b!]) {
        expect(inst.plugin.stats).toMatchObject(IDLE);
        expect(inst.store.stats.hubs).toBe(1);
      }
    });
    const channels = (await redis.cli("PUBSUB", "CHANNELS", `${prefix}*`)).split("\n").sort();
    expect(channels).toEqual([`${prefix}changes`, `${prefix}hub`]);
    expect(await redis.cli("PUBSUB", "NUMSUB", ...channels)).toBe(`${prefix}changes\n2\n${prefix}hub\n2`);
    expect(await clients()).toBe(4); // a command and a subscriber connection per store
  } finally {
    await c.close();
  }
  await until(async () => expect(await clients()).toBe(0));
  expect(await redis.cli("PUBSUB", "CHANNELS", `${prefix}*`)).toBe("");
});

it("lets an idle process exit by itself once its store is closed", async () => {
  const fixture = fileURLToPath(new URL("../fixtures/redis-idle-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", fixture], {
    env: { ...process.env, REDIS_URL: redis.url, PREFIX: `idle-${randomUUID().slice(0, 8)}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exit = await new Promise<{ code: number | null; signal: string | null; ms: number }>((resolve) => {
    let returnedAt = 0;
    child.stdout.on("data", () => {
      if (!returnedAt && output.includes("returned")) returnedAt = Date.now();
    });
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("exit", (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, ms: returnedAt ? Date.now() - returnedAt : -1 });
    });
  });
  expect(exit.signal, output).toBeNull();
  expect(exit.code, output).toBe(0);
  expect(output).toContain("returned");
  const stats = JSON.parse(output.split("\n").find((l) => l.startsWith("{"))!).stats;
  expect(stats).toMatchObject(IDLE);
});
