// A task store of your own, as docs/task-stores.md walks through it: several "instances" in one process
// share one `Database` (in real life a Postgres, a DynamoDB table, a Durable Object), each with a store
// object of its own. Every await stands for a round trip. It passes the task store kit:
//   test/wire/example-store.test.ts runs taskStoreSuite on it.
import { createHmac, randomUUID } from "node:crypto";
import { taskStoreUnavailable, type FinalStatus, type NewTask, type StoreRuntime, type TaskOrigin, type TaskRecord, type TaskSnapshot, type TaskStore, type TaskWrite, type WriteOutcome } from "h3-mcp/tasks/store";

/** One row per task: what the contract says a store persists. */
interface Row {
  owner: string;
  expiresAt: number;
  version: number;
  /** The instance running the task (its lease says whether it lives). */
  worker: string;
  /** The snapshot's JSON while live; the final tasks/get JSON once finished. */
  snapshot?: string;
  final?: { status: FinalStatus; json: string };
  origin?: TaskOrigin;
  /** Instances listening to the task, until when (their runtime reads again to renew it). */
  listeners: Map<string, number>;
}

/** What the instances share: the rows, the leases, and who is connected to hear changes. */
export class Database {
  readonly rows = new Map<string, Row>();
  readonly leases = new Map<string, number>();
  readonly connected = new Map<string, StoreRuntime>();
}

export interface ExampleStoreOptions {
  /** Key of the hash owners are stored under; required when tasks are bound to callers. */
  secret?: string;
  leaseMs?: number;
}

/** One instance's handle on the shared database. */
export function exampleTaskStore(db: Database, options: ExampleStoreOptions = {}): TaskStore & { readonly instance: string; close(): void } {
  const instance = randomUUID();
  const leaseMs = options.leaseMs ?? 15_000;
  let runtime: StoreRuntime | undefined;
  let closed = false;
  // A database that cannot be reached answers with taskStoreUnavailable: the client gets a 503, and the
  // runtime retries the run's own changes while the task runs here.
  const trip = () => (closed ? Promise.reject(taskStoreUnavailable("the store was closed")) : new Promise<void>((resolve) => setTimeout(resolve, 0)));
  // Owners may name people: only a keyed hash of a bound owner is kept.
  const hashed = (owner: string) => {
    if (owner === "") return "-";
    if (!options.secret) throw new TypeError("exampleTaskStore: bound tasks need `secret`");
    return createHmac("sha256", options.secret).update(owner).digest("base64url");
  };
  const connected = () => {
    if (!runtime) throw new Error("exampleTaskStore: not connected to mcpTasks() yet");
    return runtime;
  };

  return {
    instance,
    shared: true,
    leaseMs,
    connect(next) {
      if (runtime) throw new TypeError("exampleTaskStore: this store already serves an mcpTasks()");
      if (next.bound && !options.secret) throw new TypeError("exampleTaskStore: bound tasks need `secret`");
      runtime = next;
      db.connected.set(instance, next);
    },

    async create(task: NewTask) {
      const { now, limits } = connected();
      const owner = hashed(task.owner);
      await trip();
      // One synchronous block: as atomic as a transaction (or a conditional write, or a Lua script). Expired
      // rows do not count; a real store also drops them at its own pace (a TTL index, a cron job).
      const alive = [...db.rows.values()].filter((row) => row.expiresAt > now());
      if (alive.length >= limits.max) return "full";
      if (alive.filter((row) => row.owner === owner).length >= limits.maxPerOwner) return "owner-full";
      if (db.rows.has(task.id)) throw new Error(`Task id ${task.id} is already in use`);
      db.rows.set(task.id, { owner, expiresAt: task.expiresAt, version: 1, worker: instance, snapshot: JSON.stringify(task.snapshot), origin: task.origin, listeners: new Map() });
      // The task is never without a lease.
      db.leases.set(instance, Date.now() + leaseMs);
      return "created";
    },

    async read(id, owner, listen = false): Promise<TaskRecord | undefined> {
      const hash = hashed(owner);
      await trip();
      const row = db.rows.get(id);
      if (!row || row.owner !== hash) return undefined;
      if (row.final) return { expiresAt: row.expiresAt, status: row.final.status, json: row.final.json, origin: row.origin };
      if (listen) row.listeners.set(instance, Date.now() + leaseMs);
      const workerAlive = (db.leases.get(row.worker) ?? 0) > Date.now();
      return { version: row.version, expiresAt: row.expiresAt, snapshot: JSON.parse(row.snapshot!) as TaskSnapshot, origin: row.origin, workerAlive };
    },

    async write(id, change: TaskWrite): Promise<WriteOutcome> {
      await trip();
      const row = db.rows.get(id);
      if (!row) return "gone";
      // The compare-and-set: nothing changes unless the row is live and at the version the change started from.
      if (row.final || row.version !== change.version - 1) return "conflict";
      row.version = change.version;
      if (change.json === undefined) row.snapshot = JSON.stringify(change.snapshot);
      else {
        row.final = { status: change.snapshot.value as FinalStatus, json: change.json };
        row.snapshot = undefined;
      }
      // Told in the same step: the worker when the change was made elsewhere, and every listener.
      const told = { id, version: change.version, status: change.snapshot.value, event: change.event, snapshot: change.statusChanged ? change.snapshot : undefined };
      for (const [other, to] of db.connected) {
        const listening = (row.listeners.get(other) ?? 0) > Date.now();
        if (listening || (other === row.worker && change.event)) setTimeout(() => to.feed.changed(told), 0);
      }
      return "written";
    },

    async renew() {
      await trip();
      if ((db.leases.get(instance) ?? 0) <= Date.now()) return false;
      db.leases.set(instance, Date.now() + leaseMs);
      return true;
    },

    async versions(ids) {
      await trip();
      return ids.map((id) => db.rows.get(id)?.version);
    },

    /** Leaves the database: nothing more is heard or done here, and the lease lapses. */
    close() {
      closed = true;
      db.connected.delete(instance);
    },
  };
}
