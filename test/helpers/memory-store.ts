import type { McpTasksPlugin, MemoryTaskStore } from "../../src/tasks/index.ts";

/** A plugin's store when it is the in-memory one (the default), with its size and sweep. */
export function memoryStore(plugin: McpTasksPlugin): MemoryTaskStore {
  const store = plugin.store as Partial<MemoryTaskStore>;
  if (store.shared !== false || typeof store.sweep !== "function") throw new Error("not the in-memory store");
  return store as MemoryTaskStore;
}
