// The runtime over a store several instances share (Redis): every change is the chart's transition of
// the stored snapshot, written by compare-and-set (changes.ts) and then told to the actor here; a lease
// and a catch-up timer (shared-tick.ts) keep this instance's claim and its actors current. Tasks of runs
// found by name pass from one attempt to the next here: a lost or released one is claimed by an instance
// serving its run (`claimTask`, also a worker's `execute`) or started by its executor, a drain hands its
// own off (`handOff`), and an attempt whose writes the store refuses as fenced stops.
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { TaskExecution } from "./executor.ts";
import { startNextAttempt } from "./execution-host.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import { AttemptFenced, createChanges, type Changes, type EventOf } from "./changes.ts";
import { LocalTask } from "./local-tasks.ts";
import { BaseTaskRuntime } from "./runtime-base.ts";
import { isUnavailable, sleepUnref, waitedUnserved } from "./runtime-parts.ts";
import type { TaskRuntimeOptions, TaskRuntimeStats } from "./runtime.ts";
import { createSharedTick, type SharedTick } from "./shared-tick.ts";
import type { LiveTaskRecord, TaskFeed, TaskRecord, TaskRunRecord } from "./store.ts";
import type { McpTaskRunDefinition } from "../features/task-api.ts";
import type { JsonObject } from "../protocol/types.ts";
import { attemptClaimed, attemptLost, executorFailed, expired, handedOff, instanceLost, unserved } from "./logic/task-events.ts";

/** How many leases a task of a run found by name waits for a claim before it fails as unserved. */
export const UNSERVED_LEASES = 3;

// Tasks claimed per look at the store's waiting list (the rest wait for the next look, a third of a lease on).
const CLAIM_BATCH = 16;

export class SharedTaskRuntime extends BaseTaskRuntime {
  protected readonly changes: Changes;
  protected readonly tick: SharedTick;
  protected readonly leaseMs: number;
  /** When this instance first saw each task waiting for a claim of a run it does not serve (for `unserved`). */
  protected readonly waitingSeen = new Map<string, number>();
  /** A task waiting for its next attempt: claimed here, or started by an executor that does not redeliver. */
  protected readonly takeWaiting: (id: string, last?: number) => Promise<unknown>;

  constructor(options: TaskRuntimeOptions) {
    super(options);
    const { store, local, listeners, now } = this;
    this.leaseMs = store.leaseMs ?? 15_000;
    this.changes = createChanges({ store, local, listeners });
    const executor = options.executor;
    this.takeWaiting = executor ? (id, last) => startNextAttempt(store, executor, id, last) : (id) => this.claimTask(id);
    const claims = options.runs.size > 0 && options.claims !== false && !!store.claimable;
    this.tick = createSharedTick({
      store,
      local,
      listeners,
      changes: this.changes,
      now,
      lapsed: (id, owner, task) => this.lapsed(id, owner, task, true),
      fence: (task) => this.fenced(task),
      ...(claims && { claimWaiting: () => this.claimWaiting() }),
    });
    this.connect();
    if (claims) this.tick.wake();
  }

  protected feed(): TaskFeed {
    const feed = super.feed();
    if (this.options.runs.size === 0 || this.options.claims === false) return feed;
    return {
      ...feed,
      // A hand-off elsewhere (or a task created for a claim): claimed at once, not a third of a lease later.
      released: (id: string, name: string) => {
        if (this.options.runs.has(name) && !this.draining) void this.takeWaiting(id).catch(() => {});
      },
    };
  }

