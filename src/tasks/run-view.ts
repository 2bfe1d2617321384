// What a run holds of its task: a view the engine makes from its record of the task (`LocalTask.runView`,
// a `RunView`), with only what the run side needs. User code reaches its run's task object, and through it
// must reach nothing of the engine (the actor, the write queue, who else follows the task): the run side reads
// the task and subscribes to it through these calls, and every write to the engine's record is the engine's.
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { JsonObject } from "../protocol/types.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { TaskFence, TaskRunRecord } from "./store.ts";

/** Why an attempt here stopped without ending its task: fenced (it lost its hold), or handed off by a drain. */
export type LeaveReason = "fenced" | "shutdown";

/** Told each status change of a task (a request keeping the task's run alive follows it). */
export type Follower = (snapshot: TaskSnapshot) => void;

/** The attempt whose record is kept (the runtime keeps it through `keepRunRecord`, attempt-run.ts). */
export interface KeptAttempt {
  readonly attempt: number;
}

/**
 * What the parts around a run (its plugins' hooks, a request keeping it alive, its record's writes) see of
 * its task. The engine's record offers this much of itself too, so the runtime may hand either.
 */
export interface FollowedTask {
  readonly id: string;
  /** The attempt a run found by name holds the task as (its writes carry it); undefined for a closure. */
  readonly fence: TaskFence | undefined;
  /** The last snapshot the runtime recorded. */
  readonly snapshot: TaskSnapshot;
  /** The task's snapshot as its actor here has it; undefined once it no longer runs here (ended, or left). */
  current(): TaskSnapshot | undefined;
  /** Tells `listener` each status change from now on; returns how to stop telling it. */
  follow(listener: Follower): () => void;
  /** Tells `listener`, once, why the task stopped running here without ending; returns how to stop telling it. */
  onLeave(listener: (why: LeaveReason) => void): () => void;
}

/** The view a run (task-run.ts, attempt-run.ts) holds of its task: what it reads, what it reports, what it is told. */
export interface TaskOfRun extends FollowedTask {
  /** What the task may keep of each piece, in bytes (`mcpTasks({ maxTaskBytes })`). */
  readonly maxTaskBytes: number;
  /** Applies an event the work produced; settles once the store has it. */
  report(event: TaskEvent): MaybePromise<void>;
  /** The result the run finished with and its JSON, so the final `tasks/get` JSON does not serialise it again. */
  keepResult(value: JsonObject, json: string): void;
  /** Tells `watcher` every snapshot the runtime recorded, after the runtime's own parts (the run's one observer). */
  watch(watcher: (snapshot: TaskSnapshot) => void): void;
  /** Tells `listener` why the attempt stopped here without ending the task, after every `onLeave` listener. */
  onStopped(listener: (why: LeaveReason) => void): void;
  /** Keeps a run found by name's record with the task, fenced by its attempt (see `keepRunRecord`). */
  keepRun(run: KeptAttempt, record: TaskRunRecord): Promise<void>;
}

/** What the engine's record of a task offers the view made of it: what the run side may set there. */
export interface ViewedTask extends FollowedTask {
  result: { readonly value: object; readonly json: string } | undefined;
  watch: ((snapshot: TaskSnapshot) => void) | undefined;
  stopped: ((why: LeaveReason) => void) | undefined;
}

/** Where a run's reports go: the runtime running its task. */
export interface RunEngine<T extends ViewedTask> {
  readonly maxTaskBytes: number;
  dispatch(task: T, event: TaskEvent): MaybePromise<void>;
  keepRun(task: T, run: KeptAttempt, record: TaskRunRecord): Promise<void>;
}

/**
 * The view of `task` one run holds, reporting to `engine`: calls on the record, none of its
 * fields. A class with private fields, not an object of closures: one is made per task, on creation's path.
 */
export class RunView<T extends ViewedTask> implements TaskOfRun {
  readonly #task: T;
  readonly #engine: RunEngine<T>;
  readonly id: string;
  readonly maxTaskBytes: number;

  constructor(task: T, engine: RunEngine<T>) {
    this.#task = task;
    this.#engine = engine;
    this.id = task.id;
    this.maxTaskBytes = engine.maxTaskBytes;
  }

  get fence(): TaskFence | undefined {
    return this.#task.fence;
  }

  get snapshot(): TaskSnapshot {
    return this.#task.snapshot;
  }

  current(): TaskSnapshot | undefined {
    return this.#task.current();
  }

  follow(listener: Follower): () => void {
    return this.#task.follow(listener);
  }

  onLeave(listener: (why: LeaveReason) => void): () => void {
    return this.#task.onLeave(listener);
  }

  report(event: TaskEvent): MaybePromise<void> {
    return this.#engine.dispatch(this.#task, event);
  }

  keepResult(value: JsonObject, json: string): void {
    this.#task.result = { value, json };
  }

  watch(watcher: (snapshot: TaskSnapshot) => void): void {
    this.#task.watch = watcher;
  }

  onStopped(listener: (why: LeaveReason) => void): void {
    this.#task.stopped = listener;
  }

  keepRun(run: KeptAttempt, record: TaskRunRecord): Promise<void> {
    return this.#engine.keepRun(this.#task, run, record);
  }
}
