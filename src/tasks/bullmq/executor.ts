// `bullmqExecutor()`: web instances hand a named run's attempt to a BullMQ queue, and worker processes
// (`startTaskWorker`, worker.ts) take it from there. The job is only a delivery: its id is the task's id
// (so a task is never enqueued twice), its name the run's name, its data the task id alone. The input
// stays in the task store, sealed, so Redis dumps and dashboards show no arguments; the task's status is
// the chart's, in the task store, never the job's.
import { Queue } from "bullmq";
import { ErrorCode, McpJsonRpcError, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_STATUS } from "../../protocol/errors.ts";
import type { TaskAttempt, TaskExecutor } from "../executor.ts";
import { CONNECTION_OPTION_NAMES, DEFAULT_QUEUE_NAME, openBullmqConnection, type BullmqConnectionOptions } from "./connection.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";

export interface BullmqExecutorOptions extends BullmqConnectionOptions {
  /** Longest wait for the queue to accept a job before the creating call gets an error. Default 2000. */
  timeoutMs?: number;
  /** Finished jobs BullMQ keeps, to be seen in a dashboard (their data is only a task id). Default 1000 of each. */
  keepJobs?: number;
}

/** What a job carries: the task's id, nothing else. */
export interface TaskJobData {
  readonly taskId: string;
}

export interface BullmqExecutor extends TaskExecutor {
  /** The BullMQ queue the attempts go to (for a dashboard such as Bull Board, or for its metrics). */
  readonly queue: Queue<TaskJobData>;
  /** Closes the queue and the connection it opened. */
  close(): Promise<void>;
}

const OPTION_NAMES: OptionNames<BullmqExecutorOptions> = { ...CONNECTION_OPTION_NAMES, timeoutMs: true, keepJobs: true };

/**
 * An executor that enqueues each named run's attempt as a BullMQ job, for worker processes started with
 * `startTaskWorker` to run.
 *
 * @example
 * const executor = bullmqExecutor({ url: process.env.REDIS_URL });
 * const tasks = mcpTasks({ store, runs: [render], executor });
 */
export function bullmqExecutor(options: BullmqExecutorOptions): BullmqExecutor {
  checkOptions("bullmqExecutor()", options, OPTION_NAMES);
  const timeoutMs = options.timeoutMs ?? 2000;
  const keep = options.keepJobs ?? 1000;
  if (!(timeoutMs > 0)) throw new TypeError("bullmqExecutor: timeoutMs must be positive");
  if (!Number.isSafeInteger(keep) || keep < 0) throw new TypeError("bullmqExecutor: keepJobs must be a non-negative integer");
  const opened = openBullmqConnection(options, "bullmqExecutor");
  const queue = new Queue<TaskJobData>(options.queueName ?? DEFAULT_QUEUE_NAME, {
    connection: opened.connection,
    ...(options.prefix !== undefined && { prefix: options.prefix }),
    // BullMQ opens a queue's connection once: when Redis closes it during that opening (waiting for it to
    // be ready, or checking Redis's version), the queue answers every later call with that first failure,
    // for good. On a client made here nothing is awaited at opening: the client connects, and reconnects,
    // by itself, so a call made while Redis is away fails alone and the next one gets through. (BullMQ
    // then takes Redis as its oldest supported version: only two reads, of a job's state, use a script
    // rather than LPOS; adding a job is the same.)
    ...(opened.ownClient && { skipWaitingForReady: true, skipVersionCheck: true }),
    defaultJobOptions: {
      // A job BullMQ cannot process (the worker's own store unreachable) is tried again, a few times.
      attempts: 3,
      backoff: { type: "exponential", delay: 1000 },
      removeOnComplete: { count: keep },
      removeOnFail: { count: keep },
    },
  });
  // Trouble reaching Redis is reported per call (start rejects); the queue's event would otherwise crash.
  queue.on("error", () => {});
  opened.connect();

  return {
    name: "bullmq",
    redelivers: true,
    queue,
    async start(attempt: TaskAttempt): Promise<void> {
      let late = false;
      const add = () => (late ? undefined : queue.add(attempt.name, { taskId: attempt.taskId }, { jobId: attempt.taskId }));
      // A client made here is waited for (within the same time) until it first connects: a call made as the
      // instance starts is not refused for that alone.
      const connecting = opened.whenReady();
      const added = connecting ? connecting.then(add) : add();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          late = true;
          reject(queueUnavailable(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      });
      try {
        await Promise.race([added, timedOut]);
      } catch (error) {
        throw McpJsonRpcError.isError(error) ? error : queueUnavailable(error instanceof Error ? error.message : String(error));
      } finally {
        clearTimeout(timer);
      }
    },
    async forget(taskId: string): Promise<void> {
      // Only a job still waiting is removed: an active one is its worker's (the run sees the task end).
      const job = await queue.getJob(taskId);
      if (job && (await job.getState()) === "waiting") await job.remove().catch(() => {});
    },
    async close() {
      await queue.close();
      await opened.close();
    },
  };
}

// --- Internal ---

/**
 * Answered as the task store's unavailability is, 503 with `Retry-After`: the queue's Redis is down or
 * slow, and the same call made again later is safe. It creates a new task; the one this call created is
 * failed, so a job of it that reached the queue after all finds it finished and does not run it.
 */
function queueUnavailable(reason: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `The task queue is unavailable: ${reason}`, undefined, STORE_UNAVAILABLE_STATUS, {
    "retry-after": String(STORE_RETRY_AFTER_SECONDS),
  });
}
