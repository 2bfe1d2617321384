import type { H3Event } from "h3";
import type { InspectionEvent, Observer } from "xstate";
import { fromHttpError, internalError, McpUsageError, taskStoreFull } from "../protocol/errors.ts";
import type { McpExtensionPlugin } from "../features/extension-plugin.ts";
import { getMcpContext } from "../features/request-context.ts";
import { TASKS_EXTENSION, type TaskCapablePlugin } from "../features/task-api.ts";
import { createTaskListenFilter, createTaskMethods } from "./handlers.ts";
import { keepAliveFor, keepAliveRefusal } from "./keep-alive.ts";
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
  // Each goes on the wire (or bounds what does) as an integer: anything else is refused here, not sent.
  const max = positiveInteger("max", options.max ?? 1000);
  const ttlMs = options.ttlMs === null ? null : positiveInteger("ttlMs", options.ttlMs === undefined ? 600_000 : options.ttlMs, " or null");
  const pollIntervalMs = positiveInteger("pollIntervalMs", options.pollIntervalMs === undefined ? 1000 : options.pollIntervalMs);
  const bind = options.bind;
  const owner = bind ? (event: H3Event) => callBind(bind, event) : () => undefined;

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
    max,
    ttlMs,
    pollIntervalMs,
    now,
    newId: options["~newId"] ?? newTaskId,
    inspect: options.inspect,
  });
  const deps = { store, owner, now };
  const enabled = options.enabled;

  const plugin: McpTasksPlugin = {
    id: TASKS_EXTENSION,
    settings: {},
    enabled: typeof enabled === "function" || enabled === false ? enabled : undefined,
    methods: createTaskMethods(deps),
    listen: [createTaskListenFilter(deps)],
    store,
    "~createTask"(event, task) {
      if (!task || typeof task.run !== "function") throw new McpUsageError("TASK_NO_RUN", "mcpTask needs a run(task) function");
      return runtime.create(owner(event), getMcpContext(event), task, () => keepAliveFor(event));
    },
    "~refusal"(event) {
      // A shared store decides the cap at creation (asking Redis here would make this asynchronous).
      // In memory, `size` sweeps as `create` does, so this says "full" exactly when creating would fail.
      return !shared && store.size >= max ? taskStoreFull(max) : keepAliveRefusal(event);
    },
    ...(shared && { "~attachHub": (hub: Hub) => shared["~attachHub"](hub) }),
  };
  return plugin;
}

export type { McpExtensionPlugin };

// --- Internal ---

function positiveInteger(name: string, value: unknown, orElse = ""): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`mcpTasks: ${name} must be a positive integer${orElse}, not ${String(value)}`);
  }
  return value;
}

/**
 * `bind` refusing the h3 way (an `HTTPError` 401 or 403) keeps its status; anything else it throws is
 * an internal error, told to `onError` and never to the client.
 */
function callBind(bind: (event: H3Event) => unknown, event: H3Event): unknown {
  try {
    return bind(event);
  } catch (error) {
    throw fromHttpError(error) ?? internalError(error);
  }
}
