// The "h3-mcp/tasks/durable-object" entry: a task store for Cloudflare Workers, shared by every isolate
// through one Durable Object on its SQLite storage. It loads `cloudflare:workers`, so it runs under workerd only.
//   store.ts        durableObjectTaskStore(namespace, options): the TaskStore (create, read, write, lease, catch-up)
//   object.ts       McpTasksObject: the Durable Object (tables, caps, compare-and-set, change log, expiry alarm)
//   object-api.ts   what the object answers over RPC
//   executor.ts     durableObjectExecutor(): named runs' attempts executed inside the object, kept going by its alarm
//   watcher.ts      the long poll that brings other isolates' changes to this one
//   namespace.ts    the binding's shape, without a Workers type package
export { durableObjectTaskStore } from "./store.ts";
export type { DurableObjectTaskStore, DurableObjectTaskStoreOptions } from "./store.ts";
export { McpTasksObject } from "./object.ts";
export { durableObjectExecutor } from "./executor.ts";
export type { DurableObjectExecutor, DurableObjectExecutorOptions } from "./executor.ts";
export type { TasksObjectNamespace, TasksObjectStub, DurableObjectIdLike } from "./namespace.ts";
