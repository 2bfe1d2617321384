// `redisTaskStore()`: one server instance's handle on a store every instance shares through Redis. Each
// call is one instance, with its own worker id and lease, so two apps in one process behave as two
// servers. It keeps records and makes creation and each compare-and-set atomic (Lua scripts); the
// runtime (src/tasks/runtime.ts) does the rest.
import { randomUUID } from "node:crypto";
import type { Hub } from "../../features/change-hub.ts";
import type {
  ClaimableTask,
  ClaimOutcome,
  CreateOutcome,
  FinalStatus,
  HoldOutcome,
  LoadedRun,
  StoreRuntime,
  TaskFence,
  TaskRecord,
  TaskRunRecord,
  TaskStore,
  TaskWrite,
  WriteOutcome,
} from "../store.ts";
import { isSealed, runSeal } from "../run-seal.ts";
import { changeMessage, readChange, readReleased } from "../change-messages.ts";
import { openConnection, type RedisClientLike } from "./connection.ts";
import { createHubBridge } from "../hub-bridge.ts";
import { storeKeys } from "./keys.ts";
import { ownerHash, secretRequired } from "./owner-hash.ts";
import { createReader, type ReadTask } from "./reader.ts";
import { createRunHolds, runsNeedSecret } from "./run-holds.ts";
import { createSealedParts, finalForChannel } from "../sealed-parts.ts";
import { RENEW } from "./run-scripts.ts";
import { APPLY, CREATE, CREATED, ID_TAKEN, OWNER_FULL, VERSIONS } from "./scripts.ts";
import { CHART_VERSION, expiryOfSnapshot } from "../snapshot-codec.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";

export interface RedisTaskStoreOptions {
  /** `redis://…` of the server; ignored when `client` is given. */
  url?: string;
  /** An existing node-redis (v5 or later) client; the store duplicates it for its subscriber and never closes it. */
  client?: RedisClientLike;
  /** Namespace of every key; instances sharing it are one logical server. Default `"h3-mcp"`. */
  prefix?: string;
  /**
   * How long an instance's claim on its running tasks lasts without renewal (renewed every third of it
   * while it runs tasks). Once it lapses, other instances take those tasks for lost: the next one to read
   * such a task fails it, unless it is a run found by name with attempts left, whose next attempt is
   * claimed instead. Default 15 000.
   */
  leaseMs?: number;
  /** Longest wait for Redis before a request gets the store-unavailable error. Default 2000. */
  timeoutMs?: number;
  /**
   * Key of the hash (HMAC-SHA256) under which task owners are stored, so Redis never holds a principal:
   * the same random value on every instance. Required whenever tasks are bound to their callers (`bind`,
   * or authorization); `mcpTasks()` refuses a bound setup without it. It is also the key under which a task of
   * a run found by name has its run record, live snapshot and change messages sealed (AES-256-GCM):
   * required for `mcpTasks({ runs })`.
   */
  secret?: string;
}

const OPTION_NAMES: OptionNames<RedisTaskStoreOptions> = { url: true, client: true, prefix: true, leaseMs: true, timeoutMs: true, secret: true };

export interface RedisTaskStoreStats {
  /** Handler hubs bridged through Redis. */
  readonly hubs: number;
  /** Finished tasks this instance remembers, to read them again with a plain GET. */
  readonly finishedKnown: number;
}

export interface RedisTaskStore extends TaskStore {
  readonly shared: true;
  readonly leaseMs: number;
  /** This instance's worker id, and the key of its lease. */
  readonly workerId: string;
  readonly leaseKey: string;
  /** Every key of the store starts with this (the `{prefix}` hash tag). */
  readonly keyPrefix: string;
  readonly stats: RedisTaskStoreStats;
  readHeld(id: string): Promise<TaskRecord | undefined>;
  claim(id: string): Promise<ClaimOutcome>;
  release(id: string, fence: TaskFence): Promise<HoldOutcome>;
  claimable(names: readonly string[], limit: number): Promise<ClaimableTask[]>;
  loadRun(id: string): Promise<LoadedRun>;
  saveRun(id: string, record: TaskRunRecord, fence: TaskFence): Promise<HoldOutcome>;
  /** Unsubscribes and closes the connections the store opened (never a client passed in). */
  close(): Promise<void>;
}

/**
 * A task store shared through Redis, for `mcpTasks({ store })`.
 *
 * @example
 * const store = redisTaskStore({ url: process.env.REDIS_URL, prefix: "my-app", secret: process.env.MCP_TASKS_SECRET });
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ store, bind: (event) => userOf(event) })] });
 */
