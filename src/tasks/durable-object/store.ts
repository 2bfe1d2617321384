// `durableObjectTaskStore()`: one isolate's handle on the tasks every isolate of a Worker shares through
// one Durable Object (McpTasksObject, object.ts). Each call is one instance, with its own worker id and
// lease, as with the Redis store; the object makes creation and each compare-and-set atomic, and the
// watcher brings other isolates' changes to this one's feed. Runs found by name: store-runs.ts.
import { taskStoreUnavailable } from "../../protocol/errors.ts";
import { keyedOwnerHash } from "../owner-hash.ts";
import type { CreateOutcome, FinalStatus, StoreRuntime, TaskChange, TaskOrigin, TaskRecord, TaskSnapshot, TaskStore, TaskWrite, WriteOutcome } from "../store.ts";
import type { TasksObjectNamespace, TasksObjectStub } from "./namespace.ts";
import { CREATED, GONE, HELD_FENCED, ID_TAKEN, OWNER_FULL, WRITTEN, type StoredTask } from "./object-api.ts";
import { createRunCalls, holdOf, runsNeedSecret } from "./store-runs.ts";
import { createWatcher } from "./watcher.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";

export interface DurableObjectTaskStoreOptions {
  /** The object's name: stores giving the same name (on the same binding) are one logical server. Default `"h3-mcp"`. */
  name?: string;
  /**
   * How long an instance's claim on its running tasks lasts without renewal (renewed every third of it
   * while it runs tasks). Once it lapses, the next reader fails those tasks. Default 15 000.
   */
  leaseMs?: number;
  /** Longest wait for the object before a request gets the store-unavailable error. Default 5000. */
  timeoutMs?: number;
  /**
   * Key of the hash (HMAC-SHA256) under which task owners are stored, so the object never holds a
   * principal, and of the seal (AES-256-GCM) over the records of runs found by name. Required whenever tasks
   * are bound to their callers or runs found by name are served; `mcpTasks()` refuses such a setup without it.
   */
  secret?: string;
}

export interface DurableObjectTaskStore extends TaskStore {
  readonly shared: true;
  readonly leaseMs: number;
  /** This instance's worker id (made at its first call: Workers allow no randomness at import). */
  readonly workerId: string;
  /** Stops watching and renewing: this instance's tasks fail on other instances once its lease lapses. */
  close(): void;
}

const OPTION_NAMES: OptionNames<DurableObjectTaskStoreOptions> = { name: true, leaseMs: true, timeoutMs: true, secret: true };

/**
 * A task store shared through a Durable Object, for `mcpTasks({ store })` on Cloudflare Workers.
 *
 * @example
 * import { env } from "cloudflare:workers";
 * const store = durableObjectTaskStore(env.MCP_TASKS, { secret: env.MCP_TASKS_SECRET });
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ store })] });
 */
