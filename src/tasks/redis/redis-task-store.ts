// `redisTaskStore()`: one server instance's handle on the shared store. Each call is one instance,
// with its own worker id and lease, so two apps in one process behave as two servers.
import { randomUUID } from "node:crypto";
import type { Hub } from "../../features/change-hub.ts";
import type { TaskStore } from "../store.ts";
import { openConnection, type RedisClientLike } from "./connection.ts";
import { createHubBridge } from "./hub-bridge.ts";
import { storeKeys } from "./keys.ts";
import { createListeners } from "./listeners.ts";
import { createLocalTasks } from "./local-tasks.ts";
import { snapshotFromFinalJson } from "./chart.ts";
import { VERSIONS } from "./scripts.ts";
import { createSharedStore, type InspectOption, lostEvent } from "./store.ts";

export interface RedisTaskStoreOptions {
  /** `redis://…` of the server; ignored when `client` is given. */
  url?: string;
  /** An existing node-redis (v5 or later) client; the store duplicates it for its subscriber and never closes it. */
  client?: RedisClientLike;
  /** Namespace of every key; instances sharing it are one logical server. Default `"h3-mcp"`. */
  prefix?: string;
  /**
   * How long an instance's claim on its running tasks lasts without renewal (renewed every third of it
   * while it runs tasks). Once it lapses, the next reader fails those tasks. Default 15 000.
   */
  leaseMs?: number;
  /** Longest wait for Redis before a request gets the store-unavailable error. Default 2000. */
  timeoutMs?: number;
  /** Key of the hash under which `bind` values are stored; the same on every instance. Default: the prefix. */
  secret?: string;
}

export interface RedisTaskStoreStats {
  /** Tasks whose work runs on this instance. */
  readonly localTasks: number;
  /** Tasks some listen stream on this instance waits on, and those streams' listeners. */
  readonly listenedTasks: number;
  readonly listeners: number;
  /** Whether the lease and reconcile timer runs (only while there are local or listened tasks). */
  readonly timer: boolean;
  /** Handler hubs bridged through Redis. */
  readonly hubs: number;
  /** Changes whose compare-and-set found the task changed meanwhile and were retried, since the store opened. */
  readonly casRetries: number;
}

export interface RedisTaskStore extends TaskStore {
  readonly shared: true;
  /** This instance's worker id, and the key of its lease. */
  readonly workerId: string;
  readonly leaseKey: string;
  /** Every key of the store starts with this (the `{prefix}` hash tag). */
  readonly keyPrefix: string;
  readonly stats: RedisTaskStoreStats;
  /** Stops the timer, unsubscribes and closes the connections the store opened (never a client passed in). */
  close(): Promise<void>;
  /** @internal Settings of the tasks plugin the store serves. */
  "~configure"(config: { max: number; now: () => number; inspect?: InspectOption }): void;
  /** @internal Bridges a handler's change hub through Redis; returns the detach. */
  "~attachHub"(hub: Hub): () => void;
}

/**
 * A task store shared through Redis, for `mcpTasks({ store })`.
 *
 * @example
 * const store = redisTaskStore({ url: process.env.REDIS_URL, prefix: "my-app", leaseMs: 15_000 });
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ store })] });
 */
export function redisTaskStore(options: RedisTaskStoreOptions = {}): RedisTaskStore {
  if (!options.client && !options.url) throw new TypeError("redisTaskStore needs a url or a client");
  const prefix = options.prefix ?? "h3-mcp";
  const leaseMs = options.leaseMs ?? 15_000;
  const timeoutMs = options.timeoutMs ?? 2000;
  if (!(leaseMs >= 100)) throw new TypeError("redisTaskStore: leaseMs must be at least 100");
  if (!(timeoutMs > 0)) throw new TypeError("redisTaskStore: timeoutMs must be positive");

  const keys = storeKeys(prefix);
  const workerId = randomUUID();
  const leaseKey = keys.lease(workerId);
  let config: { max: number; now: () => number; inspect?: InspectOption } = { max: 1000, now: Date.now };
  const conn = openConnection({ url: options.url, client: options.client, timeoutMs });
  const local = createLocalTasks({ now: () => config.now(), inspect: () => config.inspect });
  const listeners = createListeners();
  const hub = createHubBridge(conn, keys.hub, workerId);

  let timer: ReturnType<typeof setInterval> | undefined;
  let ticking = false;
  let leasedAt = 0;
  let closed = false;
  const wake = () => {
    if (timer || closed) return;
    conn.setActive(true);
    timer = setInterval(() => void tick(), Math.max(30, Math.floor(leaseMs / 3)));
    // An idle process must still exit: the timer never holds it open, and runs only while needed.
    timer.unref?.();
  };

  const shared = createSharedStore({
    conn,
    keys,
    local,
    listeners,
    workerId,
    leaseMs,
    secret: options.secret ?? prefix,
    config: () => config,
    wake,
    leased: () => {
      leasedAt = Date.now();
    },
  });

  /** Extends the lease; a lease found gone or unrenewable for a whole lease ends the tasks here. */
  const renew = async () => {
    const started = Date.now();
    try {
      const extended = await conn.command<number>(["PEXPIRE", leaseKey, String(leaseMs)]);
      if (extended === 1) leasedAt = started;
      else await leaseLost();
    } catch {
      if (Date.now() - leasedAt > leaseMs) local.endAll(() => lostEvent(config.now()));
    }
  };
  // Another instance may already have failed these tasks; whoever did, the chart keeps the first ending.
  const leaseLost = async () => {
    await Promise.all(local.ids().map((id) => shared.apply(id, () => lostEvent(config.now())).catch(() => {})));
    local.endAll(() => lostEvent(config.now()));
  };
  /** Actors that missed a change restart from the stored snapshot. */
  const reconcileLocal = async () => {
    const ids = local.ids();
    if (!ids.length) return;
    const versions = await conn.run<string[]>(VERSIONS, ids.map(keys.task), []);
    await Promise.all(
      ids.map(async (id, i) => {
        const stored = Number(versions[i]);
        if (!versions[i] || !local.behind(id, stored)) return;
        const task = await shared.read(id);
        const snapshot = task?.final ? snapshotFromFinalJson(task.final) : task?.snapshot;
        if (snapshot) local.resync(id, snapshot, task!.version);
      }),
    );
  };
  const tick = async () => {
    if (ticking) return;
    ticking = true;
    try {
      if (local.size) await renew();
      await Promise.all([reconcileLocal().catch(() => {}), shared.reconcile()]);
    } finally {
      ticking = false;
      if (!local.size && !listeners.taskCount && timer) {
        clearInterval(timer);
        timer = undefined;
        conn.setActive(false);
      }
    }
  };

  void conn.listen(
    [keys.changes, keys.hub],
    (message, channel) => (channel === keys.hub ? hub.onMessage(message) : shared.onChange(message)),
    // After a reconnect, whatever was published meanwhile is caught up with at once.
    () => {
      if (local.size || listeners.taskCount) void tick();
    },
  );

  const store = Object.assign(shared.store, {
    workerId,
    leaseKey,
    keyPrefix: `{${prefix}}:`,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await conn.close();
    },
    "~configure"(next: typeof config) {
      config = next;
    },
    "~attachHub": (h: Hub) => hub.attach(h),
  });
  return Object.defineProperty(store, "stats", {
    get: (): RedisTaskStoreStats => ({
      localTasks: local.size,
      listenedTasks: listeners.taskCount,
      listeners: listeners.listenerCount,
      timer: timer !== undefined,
      hubs: hub.size,
      casRetries: shared.casRetries(),
    }),
  }) as RedisTaskStore;
}
