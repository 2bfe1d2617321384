// Which runtime serves each tasks plugin, for the test helpers that act on a task's run directly
// (`interruptTask` from "h3-mcp/tasks/testing"): kept beside the plugin, never on its public type.
import type { McpExtensionPlugin } from "../features/extension-plugin.ts";
import type { TaskRuntime } from "./runtime.ts";

const runtimes = new WeakMap<McpExtensionPlugin, TaskRuntime>();

/** Records that `runtime` serves `plugin` (once, as `mcpTasks()` makes it). */
export function keepRuntime(plugin: McpExtensionPlugin, runtime: TaskRuntime): void {
  runtimes.set(plugin, runtime);
}

/** The runtime serving `plugin`, or undefined for anything `mcpTasks()` did not make. */
export function runtimeOf(plugin: McpExtensionPlugin): TaskRuntime | undefined {
  return runtimes.get(plugin);
}
