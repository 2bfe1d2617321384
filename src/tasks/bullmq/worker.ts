// `startTaskWorker()`: one call makes a process a worker. BullMQ delivers each job (a task id) at most
// `concurrency` at a time; the tasks plugin claims the task in the store and runs it here. What happened
// decides what becomes of the job (job-outcome.ts). BullMQ's stalled-job recovery is what redelivers the
// job of a worker that died; the store's claim then decides whether and which attempt runs, so the
// chart, not BullMQ, counts attempts. A job BullMQ gives up on fails its task with BullMQ's reason.
import { DelayedError, Job, UnrecoverableError, Worker } from "bullmq";
import type { DrainReport, TaskExecutionHost } from "../executor.ts";
import { CONNECTION_OPTION_NAMES, DEFAULT_QUEUE_NAME, openBullmqConnection, type BullmqConnectionOptions } from "./connection.ts";
import type { TaskJobData } from "./executor.ts";
import { redeliveryTime } from "./job-outcome.ts";
import { onShutdownSignals } from "../shutdown-signals.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";

export interface TaskWorkerOptions extends BullmqConnectionOptions {
  /**
   * The worker half of this process's tasks plugin (`tasks.host`), the plugin made with the same options
   * (store, runs, executor) as the web instances'.
   */
  host: TaskExecutionHost;
  /** The most runs executing here at the same time. Default 4. */
  concurrency?: number;
  /** The most a shutdown waits for the runs here before handing the retryable ones off. Default 10 000. */
  deadlineMs?: number;
  /**
   * How long a job stays this worker's without renewal: after it lapses (the worker died or froze), BullMQ
   * gives the job to another worker, which claims the task once the store's lease lapsed too. Keep it
   * near the store's `leaseMs`. Default 15 000 (the Redis store's default lease).
   */
  lockMs?: number;
  /** How often this worker looks for jobs whose worker died. Default a third of `lockMs`. */
  stalledCheckMs?: number;
  /**
   * How many times BullMQ may find a job's worker dead before it gives up on the job (and the task fails
   * with its reason). Keep it above the runs' `maxAttempts`: the chart counts the attempts lost and fails
   * the task after the last one (a drain's hand-off is no stall, and spends none). Default 10.
   */
  maxStalledCount?: number;
  /** How long a job whose run this worker does not serve waits before it is offered again. Default 1000. */
  unservedRetryMs?: number;
  /**
   * Signals that shut the worker down (drain, then close) and then end the process with exit code 0.
   * Default `["SIGTERM", "SIGINT"]`; `false` to handle them yourself with `close()`.
   */
  shutdownOn?: readonly NodeJS.Signals[] | false;
  /** Told what goes wrong outside any one run (Redis unreachable, a task that could not be failed). */
  onError?: (error: unknown) => void;
}

export interface TaskWorker {
  /** The BullMQ worker, for its events and metrics. */
  readonly worker: Worker<TaskJobData>;
  /** Resolves once the worker is connected and takes jobs. */
  readonly ready: Promise<void>;
  /** Runs executing here now. */
  readonly running: number;
  /** Stops taking jobs, drains the runs here (handing the retryable ones off), closes BullMQ's connections. */
  close(options?: { deadlineMs?: number }): Promise<DrainReport>;
}

const OPTION_NAMES: OptionNames<TaskWorkerOptions> = {
  ...CONNECTION_OPTION_NAMES, host: true, concurrency: true, deadlineMs: true, lockMs: true, stalledCheckMs: true, maxStalledCount: true,
  unservedRetryMs: true, shutdownOn: true, onError: true,
};

/**
 * Makes this process a worker that runs the tasks web instances enqueued with `bullmqExecutor()`.
 *
 * @example
 * const tasks = mcpTasks({ store, runs: [render], executor: bullmqExecutor({ url }) });
 * const worker = startTaskWorker({ host: tasks.host, url, concurrency: 8 });
 * await worker.ready;
 */
