// `bullmqExecutor()`: web instances hand a named run's attempt to a BullMQ queue, and worker processes
// (`startTaskWorker`, worker.ts) take it from there. The job is only a delivery: its id is the task's id
// (so a task is never enqueued twice), its name the run's name, its data the task id alone. The input
// stays in the task store, sealed, so Redis dumps and dashboards show no arguments; the task's status is
// the chart's, in the task store, never the job's.
import { Queue } from "bullmq";
import { ErrorCode, McpJsonRpcError, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_STATUS } from "../../protocol/errors.ts";
import type { TaskAttempt, TaskExecutor } from "../executor.ts";
import { DEFAULT_QUEUE_NAME, openBullmqConnection, type BullmqConnectionOptions } from "./connection.ts";

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

/**
 * An executor that enqueues each named run's attempt as a BullMQ job, for worker processes started with
 * `startTaskWorker` to run.
 *
 * @example
 * const executor = bullmqExecutor({ url: process.env.REDIS_URL });
 * const tasks = mcpTasks({ store, runs: [render], executor });
 */
export function bullmqExecutor(options: BullmqExecutorOptions): BullmqExecutor {
  const timeoutMs = options.timeoutMs ?? 2000;
  const keep = options.keepJobs ?? 1000;
  if (!(timeoutMs > 0)) throw new TypeError("bullmqExecutor: timeoutMs must be positive");
  if (!Number.isSafeInteger(keep) || keep < 0) throw new TypeError("bullmqExecutor: keepJobs must be a non-negative integer");
  const opened = openBullmqConnection(options, "bullmqExecutor");
  const queue = new Queue<TaskJobData>(options.queueName ?? DEFAULT_QUEUE_NAME, {
    connection: opened.connection,
    ...(options.prefix !== undefined && { prefix: options.prefix }),
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

  return {
    name: "bullmq",
    redelivers: true,
    queue,
    async start(attempt: TaskAttempt): Promise<void> {
      const added = queue.add(attempt.name, { taskId: attempt.taskId }, { jobId: attempt.taskId });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(queueUnavailable(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([added, late]);
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
