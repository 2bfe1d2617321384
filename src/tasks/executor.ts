// The executor seam: where the attempts of a named run execute. Without an executor they execute in the
// process that created the task (or claimed it), and nothing here is on that path. With one, the creating
// instance only stores the task and hands the attempt to the executor; whatever process the executor
// delivers it to reaches the task by its id through the same store (`TaskExecutionHost.execute`), with no
// HTTP server. Closures never go through an executor: a closure cannot travel to another process.
// docs/executors.md is the contract in prose, for writing an adapter (a queue, a workflow engine).
import type { TaskOrigin } from "./store.ts";

/** One attempt of a named run, as an executor is handed it. */
export interface TaskAttempt {
  readonly taskId: string;
  /** The run's name (`defineTaskRun({ name })`): the worker finds the run by it. */
  readonly name: string;
  /** The run's version; a worker serving an older version leaves the attempt to a newer one. */
  readonly version: number;
  /**
   * The run's input, in plain text, for an executor whose system must carry it. The store keeps it too
   * (sealed under its secret), and `execute` reads it from there: an executor that carries only the task
   * id (as the BullMQ one does) keeps the input out of its own records and dashboards.
   */
  readonly input: unknown;
  /** The attempt this delivery is for, 1-based. The store's claim decides the attempt that actually runs. */
  readonly attempt: number;
  /** What the task carries from the call that created it (a trace context, for example). */
  readonly origin?: TaskOrigin;
}

/**
 * Where a named run's attempts execute (`mcpTasks({ executor })`).
 *
 * @example
 * const executor: TaskExecutor = { name: "log", redelivers: false, async start(attempt) { await queue.push(attempt.taskId) } };
 */
export interface TaskExecutor {
  /** Names the executor in errors and in a failed task's error data. */
  readonly name: string;
  /**
   * True when the executor delivers a lost attempt again by itself (a job queue's stalled-job recovery, a
   * workflow engine's activity retry): instances then never claim tasks on their own, and `start` is called
   * only for the first attempt. False: an instance that finds a task released or whose holder was lost
   * calls `start` again with the next attempt number.
   */
  readonly redelivers: boolean;
  /**
   * Accepts the attempt durably and resolves once it is accepted (it must survive this process), without
   * running it here. Starting an attempt twice must deliver it once: the task id is the natural key.
   * A rejection fails the task and answers its creating call with an error: nothing accepted is lost.
   */
  start(attempt: TaskAttempt): Promise<void>;
  /** A hint that the task ended: a delivery still queued may be dropped (a late one finds it ended anyway). */
  forget?(taskId: string): Promise<void>;
}

/**
 * How an `execute` call ended, which tells the executor what to do with its delivery.
 * - `finished`: the task reached a final status (written before this resolves): the delivery is done.
 * - `handed_off`: this process drained and handed the attempt off: deliver it again now, elsewhere.
 * - `draining`: this process is draining and did not claim it: deliver it again now, elsewhere.
 * - `taken`: another process still holds the task (its lease has not lapsed): deliver it again after `retryInMs`.
 * - `fenced`: this attempt lost its hold on the task while it ran (its process's lease was found gone, or
 *   another process claimed it): deliver it again now, and the claim runs the next attempt or answers `taken`
 *   or `gone`. An executor that does not redeliver may count it done: an instance starts the next attempt.
 * - `gone`: unknown, expired or already final: the delivery is done.
 * - `unserved`: this process does not serve the run's name, or serves an older version: deliver it elsewhere.
 */
export type TaskExecution =
  | { readonly outcome: "finished"; readonly status: "completed" | "failed" | "cancelled"; readonly attempt: number }
  | { readonly outcome: "handed_off"; readonly attempt: number }
  | { readonly outcome: "draining" }
  | { readonly outcome: "taken"; readonly retryInMs: number }
  | { readonly outcome: "fenced"; readonly attempt: number }
  | { readonly outcome: "gone" }
  | { readonly outcome: "unserved"; readonly name: string; readonly version: number };

export interface DrainOptions {
  /** The most the drain waits for the runs here to end on their own, in ms. */
  readonly deadlineMs: number;
}

/** What a drain did with the runs that were here: each one is counted once, in the way it left. */
export interface DrainReport {
  /** Runs that ended by themselves in time (completed, failed or cancelled). */
  readonly finished: number;
  /** Runs the drain handed off to another process, none of their attempts spent. */
  readonly handedOff: number;
  /** Tasks the drain failed with the `shutdown` reason (their runs could not be handed off). */
  readonly failed: number;
  /** Attempts fenced while the drain waited: they lost their lease, and another process holds the task. */
  readonly fenced: number;
}

/**
 * What a worker process holds to execute the attempts an executor delivers: the tasks plugin made with
 * the same options as the web instances' (`mcpTasks({ store, runs, executor })`), with no HTTP server.
 */
export interface TaskExecutionHost {
  /**
   * Claims task `taskId` for this process, reads its run and input from the store, runs it here (its
   * status, input rounds, checkpoints and result written to the store; a cancel made on any instance
   * aborting its `signal`), and resolves once its end is stored.
   */
  execute(taskId: string): Promise<TaskExecution>;
  /** Fails the task (unless it has ended) with `message`: the executor gave up on delivering it. */
  fail(taskId: string, message: string): Promise<void>;
  /** Stops claiming, waits up to `deadlineMs` for the runs here, then hands the retryable ones off. */
  drain(options: { deadlineMs: number }): Promise<DrainReport>;
}