export function startTaskWorker(options: TaskWorkerOptions): TaskWorker {
  checkOptions("startTaskWorker()", options, OPTION_NAMES);
  const tasks = options.host;
  const concurrency = positive("concurrency", options.concurrency ?? 4);
  const drainDeadlineMs = nonNegative("deadlineMs", options.deadlineMs ?? 10_000);
  const lockMs = positive("lockMs", options.lockMs ?? 15_000);
  const stalledCheckMs = positive("stalledCheckMs", options.stalledCheckMs ?? Math.max(1, Math.round(lockMs / 3)));
  const maxStalledCount = positive("maxStalledCount", options.maxStalledCount ?? 10);
  const unservedRetryMs = nonNegative("unservedRetryMs", options.unservedRetryMs ?? 1000);
  const report = options.onError ?? ((error: unknown) => console.error("h3-mcp task worker:", error));
  const opened = openBullmqConnection(options, "startTaskWorker");
  let running = 0;

  const processJob = async (job: Job<TaskJobData>, token?: string): Promise<string> => {
    const taskId = job.data?.taskId;
    if (typeof taskId !== "string" || taskId !== job.id) throw new UnrecoverableError("The job does not carry its task's id (its job id)");
    running++;
    let execution;
    try {
      execution = await tasks.execute(taskId);
    } finally {
      running--;
    }
    const at = redeliveryTime(execution, Date.now(), unservedRetryMs);
    if (at === undefined) return execution.outcome;
    await job.moveToDelayed(at, token);
    throw new DelayedError();
  };

  const worker = new Worker<TaskJobData>(options.queueName ?? DEFAULT_QUEUE_NAME, processJob, {
    connection: opened.connection,
    ...(options.prefix !== undefined && { prefix: options.prefix }),
    concurrency,
    lockDuration: lockMs,
    stalledInterval: stalledCheckMs,
    maxStalledCount,
  });
  worker.on("error", report);

  /**
   * A job that BullMQ failed for good fails its task with BullMQ's reason, unless the task has ended
   * already. BullMQ fails a job for good when it was tried `attempts` times (the worker hears `failed`) or
   * found stalled more than `maxStalledCount` times; that second failure is made by BullMQ's own script,
   * and the worker hears of it only as `stalled`, so the job's state is read on both events.
   */
  const failIfGivenUp = (jobId: string) =>
    Job.fromId<TaskJobData>(worker, jobId)
      .then(async (job) => {
        if (!job || (await job.getState()) !== "failed") return;
        await tasks.fail(jobId, `The task queue gave up on this task's run: ${job.failedReason || "unknown reason"}`);
      })
      .catch(report);
  worker.on("failed", (job) => void (job?.id && failIfGivenUp(job.id)));
  worker.on("stalled", (jobId) => void failIfGivenUp(jobId));

  let closing: Promise<DrainReport> | undefined;
  const close = (closeOptions: { deadlineMs?: number } = {}): Promise<DrainReport> =>
    (closing ??= (async () => {
      const deadlineMs = closeOptions.deadlineMs ?? drainDeadlineMs;
      // BullMQ stops fetching and waits for its active jobs; the drain makes each of them end in time
      // (finished, or handed off and its job put back for another worker).
      const closed = worker.close();
      const drained = await tasks.drain({ deadlineMs });
      await closed;
      await opened.close();
      return drained;
    })());

  const detach = options.shutdownOn === false ? undefined : onShutdownSignals(options.shutdownOn ?? ["SIGTERM", "SIGINT"], () => close(), "h3-mcp task worker");
  const ready = worker.waitUntilReady().then(() => undefined);
  // A worker that never connects still shuts down; `ready` rejects for whoever awaits it.
  ready.catch(() => {});

  return {
    worker,
    ready,
    get running() {
      return running;
    },
    close: (closeOptions) => {
      detach?.();
      return close(closeOptions);
    },
  };
}

// --- Internal ---

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`startTaskWorker: ${name} must be a positive integer, not ${String(value)}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`startTaskWorker: ${name} must be a non-negative integer, not ${String(value)}`);
  return value;
}
