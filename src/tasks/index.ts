// The "h3-mcp/tasks" entry: the tasks extension plugin, the calls a tool makes with it, and the task
// store contract with the default store.
//   plugin.ts      mcpTasks(options): the plugin object (methods, listen filter, creation, refusals)
//   runtime.ts     the runtime contract: creation, reads, changes, subscriptions, expiry; runtime-base.ts
//                  what both runtimes share, local-runtime.ts (memory) and shared-runtime.ts (shared
//                  stores) the two, runtime-parts.ts their small helpers
//   local-tasks.ts, task-run.ts, run-outcome.ts   the actor side: each task run here, its actor, its
//                  run's context, and its outcome reported to the chart as events; run-hooks.ts what the
//                  plugins' task hooks see of it
//   envelopes.ts, kept-json.ts   a task's wire envelopes, and the JSON a finished task is kept as
//   changes.ts, shared-tick.ts, listeners.ts   changes through a shared store (compare-and-set), its lease
//                  and catch-up, and this instance's listen streams
//   drain.ts       draining an instance before it stops: no new run, a deadline, then hand-off or failure;
//                  drain-on-signal.ts the serve() plugin that drains on SIGTERM and then exits,
//                  shutdown-signals.ts the signal handling it shares with the BullMQ worker
//   task-runs.ts, attempt-run.ts   runs found by name (defineTaskRun) and what one attempt at one works with;
//                  mounted-tools.ts the tool and hooks an attempt away from its creating request starts with
//   executor.ts    the executor seam: where a named run's attempts execute, and what a worker process holds;
//                  execution-host.ts how the plugin works both of its halves
//   store.ts       the task store contract ("h3-mcp/tasks/store", store-entry.ts) (what a store persists, makes atomic, may drop, and feeds back);
//                  store-runs.ts its part for runs found by name (run records, fences, claims), and
//                  run-seal.ts the seal shared stores keep their run records under (Redis, Durable Object)
//   store-watch.ts a shared store's outages, told once at their start and end
//   memory-store.ts, task-table.ts   the in-memory store: bounded, swept lazily in expiry order, off-heap
//   handlers.ts    tasks/get, tasks/update, tasks/cancel, the taskIds listen filter
//   chart.ts, owner.ts   the chart's transition of a stored snapshot; owners compared by value
//   keep-alive.ts, workers-platform(.workerd).ts   a run kept alive after the response (the request's
//                  waitUntil, else on Workers the one of cloudflare:workers), or refused where it cannot be
// Imports: every layer below (transport/, features/, protocol/, utils/) and machines/; nothing imports it
// but this entry, so the core never loads it.
export { mcpTasks } from "./plugin.ts";
export type { McpTasksClock, McpTasksOptions, McpTasksPlugin } from "./plugin.ts";
export type { TaskRuntimeStats } from "./runtime.ts";
export type { DrainOptions } from "./drain.ts";
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
