// The "h3-mcp/tasks" entry: the tasks extension plugin and the calls a tool makes with it.
export { mcpTasks } from "./plugin.ts";
export type { McpTasksOptions, McpTasksPlugin } from "./plugin.ts";
export { canCreateTask, mcpTask, TASKS_EXTENSION } from "../features/task-api.ts";
export type { McpTaskContext, McpTaskOptions } from "../features/task-api.ts";
export type { CreateTaskResult } from "../protocol/types.ts";
export type { TaskStore, TaskEntry, FinishedTask, StoredTask } from "./store.ts";