export function redisTaskStore(options: RedisTaskStoreOptions = {}): RedisTaskStore {
  checkOptions("redisTaskStore()", options, OPTION_NAMES);
  if (!options.client && !options.url) throw new TypeError("redisTaskStore needs a url or a client");
  const prefix = options.prefix ?? "h3-mcp";
  const leaseMs = options.leaseMs ?? 15_000;
  const timeoutMs = options.timeoutMs ?? 2000;
  const secret = options.secret;
  if (!(leaseMs >= 100)) throw new TypeError("redisTaskStore: leaseMs must be at least 100");
  if (!(timeoutMs > 0)) throw new TypeError("redisTaskStore: timeoutMs must be positive");
  if (secret !== undefined && (typeof secret !== "string" || secret === "")) throw new TypeError("redisTaskStore: secret must be a non-empty string");

  const keys = storeKeys(prefix);
  const workerId = randomUUID();
  const leaseKey = keys.lease(workerId);
  const conn = openConnection({ url: options.url, client: options.client, timeoutMs });
  const hub = createHubBridge((message) => conn.command(["PUBLISH", keys.hub, message]), workerId);
  const seal = runSeal(secret);
  const sealed = createSealedParts(keys.task, seal);
  const reader = createReader({ conn, keys, leaseMs, readSnapshot: sealed.readSnapshot });
  const runs = createRunHolds({ conn, keys, seal, workerId, leaseMs });
  let runtime: StoreRuntime | undefined;
  const connected = () => runtime ?? notConnected();

  const store: RedisTaskStore = {
    shared: true,
    leaseMs,
    workerId,
    leaseKey,
    keyPrefix: `{${prefix}}:`,
    connect(next) {
      if (runtime) throw new TypeError("redisTaskStore: this store already serves an mcpTasks(); each instance needs its own");
      if (next.bound && !secret) throw secretRequired();
      if (next.runs && !secret) throw runsNeedSecret();
      runtime = next;
      void conn.listen(
        [keys.changes, keys.hub],
        (message, channel) => {
          if (channel === keys.hub) return hub.onMessage(message);
          const released = readReleased(message);
          if (released) return next.feed.released?.(released.id, released.name);
          const change = readChange(message, next.feed, sealed.openChange);
          if (change) next.feed.changed(change);
        },
        // After a reconnect, whatever was published meanwhile is caught up with at once.
        () => next.feed.missed(),
      );
    },
    async create(task): Promise<CreateOutcome> {
      const { now, limits } = connected();
      // Thrown here, not rejected later: a bound task on a store without a secret is a setup mistake.
      const owner = ownerHash(task.owner, secret);
      const capped = limits.maxPerOwner !== Infinity;
      const added = await conn.run<number>(
        CREATE,
        [keys.task(task.id), keys.tasks, leaseKey, keys.owned(owner)],
        [
          now(),
          task.expiresAt === Infinity ? "" : task.expiresAt,
          limits.max,
          owner,
          CHART_VERSION,
          sealed.snapshot(task.id, task.snapshot, task.run !== undefined),
          workerId,
          task.id,
          leaseMs,
          capped ? limits.maxPerOwner : "",
          task.origin ? JSON.stringify(task.origin) : "",
          keys.prefix,
          ...runs.createArgs(task.id, task.run, task.released),
        ],
      );
      if (added === ID_TAKEN) throw new Error(`Task id ${task.id} is already in use`);
      return added === CREATED ? "created" : added === OWNER_FULL ? "owner-full" : "full";
    },
    async read(id, owner, listen = false): Promise<TaskRecord | undefined> {
      const hash = ownerHash(owner, secret);
      const task = await reader.read(id, listen);
      return task && task.owner === hash ? recordOf(task) : undefined;
    },
    async readHeld(id): Promise<TaskRecord | undefined> {
      const task = await reader.read(id);
      return task && recordOf(task);
    },
    async write(id, change: TaskWrite): Promise<WriteOutcome> {
      const final = change.json !== undefined;
      const hasRun = change.snapshot.context.attempt !== undefined;
      const snapshot = final ? "" : sealed.snapshot(id, change.snapshot, hasRun);
      const args = [
        change.version - 1,
        snapshot,
        final ? reader.storedFinal(id, change.json!) : "",
        keys.changes,
        changeMessage(id, final ? finalForChannel(change) : change, isSealed(snapshot) ? "" : snapshot, sealed.changeSealer(id, hasRun, change)),
        // A change made where the task runs (it carries no event) is published only while a listen stream
        // waits on the task (its listen key exists): no other instance needs it otherwise.
        change.event ? "" : keys.listen(id),
        change.fence ? change.fence.attempt : "",
        keys.prefix,
        id,
      ];
      const written = await conn.run<number>(APPLY, [keys.task(id)], args);
      if (written === -1) return "gone";
      if (written === -2) return "fenced";
      if (written !== 1) return "conflict";
      if (final) reader.remember(id, { expiresAt: expiryOfSnapshot(change.snapshot), status: change.snapshot.value as FinalStatus });
      return "written";
    },
    async renew() {
      return (await conn.run<number>(RENEW, [leaseKey, keys.instances], [workerId, leaseMs])) === 1;
    },
    async versions(ids) {
      const versions = await conn.run<string[]>(VERSIONS, ids.map(keys.task), []);
      return versions.map((v) => (v ? Number(v) : undefined));
    },
    claim: runs.claim,
    release: runs.release,
    claimable: runs.claimable,
    loadRun: runs.loadRun,
    saveRun: runs.saveRun,
    relayAnnouncements: (h: Hub) => hub.attach(h),
    get stats(): RedisTaskStoreStats {
      return { hubs: hub.size, finishedKnown: reader.finishedKnown };
    },
    close: () => conn.close(),
  };
  return store;
}

/** A task as read from Redis, as the contract gives it. */
function recordOf(task: ReadTask): TaskRecord {
  if (task.finished) return { expiresAt: task.finished.facts.expiresAt, status: task.finished.facts.status, json: task.finished.json, origin: task.origin };
  const snapshot = task.snapshot!;
  const live = { version: task.version, expiresAt: expiryOfSnapshot(snapshot), snapshot, origin: task.origin, workerAlive: task.alive };
  return task.hold ? { ...live, hold: task.hold } : live;
}

function notConnected(): never {
  throw new Error("redisTaskStore: not connected to mcpTasks() yet");
}
