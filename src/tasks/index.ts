// The "h3-mcp/tasks" entry: the tasks extension plugin, the calls a tool makes with it, and the task
// store contract with the default store.
// What each file of src/tasks holds: the file map in src/README.md.
// Imports: every layer below (transport/, features/, protocol/, utils/) and machines/; nothing imports it
// but this entry, so the core never loads it.
export { mcpTasks } from "./plugin.ts";
export type { McpTasksClock, McpTasksOptions, McpTasksPlugin } from "./plugin.ts";
export type { TaskRuntimeStats } from "./runtime.ts";
export type { DrainOptions } from "./executor.ts";
export { drainOnSignal } from "./drain-on-signal.ts";
export type { DrainOnSignalOptions } from "./drain-on-signal.ts";
// Where a named run's attempts execute (docs/executors.md): the seam an executor implements.
export type { DrainReport, TaskAttempt, TaskExecution, TaskExecutionHost, TaskExecutor } from "./executor.ts";
export { canCreateTask, mcpTask, TASKS_EXTENSION } from "../features/task-api.ts";
export type {
  McpTaskClosureOptions,
  McpTaskContext,
  McpTaskNamedRunOptions,
  McpTaskOptions,
  McpTaskRunContext,
  McpTaskRunDefinition,
} from "../features/task-api.ts";
// Runs found by name: retried on another instance after this one is lost or drained.
export { defineTaskRun } from "./task-runs.ts";
export type { TaskRunOptions } from "./task-runs.ts";
export type { CreateTaskResult } from "../protocol/types.ts";
// What a task's tool also reaches for: the error that fails a task, and the input it asks for.
export { McpJsonRpcError } from "../protocol/errors.ts";
export { mcpElicit } from "../features/mrtr/input-requests.ts";
// The default store, and the type a store option takes; a store's author finds its contract in
// "h3-mcp/tasks/store" (store-entry.ts).
export { memoryTaskStore } from "./memory-store.ts";
export type { MemoryTaskStore } from "./memory-store.ts";
export type { TaskStore } from "./store.ts";
