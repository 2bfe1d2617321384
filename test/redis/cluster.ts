// Several server instances in one process sharing one Redis: each `redisTaskStore()` call is one
// instance (its own worker id, lease and subscriber), each with its own app, tools and gates.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import { redisTaskStore, type RedisTaskStore, type RedisTaskStoreOptions } from "../../src/tasks/redis/index.ts";
import type { McpTasksOptions } from "../../src/tasks/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { call, TASKS, type CallOptions } from "../helpers/wire.ts";

export const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

export type Instance = ReturnType<typeof tasksApp> & { store: RedisTaskStore };

/** `n` instances on a fresh prefix; `close()` closes every store. */
export function cluster(
  redis: RedisServer,
  n: number,
  options: Omit<McpTasksOptions, "store"> = {},
  storeOptions: Omit<RedisTaskStoreOptions, "url" | "client"> = {},
) {
  const prefix = storeOptions.prefix ?? `test-${randomUUID().slice(0, 8)}`;
  const instances: Instance[] = [];
  for (let i = 0; i < n; i++) {
    const store = redisTaskStore({ url: redis.url, secret: "cluster-secret", ...storeOptions, prefix });
    instances.push({ ...tasksApp({ ...options, store }), store });
  }
  return { instances, prefix, close: () => Promise.all(instances.map((i) => i.store.close())) };
}

/**
 * One throwaway redis-server for the test file, and `start(n, …)` for clusters on it, each closed
 * after its test.
 */
export function useRedisClusters() {
  let redis: RedisServer | undefined;
  const open: { close(): Promise<unknown> }[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  afterAll(() => redis?.stop());
  return {
    get redis(): RedisServer {
      return redis!;
    },
    start(...args: Parameters<typeof cluster> extends [any, ...infer R] ? R : never) {
      const c = cluster(redis!, ...args);
      open.push(c);
      return c;
    },
    /** Closes `closable` (a store made by the test itself) after the test. */
    closeAfter<T extends { close(): Promise<unknown> }>(closable: T): T {
      open.push({ close: () => closable.close().catch(() => {}) });
      return closable;
    },
  };
}

/** tools/call, tasks/get, tasks/update and tasks/cancel of a tasks client, against one instance. */
export function client(instance: Instance, opts: CallOptions = {}) {
  const o = { caps, ...opts };
  return {
    create: async (name: string, args?: Record<string, unknown>) =>
      (await call(instance.app, "tools/call", { name, ...(args && { arguments: args }) }, o)).body.result,
    get: (taskId: string) => call(instance.app, "tasks/get", { taskId }, o),
    update: (taskId: string, inputResponses: unknown) => call(instance.app, "tasks/update", { taskId, inputResponses }, o),
    cancel: (taskId: string) => call(instance.app, "tasks/cancel", { taskId }, o),
  };
}

/** Resolves once `check` returns true, polling every 10 ms; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 3000, what = "the condition"): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves never; rejects with the signal's reason once it aborts (an attempt held until it is handed off or fenced). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
