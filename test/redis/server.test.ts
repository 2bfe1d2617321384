import { createClient } from "redis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

it("starts a throwaway redis-server the redis client reaches, and restarts it empty on the same port", async () => {
  const client = createClient({ url: redis.url });
  client.on("error", () => {}); // the restart below drops the connection on purpose
  await client.connect();
  expect(await client.ping()).toBe("PONG");
  await client.set("k", "v");
  expect(await redis.cli("GET", "k")).toBe("v");
  expect(await redis.cli("CONFIG", "GET", "save")).toBe("save\n");
  await client.destroy();

  await redis.restart();
  expect(await redis.cli("GET", "k")).toBe("");
  expect(await redis.cli("PING")).toBe("PONG");
});
