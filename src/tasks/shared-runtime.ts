// The runtime over a store several instances share (Redis): every change is the chart's transition of
// the stored snapshot, written by compare-and-set (changes.ts) and then told to the actor here; a lease
// and a catch-up timer (shared-tick.ts) keep this instance's claim and its actors current.
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import { lostEvent } from "./chart.ts";
import { createChanges, type Changes, type EventOf } from "./changes.ts";
import type { LocalTask } from "./local-tasks.ts";
import { BaseTaskRuntime } from "./runtime-base.ts";
import { isUnavailable, sleepUnref } from "./runtime-parts.ts";
import type { TaskRuntimeOptions, TaskRuntimeStats } from "./runtime.ts";
import { createSharedTick, type SharedTick } from "./shared-tick.ts";
import type { TaskRecord } from "./store.ts";

export class SharedTaskRuntime extends BaseTaskRuntime {
  protected readonly changes: Changes;
  protected readonly tick: SharedTick;

  constructor(options: TaskRuntimeOptions) {
    super(options);
    const { store, local, listeners, now } = this;
    this.changes = createChanges({ store, local, listeners });
    this.tick = createSharedTick({ store, local, listeners, changes: this.changes, now });
    this.connect();
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
        if ((await changes.applyLocal(task.id, () => event, undefined, now())) !== "refused") return;
        await changes.apply(task.id, task.owner, () => event);
        return;
      } catch (error) {
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
    if (task.expiresAt <= at) return this.changes.apply(id, owner, () => ({ type: "task.expire", at }), task).then(() => undefined);
    return task.workerAlive ? task : this.changes.apply(id, owner, () => lostEvent(at), task);
  }

  /** A client's change: queued behind the run's own writes when the task runs here, else read and applied. */
  async send(id: string, owner: string, eventOf: EventOf): Promise<LocalTask | boolean> {
    const here = this.local.get(id);
    if (here) {
      if (owner !== here.owner) return false;
      // Tried from the actor's snapshot first. A change that would change nothing there is read again: the
      // actor may not have heard of a change made elsewhere yet.
      const found = await this.local.serialize(here, async () =>
        (await this.changes.applyLocal(id, eventOf, owner, this.now())) === "written" ? true : this.applyRead(id, owner, eventOf),
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
