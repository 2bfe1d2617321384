// The task store kit (h3-mcp/tasks/testing) on the Redis store: two instances of one logical server per
// test, on a fresh prefix of a throwaway redis-server, requests alternating between them; our extra
// checks are the official schemas. A lost instance is one whose store closed and whose lease was deleted.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, it } from "vitest";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { taskStoreSuite } from "../../src/tasks/testing/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { checkTaskShape } from "../helpers/schemas.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

taskStoreSuite({
  name: "two instances sharing Redis",
  shared: true,
  runs: true,
  open() {
    const prefix = `kit-${randomUUID().slice(0, 8)}`;
    return [0, 1].map(() => redisTaskStore({ url: redis.url, prefix, secret: "kit-secret", leaseMs: 1000 }));
  },
  close: (stores) => Promise.all(stores.map((store) => (store as RedisTaskStore).close())).then(() => {}),
  async loseInstance(store) {
    const lost = store as RedisTaskStore;
    await lost.close();
    await redis.cli("DEL", lost.leaseKey);
  },
  runner: { describe, it },
  checkShape: checkTaskShape,
});