  /**
   * Claims the next attempt of task `id` and runs it here: the previous holder's loss and this claim go to
   * the chart first (which fails the task once no attempt is left), then the run's record is read (a record
   * the store refused fails the task, never runs). Resolves once the attempt ended here: finished (its end
   * stored), fenced (it lost its hold on the task: this instance's lease went, or another attempt holds it),
   * released (handed off by a drain), or without a claim (taken, gone, unserved, draining).
   */
  async claimTask(id: string): Promise<TaskExecution> {
    const { store, changes, local } = this;
    if (this.draining) return { outcome: "draining" };
    if (!store.claim || !store.readHeld || !store.loadRun) return { outcome: "gone" };
    if (local.has(id)) return { outcome: "taken", retryInMs: Math.ceil(this.leaseMs / 3) };
    const read = await store.readHeld(id);
    if (!read?.snapshot || !read.hold) return { outcome: "gone" };
    const { name, version } = read.hold;
    const run = this.options.runs.get(name);
    if (!run || run.version < version) return { outcome: "unserved", name, version };
    const claimed = await store.claim(id);
    if (claimed.outcome !== "claimed") return claimed;
    const attempt = claimed.attempt;
    const fence = { attempt };
    const { maxAttempts } = run;
    let task: TaskRecord | undefined;
    try {
      // The chart judges the claim whole: the previous holder's loss, the attempts spent, the budget.
      task = await changes.apply(id, null, () => attemptClaimed(attempt, this.now(), maxAttempts), read, fence);
    } catch (error) {
      if (error instanceof AttemptFenced) return { outcome: "fenced", attempt };
      throw error;
    }
    if (!task) return { outcome: "gone" };
    if (!task.snapshot) return { outcome: "finished", status: task.status, attempt };
    const loaded = await store.loadRun(id);
    if (loaded.outcome === "gone") return { outcome: "gone" };
    if (loaded.outcome === "refused") {
      const failed = await changes.apply(id, null, () => attemptLost("refused", false, maxAttempts, this.now()), task, fence).catch(() => undefined);
      return failed?.json !== undefined ? { outcome: "finished", status: failed.status, attempt } : { outcome: "fenced", attempt };
    }
    return this.runHere(id, task, loaded.record, run, attempt);
  }

  /** Runs a claimed attempt here; resolves once it ended here (see `claimTask`). */
  protected runHere(id: string, task: LiveTaskRecord, record: TaskRunRecord, run: McpTaskRunDefinition, attempt: number): Promise<TaskExecution> {
    return new Promise<TaskExecution>((resolve) => {
      // A task claimed here has no owner known here: the store's read checks a client's.
      this.runAttemptHere(id, null, task, record, run, attempt, (entry) => {
        (entry.followers ??= new Set()).add((snapshot) => {
          if (snapshot.value === "completed" || snapshot.value === "failed" || snapshot.value === "cancelled") resolve({ outcome: "finished", status: snapshot.value, attempt });
        });
        // Why the attempt left, not whether this process drains: an attempt fenced during a drain was not handed off.
        (entry.leaving ??= new Set()).add((why) => resolve(why === "shutdown" ? { outcome: "handed_off", attempt } : { outcome: "fenced", attempt }));
      });
    });
  }

  /** Claims tasks waiting for an attempt of a run this instance serves (the tick's look, every third of a lease). */
  protected async claimWaiting(): Promise<void> {
    if (this.draining) return;
    const runs = this.options.runs;
    const waiting = await this.store.claimable!([...runs.keys()], CLAIM_BATCH);
    for (const task of waiting) {
      const run = runs.get(task.name);
      if (run && run.version >= task.version && !this.local.has(task.id)) void this.takeWaiting(task.id, task.attempt).catch(() => {});
    }
  }

  /**
   * A task whose holder's lease lapsed, or that waits for a claim: failed as unserved once it waited
   * `UNSERVED_LEASES` leases for a run no instance here serves, else left waiting; with `claim` (the lease
   * tick's look, never a client's read), claimed here when this instance serves its run. A closure's task
   * fails (its run cannot go on elsewhere).
   */
  protected lapsed(id: string, owner: string, task: LiveTaskRecord, claim: boolean): Promise<TaskRecord | undefined> {
    const at = this.now();
    const hold = task.hold;
    if (!hold) return this.changes.apply(id, owner, () => instanceLost(at), task);
    // An executor delivers these runs, and fails what it gives up on: a queue's backlog is not unserved.
    if (this.options.claims === false) return Promise.resolve(task);
    const run = this.options.runs.get(hold.name);
    if (run && run.version >= hold.version) {
      this.waitingSeen.delete(id);
      if (claim) void this.takeWaiting(id, hold.attempt).catch(() => {});
      return Promise.resolve(task);
    }
    if (!waitedUnserved(this.waitingSeen, id, hold.waitingSince, at, UNSERVED_LEASES * this.leaseMs)) return Promise.resolve(task);
    return this.changes.apply(id, owner, () => unserved(at), task);
  }

  /** Fails a live task (unless it ended) with `message` and `data`: its executor gave up on it, or refused it. */
  async fail(id: string, message: string, data: JsonObject): Promise<void> {
    await this.changes.apply(id, null, () => executorFailed(message, data, this.now()));
  }

  protected get handsOff(): boolean {
    return !!this.store.claim && !!this.store.release;
  }

