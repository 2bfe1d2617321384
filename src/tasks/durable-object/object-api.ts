// What the tasks object answers over RPC, shared by the object (object.ts) and the store (store.ts):
// plain data both ways, so the calls stay structured-clone cheap.

/** What `create` answers. */
export const CREATED = 1;
export const FULL = 0;
export const OWNER_FULL = 2;
export const ID_TAKEN = -1;

/** What `write`, `release`, `saveRun` and `claim` answer. */
export const WRITTEN = 1;
/** A write's version did not match. */
export const CONFLICT = 0;
/** The fence's attempt does not hold the task (for `claim`: another attempt holds it). */
export const HELD_FENCED = 2;
export const GONE = -1;

/** The run found by name a task is created with: its name and version in the clear, its record sealed. */
export interface NewRun {
  readonly name: string;
  readonly version: number;
  /** The run record, sealed by the store under its secret. */
  readonly record: string;
  /** Created released: no attempt holds it, the next claim is attempt 1. */
  readonly released: boolean;
}

/** Who holds a task's run, as `read` tells it. */
export interface StoredHold {
  readonly name: string;
  readonly version: number;
  readonly attempt: number;
  readonly released: boolean;
  /** The holder's lease holds (false once released, or lost). */
  readonly alive: boolean;
  /** Epoch ms (the object's clock) since when it waits for a claim; null while held. */
  readonly waitingSince: number | null;
}

/** What `claim` answers: WRITTEN with the attempt, HELD_FENCED with ms until the holder's lease lapses, or GONE. */
export interface ClaimAnswer {
  readonly outcome: number;
  readonly value: number;
}

/** A task waiting for a claim. */
export interface ClaimableRow {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly attempt: number;
  readonly waitingSince: number;
}

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
  /** For a run found by name; null for a closure. */
  readonly run: NewRun | null;
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
  /** The fence of a run's own write: the attempt that must hold the task; null for a client's change. */
  readonly attempt: number | null;
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
  /** For a task with a run found by name. */
  readonly hold: StoredHold | null;
}

/** Changes since a cursor, for the tasks one instance watches. */
export interface WatchAnswer {
  /** The last change's number: where the next watch starts. */
  readonly cursor: number;
  /** Each change's JSON (the feed's TaskChange), oldest first. */
  readonly changes: readonly string[];
  /** True when changes after the cursor were already trimmed from the log: read again what is watched. */
  readonly missed: boolean;
  /** Tasks released since the cursor (when asked for): their ids and run names. */
  readonly released: readonly { readonly id: string; readonly name: string }[];
}

/** The object's RPC surface. */
export interface TasksObjectApi {
  create(args: CreateArgs): { outcome: number; cursor: number };
  read(id: string): { task: StoredTask | null; cursor: number };
  write(args: WriteArgs): number;
  renew(worker: string, leaseMs: number): boolean;
  versions(ids: readonly string[]): (number | null)[];
  /** The changes of `ids` after `cursor`, and with `releases` every task released since. */
  watch(cursor: number, ids: readonly string[], waitMs: number, releases: boolean): WatchAnswer | Promise<WatchAnswer>;
  claim(id: string, worker: string, leaseMs: number): ClaimAnswer & { cursor: number };
  release(id: string, attempt: number): number;
  claimable(names: readonly string[], limit: number): { tasks: ClaimableRow[]; cursor: number };
  loadRun(id: string): string | null;
  saveRun(id: string, attempt: number, record: string): number;
  /** Keeps an attempt of task `id` for the object to execute (`durableObjectExecutor()`), served by object `server`'s plugin. */
  deliver(id: string, server: string): void;
}
