// A redelivery in a test, in one process on the in-memory store: the attempt a task's run found by name is
// on is stopped the way its process's end would stop it, and the next attempt is claimed and run here, so
// that a test sees attempt 2 start from the last checkpoint with the rounds already answered given back.
import type { Interrupted, InterruptKind } from "../runtime.ts";
import type { McpTasksPlugin } from "../plugin.ts";
import { runtimeOf } from "../plugin-runtimes.ts";

export type { Interrupted, InterruptKind };

/**
 * Stops the attempt task `taskId` is on in this process, as `"crash"` (the process killed: the attempt is
 * lost and counts against the run's `maxAttempts`) or `"drain"` (the process drained with a deadline of 0:
 * the attempt is handed off and spends none) would, then claims the next attempt and runs it here.
 * The stopped attempt's `task.signal` aborts (with the reason a fenced or a handed-off attempt gets), and
 * nothing it does later reaches the task. Resolves with `{ attempt }`, the attempt now running, or with
 * `{ status: "failed" }` when none was left. The task must be a run found by name (`defineTaskRun`) running
 * in `plugin`, whose store is one only this process uses (`memoryTaskStore()`, the default).
 *
 * @example
 * const { app, tasks } = createReportServer(); // its mcpTasks({ runs: [report] }) plugin
 * const handle = await createTestClient(app).callTool("report", { sections: 5 });
 * // … once section 3's checkpoint is saved:
 * expect(await interruptTask(tasks, handle.taskId, "crash")).toEqual({ attempt: 2 });
 */
export function interruptTask(plugin: McpTasksPlugin, taskId: string, how: InterruptKind): Promise<Interrupted> {
  if (how !== "crash" && how !== "drain") return Promise.reject(new TypeError(`interruptTask: how must be "crash" or "drain", not ${JSON.stringify(how)}`));
  const runtime = runtimeOf(plugin);
  if (!runtime) return Promise.reject(new TypeError("interruptTask: give it the plugin mcpTasks() made"));
  if (!runtime.interrupt) {
    return Promise.reject(
      new TypeError("interruptTask works on a store only this process uses (memoryTaskStore(), the default); with a shared store, stop an instance instead (its plugin's drain(), or end its process)"),
    );
  }
  return runtime.interrupt(taskId, how);
}