export function durableObjectTaskStore(namespace: TasksObjectNamespace, options: DurableObjectTaskStoreOptions = {}): DurableObjectTaskStore {
  checkOptions("durableObjectTaskStore()", options, OPTION_NAMES);
  const name = options.name ?? "h3-mcp";
  const leaseMs = options.leaseMs ?? 15_000;
  const timeoutMs = options.timeoutMs ?? 5000;
  const secret = options.secret;
  if (!(leaseMs >= 100)) throw new TypeError("durableObjectTaskStore: leaseMs must be at least 100");
  if (!(timeoutMs > 0)) throw new TypeError("durableObjectTaskStore: timeoutMs must be positive");
  if (secret !== undefined && (typeof secret !== "string" || secret === "")) throw new TypeError("durableObjectTaskStore: secret must be a non-empty string");

  let runtime: StoreRuntime | undefined;
  let objectId: ReturnType<TasksObjectNamespace["idFromName"]> | undefined;
  let workerId: string | undefined;
  let closed = false;
  const connected = () => runtime ?? notConnected();
  const worker = () => (workerId ??= crypto.randomUUID());
  // A stub per call: on Workers an I/O object made for one request must not serve another.
  const stub = (): TasksObjectStub => namespace.get((objectId ??= namespace.idFromName(name)));
  const watcher = createWatcher(stub, () => connected().feed);
  const ownerHash = (owner: string) => keyedOwnerHash(owner, secret, secretRequired);
  /** One call to the object, bounded by `timeoutMs`; its failure is the store-unavailable error. */
  const call = async <T>(send: (object: TasksObjectStub) => Promise<T>): Promise<T> => {
    if (closed) throw taskStoreUnavailable(`this durableObjectTaskStore("${name}") was closed`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        send(stub()),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
      ]);
    } catch (error) {
      throw taskStoreUnavailable(`the tasks Durable Object "${name}" failed (${(error as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
  };
  /** An instance serving runs found by name hears releases for a lease after each of its calls. */
  const hearReleases = (cursor: number) => {
    if (runtime?.runs) watcher.hearReleases(Date.now() + leaseMs, cursor);
  };
  const runs = createRunCalls({ name, secret, leaseMs, worker, call, watch: (id, cursor) => watcher.watch(id, Infinity, cursor), hearReleases });
  /** A task as read, for `owner` (undefined: whoever owns it, the runtime's own read). */
  const readAs = async (id: string, owner: string | undefined, listen: boolean): Promise<TaskRecord | undefined> => {
    const { task, cursor } = await call((object) => object.read(id));
    hearReleases(cursor);
    if (!task || (owner !== undefined && task.owner !== owner)) return undefined;
    return recordOf(task, () => listen && watcher.watch(id, Date.now() + leaseMs, cursor));
  };

  const store: DurableObjectTaskStore = {
    shared: true,
    leaseMs,
    get workerId() {
      return worker();
    },
    connect(next) {
      if (runtime) throw new TypeError("durableObjectTaskStore: this store already serves an mcpTasks(); each instance needs its own");
      if (next.bound && !secret) throw secretRequired();
      if (next.runs && !secret) throw runsNeedSecret();
      runtime = next;
    },
    async create(task): Promise<CreateOutcome> {
      const { now, limits } = connected();
      // Thrown here, not rejected later: a bound task on a store without a secret is a setup mistake.
      const owner = ownerHash(task.owner);
      const { outcome, cursor } = await call((object) =>
        object.create({
          id: task.id,
          owner,
          now: now(),
          expiresAt: task.expiresAt === Infinity ? null : task.expiresAt,
          snapshot: JSON.stringify(task.snapshot),
          origin: task.origin ? JSON.stringify(task.origin) : null,
          max: limits.max,
          maxPerOwner: limits.maxPerOwner === Infinity ? null : limits.maxPerOwner,
          worker: worker(),
          leaseMs,
          run: runs.newRun(task.id, task.run, task.released),
        }),
      );
      if (outcome === ID_TAKEN) throw new Error(`Task id ${task.id} is already in use`);
      if (outcome !== CREATED) return outcome === OWNER_FULL ? "owner-full" : "full";
      // Changes other instances make (answers, a cancel) must reach the run here.
      watcher.watch(task.id, Infinity, cursor);
      hearReleases(cursor);
      return "created";
    },
    read: (id, owner, listen = false) => readAs(id, ownerHash(owner), listen),
    readHeld: (id) => readAs(id, undefined, false),
    async write(id, change: TaskWrite): Promise<WriteOutcome> {
      const final = change.json !== undefined;
      const told: TaskChange = { id, version: change.version, status: change.snapshot.value, event: change.event, snapshot: change.statusChanged ? change.snapshot : undefined };
      const written = await call((object) =>
        object.write({
          id,
          expected: change.version - 1,
          snapshot: final ? null : JSON.stringify(change.snapshot),
          json: final ? change.json! : null,
          status: change.snapshot.value,
          change: JSON.stringify(told),
          attempt: change.fence?.attempt ?? null,
        }),
      );
      if (written === GONE) return "gone";
      if (written === HELD_FENCED) return "fenced";
      if (written !== WRITTEN) return "conflict";
      // A finished task changes no more: nothing is left to hear of it.
      if (final) watcher.forget(id);
      return "written";
    },
    renew: () => call((object) => object.renew(worker(), leaseMs)),
    async versions(ids) {
      const versions = await call((object) => object.versions(ids));
      return versions.map((v) => v ?? undefined);
    },
    claim: runs.claim,
    release: runs.release,
    claimable: runs.claimable,
    loadRun: runs.loadRun,
    saveRun: runs.saveRun,
    close() {
      closed = true;
      watcher.close();
    },
  };
  return store;
}

/** A stored task as the contract reads it; `listening` runs for a live one. */
function recordOf(task: StoredTask, listening: () => void): TaskRecord {
  const origin = task.origin ? (JSON.parse(task.origin) as TaskOrigin) : undefined;
  const expiresAt = task.expiresAt ?? Infinity;
  if (task.json !== null) return { expiresAt, status: task.status as FinalStatus, json: task.json, origin };
  listening();
  const live = { version: task.version, expiresAt, snapshot: JSON.parse(task.snapshot!) as TaskSnapshot, origin, workerAlive: task.workerAlive };
  return task.hold ? { ...live, hold: holdOf(task.hold) } : live;
}

function secretRequired(): TypeError {
  return new TypeError(
    "durableObjectTaskStore: tasks are bound to their callers (mcpTasks({ bind }), or authorization), so the store needs `secret`, " +
      "the key it hashes owners with before they reach the Durable Object: give it a random value from a Worker secret, " +
      "e.g. durableObjectTaskStore(env.MCP_TASKS, { secret: env.MCP_TASKS_SECRET })",
  );
}

function notConnected(): never {
  throw new Error("durableObjectTaskStore: not connected to mcpTasks() yet");
}
