// Runs found by name: `defineTaskRun` makes one, `mcpTasks({ runs })` lists those this instance serves.
// A task made from one keeps the run's name, version and input with it in the store, so that whichever
// instance serves that name may run its next attempt (a closure cannot travel: it fails with its process).
import type { McpTaskRunContext, McpTaskRunDefinition } from "../features/task-api.ts";
import type { CallToolResult } from "../protocol/types.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

export interface TaskRunOptions<I> {
  /** Found by this name on every instance that serves it: unique among an app's runs, and stable across deploys. */
  name: string;
  /** Default 1. Raise it when an attempt of the new code must not run a task the old code started. */
  version?: number;
  /** Attempts at most, default 1 (a run found by name that is never retried). Above 1 the run is retryable. */
  maxAttempts?: number;
  /**
   * The work: `task.attempt` says which attempt this is and `task.checkpoint` what the previous one saved.
   * Make it safe to run again (an idempotency key from `task.taskId` and `task.attempt`).
   */
  run(task: McpTaskRunContext, input: I): Promise<CallToolResult | string> | CallToolResult | string;
}

const OPTION_NAMES: OptionNames<TaskRunOptions<unknown>> = { name: true, version: true, maxAttempts: true, run: true };

/**
 * A task's run found by name: give it to `mcpTask(event, { run, input })` and list it in
 * `mcpTasks({ runs })` on every instance that may run it.
 *
 * @example
 * const render = defineTaskRun({
 *   name: "render",
 *   maxAttempts: 3,
 *   async run(task, input: { frames: number }) {
 *     const done = (task.checkpoint as number | undefined) ?? 0;
 *     for (let frame = done; frame < input.frames; frame++) await task.saveCheckpoint(frame + 1);
 *     return `${input.frames} frames`;
 *   },
 * });
 */
export function defineTaskRun<I>(options: TaskRunOptions<I>): McpTaskRunDefinition<I> {
  checkOptions(`defineTaskRun(${JSON.stringify(String(options?.name))})`, options, OPTION_NAMES);
  const { name, version = 1, maxAttempts = 1, run } = options ?? ({} as TaskRunOptions<I>);
  if (typeof name !== "string" || !/^[\w.:/-]{1,128}$/.test(name)) {
    throw new TypeError(`defineTaskRun: name must be 1 to 128 letters, digits or _.:/-, not ${JSON.stringify(name)}`);
  }
  if (!Number.isSafeInteger(version) || version < 1) throw new TypeError(`defineTaskRun(${name}): version must be a positive integer, not ${String(version)}`);
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new TypeError(`defineTaskRun(${name}): maxAttempts must be a positive integer, not ${String(maxAttempts)}`);
  }
  if (typeof run !== "function") throw new TypeError(`defineTaskRun(${name}): run must be a function`);
  return Object.freeze({ name, version, maxAttempts, run });
}

/** The runs an instance serves, by name. */
export type ServedRuns = ReadonlyMap<string, McpTaskRunDefinition>;

/** `mcpTasks({ runs })` as a table by name; two runs of one name are a setup mistake. */
export function servedRuns(runs: readonly McpTaskRunDefinition[] | undefined): ServedRuns {
  const table = new Map<string, McpTaskRunDefinition>();
  if (runs === undefined) return table;
  if (!Array.isArray(runs)) throw new TypeError("mcpTasks: runs must be an array of defineTaskRun() results");
  for (const run of runs) {
    if (!isTaskRun(run)) throw new TypeError("mcpTasks: every entry of runs must come from defineTaskRun()");
    if (table.has(run.name)) throw new TypeError(`mcpTasks: two runs are named ${run.name}`);
    table.set(run.name, run);
  }
  return table;
}

/** A run found by name (as opposed to a closure). */
export function isTaskRun(value: unknown): value is McpTaskRunDefinition {
  return typeof value === "object" && value !== null && typeof (value as McpTaskRunDefinition).run === "function" && typeof (value as McpTaskRunDefinition).name === "string";
}
