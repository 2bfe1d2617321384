// Both halves of the executor seam as the tasks plugin works them (executor.ts is the contract). The web
// half: a new task of a run found by name, stored released, is handed to `executor.start`, and a refusal
// fails the task and answers its creating call with an error. The worker half: the plugin as a
// `TaskExecutionHost`, which claims a task by id, runs it here and resolves with what happened.
import { ErrorCode, McpJsonRpcError, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_STATUS } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/types.ts";
import type { TaskAttempt, TaskExecutionHost, TaskExecutor } from "./executor.ts";
import type { TaskRuntime } from "./runtime.ts";
import type { TaskStore } from "./store.ts";

/** What the host asks of the runtime: a shared one claims, runs and fails tasks by id; another cannot. */
type ExecutingRuntime = Pick<TaskRuntime, "claimTask" | "fail" | "drain">;

/** The error data of a task its executor refused or gave up on. */
export function executorErrorData(executor: TaskExecutor | undefined): JsonObject {
  return executor ? { reason: "executor", executor: executor.name } : { reason: "executor" };
}

/**
 * Hands a new task's attempt to the executor; resolves once it accepted it. A rejection fails the task
 * (`fail`, best effort: a store that cannot be told leaves the task to expire) and rejects with the error
 * its creating call answers: the executor's own JSON-RPC error, or a -32603 naming it with HTTP 503 and
 * `Retry-After`, as when the task store cannot be reached: the same call made again creates a new task.
 */
export async function startAttempt(executor: TaskExecutor, attempt: TaskAttempt, fail: (message: string, data: JsonObject) => Promise<void>): Promise<void> {
  try {
    await executor.start(attempt);
  } catch (error) {
    const refusal = McpJsonRpcError.isError(error)
      ? error
      : new McpJsonRpcError(
          ErrorCode.InternalError,
          `The task executor ${executor.name} did not accept the run: ${error instanceof Error ? error.message : String(error)}`,
          undefined,
          STORE_UNAVAILABLE_STATUS,
          { "retry-after": String(STORE_RETRY_AFTER_SECONDS) },
        );
    await fail(refusal.message, executorErrorData(executor)).catch(() => {});
    throw refusal;
  }
}

/**
 * Starts the next attempt of a task waiting for one, through an executor that does not redeliver by itself
 * (`last`: the attempt that held it last, read from the store when not known). Every instance that sees
 * the task waiting may start it: the executor delivers an attempt started twice once.
 */
export async function startNextAttempt(store: TaskStore, executor: TaskExecutor, id: string, last?: number): Promise<void> {
  const read = await store.readHeld!(id);
  if (!read?.snapshot || !read.hold) return;
  // Held by an attempt whose instance is alive (a worker claimed it since it was announced): nothing waits.
  if (!read.hold.released && read.workerAlive) return;
  const loaded = await store.loadRun!(id);
  if (loaded.outcome !== "loaded") return;
  const { name, version, input } = loaded.record;
  await executor.start({ taskId: id, name, version, input, attempt: (last ?? read.hold.attempt) + 1, ...(read.origin && { origin: read.origin }) });
}

/** The tasks plugin's worker half: `execute`, `fail` and `drain` over its runtime. */
export function executionHost(runtime: ExecutingRuntime, executor: TaskExecutor | undefined): TaskExecutionHost {
  const shared = (what: string) => {
    if (!runtime.claimTask) {
      throw new TypeError(`mcpTasks: ${what} needs a task store shared by several instances that keeps runs found by name (redisTaskStore(), for example)`);
    }
    return { claimTask: runtime.claimTask.bind(runtime), fail: runtime.fail.bind(runtime) };
  };
  return {
    async execute(taskId) {
      const { claimTask } = shared("execute");
      if (typeof taskId !== "string" || taskId === "") throw new TypeError(`execute: taskId must be a non-empty string, not ${String(taskId)}`);
      return claimTask(taskId);
    },
    async fail(taskId, message) {
      const { fail } = shared("fail");
      if (typeof taskId !== "string" || taskId === "") throw new TypeError(`fail: taskId must be a non-empty string, not ${String(taskId)}`);
      await fail(taskId, String(message), executorErrorData(executor));
    },
    drain: (options) => runtime.drain(options),
  };
}