  /**
   * A drain's hand-off: the chart releases the task (a hand-off spends none of its run's attempts), the
   * store lets another instance claim it at once, and the run here stops with the `shutdown` reason.
   */
  protected async handOff(task: LocalTask): Promise<boolean> {
    const fence = task.fence;
    if (!fence || !this.store.release) return false;
    const { maxAttempts } = task;
    try {
      const released = await this.local.serialize(task, async () => {
        // The chart decides: released (another instance may claim it), or failed when the run allows no
        // other attempt (a single-attempt run is never handed off, and fails saying the instance shut down).
        const after = await this.changes.apply(task.id, task.owner, () => handedOff(maxAttempts, this.now()), undefined, fence);
        if (after?.snapshot?.context.released !== true) return "ended";
        return this.store.release!(task.id, fence);
      });
      if (released !== "written") return false;
    } catch {
      return false;
    }
    this.leave(task, "shutdown");
    return true;
  }

  dispatch(task: LocalTask, event: TaskEvent): Promise<void> {
    return this.local.enqueue(task, event, async (latest) => {
      const started = performance.now();
      await this.writeOwn(task, latest);
      // A run reporting progress without pause would take every moment the store has for this task, and a
      // client's change made elsewhere (a read, then a compare-and-set) would never find one free: after
      // a status update the task's queue rests as long as the write took.
      if (latest.type === "status.update") await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    });
  }

  /** The change was written before the actor took it (changes.ts): nothing is left to record. */
  protected recorded(): void {}

  protected started(task: LocalTask): void {
    // Nothing else reaches the actor at its expiry: a timer of its own does.
    this.tick.leased();
    this.local.armExpiry(task);
    this.tick.wake();
  }

  protected listening(): void {
    this.tick.wake();
  }

  protected missed(): void {
    this.tick.missed();
  }

  /**
   * Retries a change of the work while the store is unreachable, for as long as the task runs here
   * (a worker cut off for longer than its lease ends its tasks itself).
   */
  protected async writeOwn(task: LocalTask, event: TaskEvent): Promise<void> {
    const { changes, local, now } = this;
    for (;;) {
      try {
        // The actor here holds what the store holds, unless another instance's change is on its way.
        const local = await changes.applyLocal(task.id, () => event, undefined, now(), task.fence);
        if (local === "fenced") return this.fenced(task);
        if (local !== "refused") return;
        await changes.apply(task.id, task.owner, () => event, undefined, task.fence);
        return;
      } catch (error) {
        if (error instanceof AttemptFenced) return this.fenced(task);
        if (!local.has(task.id) || !isUnavailable(error)) return;
        await sleepUnref(Math.min(500, (this.store.leaseMs ?? 2000) / 4));
      }
    }
  }

  /** Gone past its expiry (a live one is ended through the chart first), failed if its instance is lost. */
  protected judge(id: string, owner: string, task: TaskRecord | undefined): MaybePromise<TaskRecord | undefined> {
    if (!task) return undefined;
    const at = this.now();
    if (task.json !== undefined) return task.expiresAt <= at ? undefined : task;
    if (task.expiresAt <= at) return this.changes.apply(id, owner, () => expired(at), task).then(() => undefined);
    if (task.workerAlive && !task.hold?.released) {
      if (this.waitingSeen.size) this.waitingSeen.delete(id);
      return task;
    }
    return this.lapsed(id, owner, task, false);
  }

  /** A client's change: queued behind the run's own writes when the task runs here, else read and applied. */
  async send(id: string, owner: string, eventOf: EventOf): Promise<LocalTask | boolean> {
    const here = this.local.get(id);
    if (here) {
      // A task claimed here has no owner known here: the store's read checks the caller's.
      if (here.owner !== null && owner !== here.owner) return false;
      // Tried from the actor's snapshot first. A change that would change nothing there is read again: the
      // actor may not have heard of a change made elsewhere yet.
      const found = await this.local.serialize(here, async () =>
        here.owner !== null && (await this.changes.applyLocal(id, eventOf, owner, this.now())) === "written" ? true : this.applyRead(id, owner, eventOf),
      );
      return found && here;
    }
    return this.applyRead(id, owner, eventOf);
  }

  /** Reads the task, judges it, and applies the change to it; false when it is unknown or foreign. */
  protected async applyRead(id: string, owner: string, eventOf: EventOf): Promise<boolean> {
    const task = await this.find(id, owner);
    if (!task) return false;
    if (task.snapshot) await this.changes.apply(id, owner, eventOf, task);
    return true;
  }

  get stats(): TaskRuntimeStats {
    return {
      localTasks: this.local.size,
      listenedTasks: this.listeners.taskCount,
      listeners: this.listeners.listenerCount,
      timer: this.tick.running,
      casRetries: this.changes.casRetries(),
    };
  }
}
