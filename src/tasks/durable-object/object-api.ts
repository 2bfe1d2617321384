// What the tasks object answers over RPC, shared by the object (object.ts) and the store (store.ts):
// plain data both ways, so the calls stay structured-clone cheap.

/** What `create` answers. */
export const CREATED = 1;
export const FULL = 0;
export const OWNER_FULL = 2;
export const ID_TAKEN = -1;

export interface CreateArgs {
  readonly id: string;
  /** The owner as stored: a keyed hash, or "-" for nobody. */
  readonly owner: string;
  /** The runtime's clock now, by which expiry is judged (expired tasks do not count against the caps). */
  readonly now: number;
  /** Epoch ms by the runtime's clock; null for a task without a ttl. */
  readonly expiresAt: number | null;
  readonly snapshot: string;
  readonly origin: string | null;
  readonly max: number;
  /** null for no per-owner cap. */
  readonly maxPerOwner: number | null;
  readonly worker: string;
  readonly leaseMs: number;
}

export interface WriteArgs {
  readonly id: string;
  /** The version the task must be at. */
  readonly expected: number;
  /** The next snapshot (JSON) of a live task; null when the task finished. */
  readonly snapshot: string | null;
  /** The final tasks/get JSON, when the task finished. */
  readonly json: string | null;
  /** The status after the change, and the change as the feed tells it (JSON of the change's fields). */
  readonly status: string;
  readonly change: string;
}

/** A task as read: live (snapshot) or finished (json). */
export interface StoredTask {
  readonly owner: string;
  readonly version: number;
  readonly expiresAt: number | null;
  readonly snapshot: string | null;
  readonly json: string | null;
  readonly status: string | null;
  readonly origin: string | null;
  readonly workerAlive: boolean;
}

/** Changes since a cursor, for the tasks one instance watches. */
export interface WatchAnswer {
  /** The last change's number: where the next watch starts. */
  readonly cursor: number;
  /** Each change's JSON (the feed's TaskChange), oldest first. */
  readonly changes: readonly string[];
  /** True when changes after the cursor were already trimmed from the log: read again what is watched. */
  readonly missed: boolean;
}

/** The object's RPC surface. */
export interface TasksObjectApi {
  create(args: CreateArgs): { outcome: number; cursor: number };
  read(id: string): { task: StoredTask | null; cursor: number };
  write(args: WriteArgs): number;
  renew(worker: string, leaseMs: number): boolean;
  versions(ids: readonly string[]): (number | null)[];
  watch(cursor: number, ids: readonly string[], waitMs: number): WatchAnswer | Promise<WatchAnswer>;
}
