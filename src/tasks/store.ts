// The task store contract: everything a store must do, in one place. A store keeps records (a task's
// owner, expiry, version and chart snapshot, then its final tasks/get JSON) and makes two things atomic
// (creation with the caps, and a compare-and-set of a task's snapshot by version); the runtime does
// everything else: the actors, the chart's transitions, listeners, expiry and lost instances. Three
// implementations ship: `memoryTaskStore()` (memory-store.ts), `redisTaskStore()` ("h3-mcp/tasks/redis") and
// `durableObjectTaskStore()` ("h3-mcp/tasks/durable-object"); "h3-mcp/tasks/testing" checks any other against
// this contract. docs/task-stores.md says it in prose.
// For runs found by name a store also keeps their records and decides claims (store-runs.ts).
import type { TaskEvent, TaskStatus } from "../../machines/task.machine.ts";
import type { Hub } from "../features/change-hub.ts";
import type { JsonObject } from "../protocol/types.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { ClaimableTask, ClaimOutcome, HoldOutcome, LoadedRun, TaskFence, TaskHold, TaskRunRecord } from "./store-runs.ts";

export type { MaybePromise };
export type { ClaimableTask, ClaimOutcome, HoldOutcome, LoadedRun, TaskFence, TaskHold, TaskRunRecord };

export type { TaskSnapshot };

/** The statuses a task ends in. */
export type FinalStatus = Extract<TaskStatus, "completed" | "failed" | "cancelled">;

/**
 * What a task carries from the call that created it (for example that call's trace context): small JSON
 * data, set once at creation. Opaque to the store, which keeps it for as long as the task and returns it
 * with every read.
 */
export type TaskOrigin = JsonObject;

/** A task as `create` receives it: version 1, status `working`. */
export interface NewTask {
  /** Unique: a store that finds the id taken throws (ids are random v4 UUIDs, so that is a bug). */
  readonly id: string;
  /**
   * Who may read and change the task, as a string ("" for a task nobody is bound to). It may name a
   * principal: a store that keeps it outside this process keeps a keyed hash of it, never the value.
   */
  readonly owner: string;
  /**
   * Epoch ms when the task is gone for every client; `Infinity` for a task without a ttl. Always the
   * snapshot's `createdAt + ttlMs`, so a store may keep either.
   */
  readonly expiresAt: number;
  readonly snapshot: TaskSnapshot;
  readonly origin?: TaskOrigin;
  /**
   * For a run found by name (`defineTaskRun`): its record, kept with the task until it finishes, so any
   * instance serving the run can run its next attempt. Absent for a closure. A store without `claim`
   * cannot keep one: the runtime never gives it such a task.
   */
  readonly run?: TaskRunRecord;
  /**
   * With `run`: true to create the task released (no attempt holds it; any instance serving the run claims
   * attempt 1, and the feeds hear `released`). Otherwise this instance holds attempt 1 from creation on.
   */
  readonly released?: boolean;
}

/** The caps `create` enforces, atomically with adding the task. */
export interface TaskLimits {
  /** Tasks retained at once (live and finished, until they expire). */
  readonly max: number;
  /** Tasks one owner may retain at once; `Infinity` for no cap beyond `max`. */
  readonly maxPerOwner: number;
}

/** What `create` did: added the task, or refused it because `max` or `maxPerOwner` was reached. */
export type CreateOutcome = "created" | "full" | "owner-full";

/** A task that has not finished, as `read` returns it. */
export interface LiveTaskRecord {
  /** 1 at creation, one more with every write. */
  readonly version: number;
  readonly expiresAt: number;
  readonly snapshot: TaskSnapshot;
  readonly origin?: TaskOrigin;
  /**
   * False once the instance running the task is known to be gone (a shared store: its lease lapsed); the
   * runtime then fails the task through the chart, or for a retryable run lets another attempt claim it.
   * True for a released task (nothing was lost: it waits for its claim). Always true in a store only one
   * process uses.
   */
  readonly workerAlive: boolean;
  /** For a task with a run record: its run, and which attempt holds it. */
  readonly hold?: TaskHold;
  readonly json?: undefined;
}

/** A finished task, as `read` returns it: only its final answer is left (it can no longer change). */
export interface FinishedTaskRecord {
  readonly expiresAt: number;
  readonly status: FinalStatus;
  /** The task's `tasks/get` result, serialised: exactly what a client is answered from now on. */
  readonly json: string;
  readonly origin?: TaskOrigin;
  readonly snapshot?: undefined;
}

/** A task as `read` returns it. */
export type TaskRecord = LiveTaskRecord | FinishedTaskRecord;

