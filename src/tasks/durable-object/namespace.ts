// The Durable Object namespace binding as the store uses it, typed structurally so that no Workers type
// package is needed: `env.MCP_TASKS` from a wrangler `durable_objects` binding fits it.
import type { TasksObjectApi } from "./object-api.ts";

/** An object's id, as `idFromName` gives it. */
export interface DurableObjectIdLike {
  toString(): string;
}

/** The RPC stub of the tasks object: every method answers a promise. */
export type TasksObjectStub = { [K in keyof TasksObjectApi]: (...args: Parameters<TasksObjectApi[K]>) => Promise<Awaited<ReturnType<TasksObjectApi[K]>>> };

/** A `durable_objects` binding of class `McpTasksObject` (for example `env.MCP_TASKS`). */
export interface TasksObjectNamespace {
  idFromName(name: string): DurableObjectIdLike;
  get(id: DurableObjectIdLike): TasksObjectStub;
}
