// What the plugins' task hooks see of a task that runs here: its id, tool and origin, its status changes
// as `tasks/get` shows them (followed on its actor, so answers given through any instance count), and
// an attempt's leaving this instance without ending the task (handed off by a drain, or fenced).
import type { McpTaskRunInfo, McpTaskStatus } from "../features/extension-plugin.ts";
import type { TaskRunHooks } from "../features/hooks.ts";
import type { ToolDefinition } from "../features/tools.ts";
import type { JsonObject } from "../protocol/types.ts";
import { toDetailedTask, type TaskSnapshot } from "./envelopes.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { FollowedTask } from "./run-view.ts";
import { resultPath, startRun, startWrappedRun } from "./run-outcome.ts";
import { controlOf, type TaskRun } from "./task-run.ts";
import type { McpTaskClosureOptions } from "../features/task-api.ts";
import type { CompiledTool } from "../features/tools.ts";
import type { TaskOrigin } from "./store.ts";

/** The hooks a task's run goes through; each is there only when some plugin has it. */
export interface TaskHooks {
  /** The plugins' `wrapTaskRun`, composed. */
  readonly run?: TaskRunHooks;
  /** The task's result through the plugins' `wrapToolCall` (with the creating call's event, which it keeps). */
  readonly result?: (taskId: string, tool: ToolDefinition<any>, finish: () => MaybePromise<JsonObject>) => Promise<JsonObject>;
}

/**
 * Starts a task's run (see `startRun`): through the plugins' `wrapTaskRun`, and its result through their
 * `wrapToolCall`, when there are any.
 */
export function startTaskRun(
  run: TaskRun,
  work: McpTaskClosureOptions["run"],
  task: FollowedTask,
  tool: CompiledTool | undefined,
  origin: TaskOrigin | undefined,
  hooks: TaskHooks | undefined,
): Promise<void> | undefined {
  const plain = resultPath(tool);
  const report = controlOf(run);
  if (!hooks || !tool) return startRun(run, report, work, plain);
  const wrapResult = hooks.result;
  const finish = wrapResult ? (value: unknown) => wrapResult(task.id, tool.def, () => plain(value)) : plain;
  const wrapRun = hooks.run;
  if (!wrapRun) return startRun(run, report, work, finish);
  return startWrappedRun(run, report, work, finish, (next) => wrapRun(runInfo(task, tool.def, origin), next));
}

function runInfo(task: FollowedTask, tool: ToolDefinition<any>, origin: TaskOrigin | undefined): McpTaskRunInfo {
  return {
    taskId: task.id,
    tool,
    origin,
    // A run found by name holds the task with its attempt's fence.
    ...(task.fence && { attempt: task.fence.attempt }),
    onStatus(listener) {
      // A task that already ended has nothing more to tell.
      if (!task.current()) return;
      task.follow((snapshot) => listener(taskStatus(snapshot)));
    },
    onLeave(listener) {
      // A closure's task cannot leave, and one no longer running here (ended, or gone) has left or never will.
      if (!task.fence || !task.current()) return;
      task.onLeave((why) => listener(why === "shutdown" ? "handed_off" : "fenced"));
    },
  };
}

/** A snapshot as a status listener gets it: the `tasks/get` view, with `expired` on a task whose ttl ran out. */
export function taskStatus(snapshot: TaskSnapshot): McpTaskStatus {
  const task = toDetailedTask(snapshot) as McpTaskStatus;
  return snapshot.context.endedBy === "expired" ? { ...task, expired: true } : task;
}
