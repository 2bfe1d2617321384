import type { H3Event } from "h3";
import type { InspectionEvent, Observer } from "xstate";
import { McpUsageError } from "../protocol/errors.ts";
import type { McpExtensionPlugin } from "../features/extension-plugin.ts";
import { getMcpContext } from "../features/request-context.ts";
import { TASKS_EXTENSION, type TaskCapablePlugin } from "../features/task-api.ts";
import { createTaskListenFilter, createTaskMethods, requireTaskGate } from "./handlers.ts";
import { createTaskRuntime } from "./runtime.ts";
import { createTaskStore, type TaskStore } from "./store.ts";
import type { Hub } from "../features/change-hub.ts";

/** A store several instances share; made by `redisTaskStore()` ("h3-mcp/tasks/redis"). */
export interface SharedTaskStore extends TaskStore {
  readonly shared: true;
  /** @internal */
  "~configure"(config: { max: number; now: () => number; inspect?: McpTasksOptions["inspect"] }): void;
  /** @internal */
  "~attachHub"(hub: Hub): () => void;
}
import { newTaskId } from "../utils/task-id.ts";

export interface McpTasksOptions {
  /** Serve tasks to this request? A rejected request gets -32601 for tasks/*, no task subscription, and mcpTask throws. */
  enabled?: boolean | ((event: H3Event) => boolean);
  /** Tasks retained at once; creation fails past it rather than dropping a handle. Default 1000. */
  max?: number;
  /** Lifetime from creation; `null` for unlimited. Default 600 000 (10 minutes). */
  ttlMs?: number | null;
  /** Advertised polling interval. Default 1000. */
  pollIntervalMs?: number;
  /** Scopes a task to its caller: computed at creation and re-checked on every later request. */
  bind?: (event: H3Event) => unknown;
  /** An XState inspector (e.g. from `@statelyai/inspect`) handed to every task actor. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /**
   * Where tasks live. Default: this process's memory. A shared store (`redisTaskStore()` from
   * "h3-mcp/tasks/redis") lets every instance answer for every task.
   */
  store?: SharedTaskStore;
  /** @internal Clock and id source, replaceable in tests. */
  "~now"?: () => number;
  "~newId"?: () => string;
}

/** The installed plugin, with its store reachable for tests and tooling. */
export type McpTasksPlugin = TaskCapablePlugin & { readonly store: TaskStore };

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`). Installing it is what serves it.
 *
 * @example
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ ttlMs: 60_000 })] });
 */
export function mcpTasks(options: McpTasksOptions = {}): McpTasksPlugin {
  const now = options["~now"] ?? Date.now;
  const max = options.max ?? 1000;
  const ttlMs = options.ttlMs === undefined ? 600_000 : options.ttlMs;
  if (!(max > 0)) throw new TypeError("mcpTasks: max must be positive");
  if (ttlMs !== null && !(ttlMs > 0)) throw new TypeError("mcpTasks: ttlMs must be positive or null");
  const bind = options.bind;
  const owner = bind ? (event: H3Event) => bind(event) : () => undefined;

  const shared = options.store;
  shared?.["~configure"]({ max, now, inspect: options.inspect });
  const store: TaskStore =
    shared ??
    createTaskStore({
      max,
      now,
      onExpire: (entry) => entry.actor?.send({ type: "task.expire", at: now() }),
    });
  const runtime = createTaskRuntime({
    store,
    ttlMs,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    now,
    newId: options["~newId"] ?? newTaskId,
    inspect: options.inspect,
  });
  const deps = { store, owner, now };
  const enabled = options.enabled;

  const plugin: McpTasksPlugin = {
    id: TASKS_EXTENSION,
    settings: {},
    enabled: typeof enabled === "function" ? enabled : enabled === false ? () => false : undefined,
    methods: createTaskMethods(deps),
    listen: [createTaskListenFilter(deps)],
    beforeToolCall: requireTaskGate,
    store,
    "~createTask"(event, task) {
      if (!task || typeof task.run !== "function") throw new McpUsageError("TASK_NO_RUN", "mcpTask needs a run(task) function");
      return runtime.create(owner(event), getMcpContext(event).clientCapabilities, task);
    },
    "~whyNot"() {
      // A shared store decides the cap at creation (asking Redis here would make this asynchronous).
      // In memory, `size` sweeps as `create` does, so this says "full" exactly when creating would fail.
      return !shared && store.size >= max ? `The task store is full (${max} tasks retained)` : undefined;
    },
    ...(shared && { "~attachHub": (hub: Hub) => shared["~attachHub"](hub) }),
  };
  return plugin;
}

export type { McpExtensionPlugin };
