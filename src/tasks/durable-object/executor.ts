// `durableObjectExecutor()`: on Workers, the attempts of runs found by name execute inside the tasks
// object rather than in the request's isolate, where they would stop 30 s after the response. The web
// isolate stores the task released and hands its id to the object (`deliver`, one call); the object keeps
// the delivery in its storage and executes it with the tasks plugin the module gave `serve()` (the same
// `mcpTasks()` options, run in the object's own isolate), kept alive by its alarm. A run the object lost
// (an eviction, a restart, a crash) is found by the next alarm and executed again: the store's claim
// makes it the next attempt, fenced against the lost one (object-deliveries.ts).
import { taskStoreUnavailable } from "../../protocol/errors.ts";
import type { TaskAttempt, TaskExecutionHost, TaskExecutor } from "../executor.ts";
import type { TasksObjectNamespace } from "./namespace.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";

export interface DurableObjectExecutorOptions {
  /** The object's name, as given to `durableObjectTaskStore()`: the same object keeps the tasks and runs them. Default `"h3-mcp"`. */
  name?: string;
  /** Longest wait for the object to accept a delivery. Default 5000. */
  timeoutMs?: number;
}

export interface DurableObjectExecutor extends TaskExecutor {
  /**
   * The tasks plugin the object executes attempts with: the `mcpTasks()` made with this executor. Call it
   * once at module scope, beside `mcpTasks()`: the object's isolate runs the same module.
   */
  serve(host: TaskExecutionHost): void;
}

/** The hosts this isolate's modules gave `serve()`, by object name: what the object executes with. */
const hosts = new Map<string, TaskExecutionHost>();

/** The host serving object `name` in this isolate, if its module gave one. */
export function servingHost(name: string): TaskExecutionHost | undefined {
  return hosts.get(name);
}

const OPTION_NAMES: OptionNames<DurableObjectExecutorOptions> = { name: true, timeoutMs: true };

/**
 * An executor that runs named runs' attempts inside the tasks Durable Object, for `mcpTasks({ executor })`.
 *
 * @example
 * const executor = durableObjectExecutor(env.MCP_TASKS);
 * const tasks = mcpTasks({ store, runs: [render], executor });
 * executor.serve(tasks.host);
 */
export function durableObjectExecutor(namespace: TasksObjectNamespace, options: DurableObjectExecutorOptions = {}): DurableObjectExecutor {
  checkOptions("durableObjectExecutor()", options, OPTION_NAMES);
  const name = options.name ?? "h3-mcp";
  const timeoutMs = options.timeoutMs ?? 5000;
  if (!(timeoutMs > 0)) throw new TypeError("durableObjectExecutor: timeoutMs must be positive");
  return {
    name: "durable-object",
    // The object's alarm executes a lost attempt again by itself.
    redelivers: true,
    async start(attempt: TaskAttempt): Promise<void> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          namespace.get(namespace.idFromName(name)).deliver(attempt.taskId, name),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
        ]);
      } catch (error) {
        throw taskStoreUnavailable(`the tasks Durable Object "${name}" did not take the run (${(error as Error).message})`);
      } finally {
        clearTimeout(timer);
      }
    },
    serve(host) {
      if (hosts.has(name) && hosts.get(name) !== host) throw new TypeError(`durableObjectExecutor: object "${name}" is served by another tasks plugin already`);
      hosts.set(name, host);
    },
  };
}