/** One compare-and-set of a live task, as the runtime asks `write` for it. */
export interface TaskWrite {
  /** The version written: the store holds `version - 1` or refuses. */
  readonly version: number;
  /** The snapshot after the change (a task with a run record has its `attempt` in the context, as the chart keeps it). */
  readonly snapshot: TaskSnapshot;
  /**
   * Whether listeners hear of the change (only then do they): its status changed, or a new attempt holds
   * the task (the envelope shows the attempt). The name stays the one stores already read.
   */
  readonly statusChanged: boolean;
  /**
   * Present when the task finished: its `tasks/get` JSON, which the store keeps from now on. It may drop
   * the snapshot then; only the JSON, the version, the owner, the expiry and the origin must stay.
   */
  readonly json?: string;
  /**
   * The event, when the change was made away from the instance running the task: that instance's actor
   * must be told it (through the feed). Absent for a change made where the task runs: its actor has it,
   * and only listeners elsewhere may need to hear of it.
   */
  readonly event?: TaskEvent;
  /**
   * Present on a run's own writes (status, result, input rounds) for a task with a run record: checked in
   * the same compare-and-set as the version, before it. Absent on a client's change (cancel, answers),
   * which any instance may make whoever holds the task.
   */
  readonly fence?: TaskFence;
}

/**
 * What `write` did: wrote, refused because the task is no longer at `version - 1`, refused because the
 * fence's attempt no longer holds the task (it must stop: another attempt may run), or found it gone.
 */
export type WriteOutcome = "written" | "conflict" | "fenced" | "gone";

/** One change, as the feed delivers it. */
export interface TaskChange {
  readonly id: string;
  readonly version: number;
  /** The status after the change. */
  readonly status: TaskStatus;
  /** The event written with it, for the instance running the task (see `TaskWrite.event`). */
  readonly event?: TaskEvent;
  /** The snapshot after the change, when listeners hear of it (`TaskWrite.statusChanged`). */
  readonly snapshot?: TaskSnapshot;
}

/** How a store tells the runtime what it must know. */
export interface TaskFeed {
  /**
   * Whether the runtime has any use for change `version` of task `id` (it runs or listens to the task and
   * has not seen that version): a store may ask before decoding a change, to let the rest go unread.
   */
  wants(id: string, version: number): boolean;
  /** A change was written, by any instance (this one's own changes may come back too: they are ignored). */
  changed(change: TaskChange): void;
  /** A live task reached its expiry and the store is about to drop it (a store that sweeps, in memory). */
  expired(id: string): void;
  /** Changes may have been lost (a reconnect): the runtime reads again what it runs and listens to. */
  missed(): void;
  /**
   * A task of run `name` was released (a drain hand-off, or created released), on any instance: one
   * serving the run may claim it now rather than at its next look at `claimable`.
   */
  released?(id: string, name: string): void;
}

/** What the runtime tells a store once, when `mcpTasks({ store })` takes it. */
export interface StoreRuntime {
  /** The clock tasks are judged by (epoch ms). */
  readonly now: () => number;
  readonly limits: TaskLimits;
  /**
   * Whether tasks are bound to their callers (`bind`): their owners then name principals, which a store
   * that keeps them outside this process must hash with a key of its own; one that has none refuses here.
   */
  readonly bound: boolean;
  readonly feed: TaskFeed;
  /**
   * Whether the runtime has runs found by name (`mcpTasks({ runs })`): a store that cannot keep their
   * records (no `claim`, or no key to seal them with) refuses here, naming what is missing.
   */
  readonly runs?: boolean;
}

/**
 * A task store: where `mcpTasks({ store })` keeps tasks. One store object is one server instance; give
 * each `mcpTasks()` its own.
 *
 * **What it persists**, per task: the owner, the expiry, a version, the origin, and the chart snapshot
 * while the task is live, then its final `tasks/get` JSON. Nothing of the actor that runs the work: that
 * stays in the runtime of the instance that created the task.
 *
 * **What it makes atomic**: `create` (the id is free, the caps hold, the task is added), and `write`
 * (the compare-and-set of a task's version, with telling the feed).
 *
 * **What it may drop**: a task once its `expiresAt` has passed (reads before then must still find it), and
 * a finished task's snapshot once its JSON is kept.
 *
 * **How changes travel**: every write reaches the `TaskFeed` of every instance that runs or listens to the
 * task (a `read` with `listen` makes this instance one that listens), in any order, possibly twice, possibly
 * not at all in a shared store (then `missed()`, or the runtime's periodic read, catches up).
 *
 * **Expiry**: the runtime judges it by `expiresAt` and the clock it was given, ends a live task that
 * expired with the chart's `task.expire`, and answers "unknown" from then on. A store drops expired tasks
 * at its own pace (a key's TTL, a lazy sweep, a cron job), and never counts them against the caps.
 *
 * @example
 * const store: TaskStore = memoryTaskStore(); // or redisTaskStore({ url, secret }), or your own
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ store })] });
 */
