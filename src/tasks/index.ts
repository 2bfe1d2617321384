// The "h3-mcp/tasks" entry: the tasks extension plugin and the calls a tool makes with it.
//   plugin.ts      mcpTasks(options): the plugin object (methods, listen filter, creation, refusals)
//   runtime.ts     an actor per task; runs `run(task)` and reports its outcome to the chart as events
//   store.ts, task-table.ts   the in-memory store: bounded, swept lazily in expiry order
//   handlers.ts    tasks/get, tasks/update, tasks/cancel, the taskIds listen filter
//   keep-alive.ts, workers-platform(.workerd).ts   a run kept alive after the response (the request's
//                  waitUntil, else on Workers the one of cloudflare:workers), or refused where it cannot be
// Imports: every layer below (transport/, features/, protocol/, utils/) and machines/; nothing imports it
// but this entry, so the core never loads it.
export { mcpTasks } from "./plugin.ts";
export type { McpTasksOptions, McpTasksPlugin } from "./plugin.ts";
export { canCreateTask, mcpTask, TASKS_EXTENSION } from "../features/task-api.ts";
export type { McpTaskContext, McpTaskOptions } from "../features/task-api.ts";
export type { CreateTaskResult } from "../protocol/types.ts";
// What a task's tool also reaches for: the error that fails a task, and the input it asks for.
export { McpJsonRpcError } from "../protocol/errors.ts";
export { mcpElicit } from "../features/mrtr/input-requests.ts";
export type { TaskStore, TaskEntry, FinishedTask, StoredTask } from "./store.ts";
