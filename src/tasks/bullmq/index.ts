// The "h3-mcp/tasks/bullmq" entry: named runs executed by worker processes through a BullMQ queue. The
// only code that loads bullmq (an optional peer).
//   executor.ts     bullmqExecutor(options): what web instances give `mcpTasks({ executor })`: a job per
//                   task (job id = task id, data = the task id alone)
//   worker.ts       startTaskWorker(options): one call makes a process a worker (concurrency, drain on a
//                   signal, BullMQ's stalled recovery agreeing with the store's claims)
//   job-outcome.ts  what becomes of a job once its run ended here (done, or delivered again when)
//   connection.ts   the Redis connection BullMQ is given (the signals that drain and exit: ../shutdown-signals.ts)
// Imports: the tasks layer (the executor seam) and every layer below it.
export { bullmqExecutor } from "./executor.ts";
export type { BullmqExecutor, BullmqExecutorOptions, TaskJobData } from "./executor.ts";
export { startTaskWorker } from "./worker.ts";
export type { TaskWorker, TaskWorkerOptions } from "./worker.ts";
export type { BullmqConnectionOptions } from "./connection.ts";
export type { DrainReport, TaskAttempt, TaskExecution, TaskExecutionHost, TaskExecutor } from "../executor.ts";