export interface TaskStore {
  /**
   * False for a store only this process uses, which answers every call synchronously: the runtime then
   * lets a task's actor take each event first and writes what it became (such a write can never conflict).
   * True for a store several instances share: every change is then the chart's `transition()` of the
   * stored snapshot, written by compare-and-set, and told to the actor once written.
   */
  readonly shared: boolean;
  /**
   * A shared store's lease, in ms: how long this instance's claim on the tasks it runs lasts unless
   * `renew` extends it. The runtime renews it, and reads again what it listens to, every third of it.
   */
  readonly leaseMs?: number;
  /** Called once by `mcpTasks()`; may throw to refuse the setup (say why, naming the option). */
  connect(runtime: StoreRuntime): void;
  /**
   * Adds a task unless a cap is reached: fewer than `max` tasks retained, fewer than `maxPerOwner` of
   * them the task's owner's (expired tasks not counted). Atomic across instances. A shared store
   * records this instance as the task's worker and makes sure its lease holds. The task must be readable
   * from every instance once the promise settles.
   */
  create(task: NewTask): MaybePromise<CreateOutcome>;
  /**
   * The task, if it exists and belongs to `owner` (compared exactly); undefined otherwise, the same for
   * an unknown id and a foreign one. It may still return a task past its expiry that it has not dropped.
   * With `listen`, every later change of the task must reach this instance's feed, for at least
   * `leaseMs` (the runtime reads again with `listen` while it listens).
   */
  read(id: string, owner: string, listen?: boolean): MaybePromise<TaskRecord | undefined>;
  /**
   * The compare-and-set of one change: written only if the task is live and at `change.version - 1`, and
   * then told to the feed of every instance that runs or listens to it, in the same step.
   */
  write(id: string, change: TaskWrite): MaybePromise<WriteOutcome>;
  /** A shared store's lease renewal; false when the lease had already lapsed. */
  renew?(): MaybePromise<boolean>;
  /** The versions of many tasks at once (undefined for one that is gone), for the periodic catch-up. */
  versions?(ids: readonly string[]): MaybePromise<readonly (number | undefined)[]>;
  /** What `create` would answer for `owner` now, told synchronously; a store that cannot tell leaves it out. */
  wouldCreate?(owner: string): CreateOutcome;
  /** Carries the server's list-changed and resource-updated announcements between instances; returns the detach. */
  relayAnnouncements?(hub: Hub): () => void;

  // Runs found by name: a store with `claim` has all six below, and keeps `NewTask.run`. Without them it
  // serves closures only (a run given as a function), and `mcpTasks({ runs })` refuses it.

  /**
   * Makes this instance the holder of the task's next attempt, in one atomic step across instances: when
   * the task is released, or its holder's lease lapsed. Exactly one of several claims of the same attempt
   * wins. The claim takes or extends this instance's lease, as `create` does.
   */
  claim?(id: string): MaybePromise<ClaimOutcome>;
  /**
   * Gives the task up (a drain hand-off): no attempt holds it from now on, it is claimable at once, and
   * every instance's feed hears `released`. Fenced like a write: only the holding attempt may release it.
   */
  release?(id: string, fence: TaskFence): MaybePromise<HoldOutcome>;
  /**
   * Up to `limit` tasks waiting for a claim whose run is one of `names`: released, or held by an instance
   * whose lease lapsed. Oldest first. A task may be listed and then claimed by another instance first.
   */
  claimable?(names: readonly string[], limit: number): MaybePromise<readonly ClaimableTask[]>;
  /**
   * The task as `read` gives it, whoever its owner: the runtime's own read of a task it claimed or holds
   * (a claim knows the task id only), never a client's.
   */
  readHeld?(id: string): MaybePromise<TaskRecord | undefined>;
  /** The task's run record as kept (with the latest checkpoint and answers), refused when it fails its check. */
  loadRun?(id: string): MaybePromise<LoadedRun>;
  /** Replaces the run record (a checkpoint, a kept answer), fenced: only the holding attempt may. */
  saveRun?(id: string, record: TaskRunRecord, fence: TaskFence): MaybePromise<HoldOutcome>;
}
