import type { H3Event } from "h3";
import type { InspectionEvent, Observer } from "xstate";
import { McpUsageError } from "../protocol/errors.ts";
import type { McpExtensionPlugin } from "../features/extension-plugin.ts";
import { getMcpContext } from "../features/request-context.ts";
import { TASKS_EXTENSION, type TaskCapablePlugin } from "../features/task-api.ts";
import { createTaskListenFilter, createTaskMethods, requireTaskGate } from "./handlers.ts";
import { createTaskRuntime } from "./runtime.ts";
import { createTaskStore, type TaskStore } from "./store.ts";
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

  const store = createTaskStore({
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
      // `size` sweeps as `create` does, so this says "full" exactly when creating would fail.
      return store.size >= max ? `The task store is full (${max} tasks retained)` : undefined;
    },
  };
  return plugin;
}

export type { McpExtensionPlugin };
