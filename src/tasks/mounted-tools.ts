// An attempt of a run found by name that starts away from the request that created its task (claimed after
// a crash or a hand-off, or delivered to an executor's worker) starts as the first one did: with the tool
// whose call created the task, found by the name the run's record keeps among the tools of the handlers
// the tasks plugin is installed in, so that its result is checked against that tool's `outputSchema` and
// its run goes through the plugins' `wrapTaskRun`. What each handler gives is prepared at mount.
import type { McpTaskClosureOptions } from "../features/task-api.ts";
import type { MountedHandler } from "../features/mounted-handler.ts";
import { startTaskRun, type TaskHooks } from "./run-hooks.ts";
import { resultPath, startRun } from "./run-outcome.ts";
import type { FollowedTask } from "./run-view.ts";
import type { TaskOrigin, TaskRunRecord } from "./store.ts";
import { controlOf, type TaskRun } from "./task-run.ts";

interface Mounted {
  readonly tool: MountedHandler["tool"];
  /** The handler's `wrapTaskRun`s; not its `wrapToolCall`s, which need the creating call's request. */
  readonly hooks: TaskHooks | undefined;
}

/** The handlers the tasks plugin is installed in, in the order they were made. */
export function mountedTools() {
  const handlers: Mounted[] = [];
  return {
    add(handler: MountedHandler): void {
      const run = handler.hooks.taskRun;
      handlers.push({ tool: handler.tool, hooks: run && { run } });
    },
    /**
     * Starts an attempt of the run `record` keeps (see `startRun`), with the tool that created the task as
     * the first handler serving it has it. A task whose record names no tool (stored by an earlier version)
     * or a tool no handler here serves (none made with this plugin, or options given as a function of the
     * request) has its result checked as a tool result only, and no hook to go through.
     */
    start(run: TaskRun, work: McpTaskClosureOptions["run"], task: FollowedTask, record: TaskRunRecord, origin: TaskOrigin | undefined): Promise<void> | undefined {
      const name = record.tool;
      if (name !== undefined) {
        for (const handler of handlers) {
          const tool = handler.tool(name);
          if (tool) return startTaskRun(run, work, task, tool, origin, handler.hooks);
        }
      }
      return startRun(run, controlOf(run), work, resultPath({ def: { name: name ?? record.name } }));
    },
  };
}

export type MountedTools = ReturnType<typeof mountedTools>;
