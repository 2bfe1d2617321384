import type { H3Event } from "h3";
import type { InspectionEvent, Observer } from "xstate";
import { fromHttpError, internalError, McpUsageError } from "../protocol/errors.ts";
import { watchAvailabilityReports, watchHub, type McpExtensionPlugin, type McpStoreAvailability } from "../features/extension-plugin.ts";
import { watchStore } from "./store-watch.ts";
import { getMcpContext, getRequestContext } from "../features/request-context.ts";
import type { PluginHooks } from "../features/hooks.ts";
import type { TaskHooks } from "./run-hooks.ts";
import { offerTasks, TASKS_EXTENSION, type McpTaskRunDefinition } from "../features/task-api.ts";
import { newTaskId } from "../utils/task-id.ts";
import { createTaskListenFilter, createTaskMethods } from "./handlers.ts";
import type { DrainOptions } from "./executor.ts";
import { drainingRefusal } from "./runtime-parts.ts";
import type { DrainReport, TaskExecutionHost, TaskExecutor } from "./executor.ts";
import { executionHost } from "./execution-host.ts";
import { watchMountedHandlers } from "../features/mounted-handler.ts";
import { mountedTools } from "./mounted-tools.ts";
import { keepAliveFor, keepAliveRefusal } from "./keep-alive.ts";
import { memoryTaskStore, type MemoryTaskStore } from "./memory-store.ts";
import { ownerKey, UNBOUND, unkeyableOwner } from "./owner.ts";
import { keepRuntime } from "./plugin-runtimes.ts";
import type { TaskRuntime, TaskRuntimeOptions, TaskRuntimeStats } from "./runtime.ts";
import { plugDurability } from "./durability.ts";
import { TaskEngine } from "./engine.ts";
import { isTaskRun, servedRuns } from "./task-runs.ts";
import { DEFAULT_MAX_TASK_BYTES } from "./task-bytes.ts";
import { mergeOrigins, originOf } from "./task-origin.ts";
import type { TaskOrigin, TaskStore } from "./store.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

export interface McpTasksOptions<S extends TaskStore = TaskStore> {
  /** Serve tasks to this request? A rejected request gets -32601 for tasks/*, no task subscription, and mcpTask throws. */
  enabled?: boolean | ((event: H3Event) => boolean);
  /** Tasks retained at once; creation fails past it rather than dropping a handle. Default 1000. */
  max?: number;
  /**
   * Tasks one caller (one `bind` value) may retain at once; creation fails past it with the full store's
   * error, naming this cap. Default: no cap beyond `max`. Without `bind`, every task has the same owner.
   */
  maxPerOwner?: number;
  /** Lifetime from creation; `null` for unlimited. Default 600 000 (10 minutes). */
  ttlMs?: number | null;
  /** Advertised polling interval. Default 1000. */
  pollIntervalMs?: number;
  /**
   * What one task may keep of each piece, in bytes of its JSON (UTF-8), checked before any store sees it:
   * the input of the call that creates it (the `tools/call` arguments, and a run found by name's `input`:
   * over it, the call answers -32602 and no task is made), each status message (`task.update` throws), each
   * question (`task.requestInput` rejects), the checkpoint (`task.saveCheckpoint` rejects) and the result
   * (over it, the task fails with a -32603 naming this option). Raise it for tasks that carry more.
   * @default 1048576 (1 MiB)
   */
  maxTaskBytes?: number;
  /**
   * Scopes a task to its caller: computed at creation and on every later request, compared by value (a
   * string as it is, any other JSON value by its canonical JSON). A value that is neither refuses creation.
   * Default: with the handler's `auth`, the token's issuer and subject (so one caller never sees another's
   * tasks); without it, nobody (every task is reachable by its id alone).
   */
  bind?: (event: H3Event) => unknown;
  /**
   * What a new task carries from the call that created it (for example that call's trace context): a JSON
   * object of at most 4 KiB, kept with the task by every store and given back wherever it is read
   * (`task.origin` in `run`).
   */
  origin?: (event: H3Event) => TaskOrigin | undefined;
  /** An XState inspector (e.g. from `@statelyai/inspect`) handed to every task actor. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /**
   * Where tasks live. Default: this process's memory (`memoryTaskStore()`). A shared store
   * (`redisTaskStore()` from "h3-mcp/tasks/redis") lets every instance answer for every task. Any
   * implementation of `TaskStore` will do (docs/task-stores.md); each `mcpTasks()` needs its own.
   */
  store?: S;
  /**
   * Where task times come from (creation, `lastUpdatedAt`, expiry). Default: the system clock. Give your own to
   * test expiry without waiting: every time the extension reads goes through `clock.now()`.
   */
  clock?: McpTasksClock;
  /**
   * Makes the ids of new tasks. Default: random UUIDs. For tests that need ids known in advance; whatever it
   * returns must be unique, and unguessable unless every task is bound to its caller (`bind`).
   */
  newTaskId?: () => string;
  /**
   * The runs found by name (`defineTaskRun`) this instance serves: `mcpTask(event, { run, input })` takes
   * only these, and with a shared store this instance runs their later attempts too (after another
   * instance was lost or drained). List the same runs on every instance.
   */
  runs?: readonly McpTaskRunDefinition[];
  /**
   * Where the attempts of runs found by name execute (docs/executors.md): a job queue's or a workflow
   * engine's workers, for example `bullmqExecutor()` from "h3-mcp/tasks/bullmq". A new task of such a run
   * is stored and handed to `executor.start`, never run here; the worker processes make their tasks plugin
   * with the same options and call its `execute`. Needs a shared store that keeps runs found by name.
   * Closures still run here. Default: none (every run executes in the instance that created it).
   */
  executor?: TaskExecutor;
}

const OPTION_NAMES: OptionNames<McpTasksOptions> = {
  enabled: true, max: true, maxPerOwner: true, ttlMs: true, pollIntervalMs: true, maxTaskBytes: true, bind: true,
  origin: true, inspect: true, store: true, clock: true, newTaskId: true, runs: true, executor: true,
};
// Options people give mcpTasks() that belong to another object.
const ELSEWHERE = {
  secret: "secret is the store's option: give it to the store, e.g. redisTaskStore({ secret }), then mcpTasks({ store })",
  leaseMs: "leaseMs is the store's option: give it to the store, e.g. redisTaskStore({ leaseMs }), then mcpTasks({ store })",
};

/** A source of the current time, in epoch milliseconds. */
export interface McpTasksClock {
  now(): number;
}

/**
 * The installed plugin, with its store and its runtime's figures reachable for tests and tooling, and
 * `host`: what a worker process executes the attempts an executor delivers with (docs/executors.md).
 */
export type McpTasksPlugin<S extends TaskStore = TaskStore> = McpExtensionPlugin & {
  readonly store: S;
  /** This process's worker half: `execute`, `fail` and `drain` for the attempts an executor delivers here. */
  readonly host: TaskExecutionHost;
  readonly stats: TaskRuntimeStats;
  /**
   * Drains this instance before it stops (docs/durability.md): no new run starts here (creating a closure
   * task answers 503 with `Retry-After: 1`), the runs here get up to `deadlineMs` to end, then each task
   * still running here is handed off to another instance (a run found by name with `maxAttempts` above 1, on
   * a shared store; a hand-off spends none of its attempts) or failed with the `shutdown` reason, each
   * written to the store before this resolves. tasks/get, tasks/update, tasks/cancel and listen streams are
   * served throughout. Called again, it answers the first drain's report.
   */
  drain(options: DrainOptions): Promise<DrainReport>;
};

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`). Installing it is what serves it.
 *
 * @example
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ ttlMs: 60_000 })] });
 */
export function mcpTasks<S extends TaskStore = MemoryTaskStore>(options: McpTasksOptions<S> = {}): McpTasksPlugin<S> {
  checkOptions("mcpTasks()", options, OPTION_NAMES, { elsewhere: ELSEWHERE });
  const clock = options.clock;
  const now = clock ? () => clock.now() : Date.now;
  // Each goes on the wire (or bounds what does) as an integer: anything else is refused here, not sent.
  const max = positiveInteger("max", options.max ?? 1000);
  const maxPerOwner = options.maxPerOwner === undefined ? Infinity : positiveInteger("maxPerOwner", options.maxPerOwner);
  const ttlMs = options.ttlMs === null ? null : positiveInteger("ttlMs", options.ttlMs === undefined ? 600_000 : options.ttlMs, " or null");
  const pollIntervalMs = positiveInteger("pollIntervalMs", options.pollIntervalMs === undefined ? 1000 : options.pollIntervalMs);
  const maxTaskBytes = positiveInteger("maxTaskBytes", options.maxTaskBytes ?? DEFAULT_MAX_TASK_BYTES);
  const bind = options.bind;
  const ownerOf = bind ? (event: H3Event) => ownerKey(callBind(bind, event)) : authenticatedOwner;
  const origin = options.origin;

  const store = options.store ?? (memoryTaskStore() as TaskStore as S);
  const executor = checkedExecutor(options.executor, store);
  // A store only this process uses answers synchronously from its memory: only a shared one can be down.
  const availability = new Set<(change: McpStoreAvailability) => void>();
  const mounted = mountedTools();
  const runtime = createTaskRuntime({
    store: store.shared ? watchStore(store, now, availability) : store,
    limits: { max, maxPerOwner },
    ttlMs,
    pollIntervalMs,
    maxTaskBytes,
    now,
    newId: options.newTaskId ?? newTaskId,
    bound: bind !== undefined,
    inspect: options.inspect,
    runs: servedRuns(options.runs),
    mounted,
    ...(executor && { executor, claims: !executor.redelivers }),
  });
  const host = executionHost(runtime, executor);
  // A cancel is a hint to the executor: a delivery still queued for the task may go (forget).
  const forget = executor?.forget && ((taskId: string) => void executor.forget!(taskId).catch(() => {}));
  const deps = { runtime, owner: ownerOf, now, ...(forget && { cancelled: forget }) };
  const enabled = options.enabled;

  const plugin: McpTasksPlugin<S> = {
    id: TASKS_EXTENSION,
    settings: {},
    enabled: typeof enabled === "function" || enabled === false ? enabled : undefined,
    methods: createTaskMethods(deps),
    listen: [createTaskListenFilter(deps)],
    store,
    get stats() {
      return runtime.stats;
    },
    drain: (drainOptions) => runtime.drain(drainOptions),
    host,
  };
  keepRuntime(plugin, runtime);
  offerTasks(plugin, {
    createTask(event, task) {
      if (!task || (typeof task.run !== "function" && !isTaskRun(task.run))) {
        throw new McpUsageError("TASK_NO_RUN", "mcpTask needs a run(task) function or a run from defineTaskRun()");
      }
      // A closure cannot leave this instance, which is going away: the client tries again elsewhere.
      if (runtime.draining && typeof task.run === "function") throw drainingRefusal();
      const owner = ownerOf(event);
      // A setup mistake, like a `bind` that throws: the client gets a plain -32603, `onError` the reason.
      if (owner === undefined) throw internalError(unkeyableOwner());
      const ctx = getRequestContext(event);
      const hooks = ctx.mount.hooks;
      const fromPlugins = hooks.taskOrigin;
      const carried = fromPlugins
        ? originOf((e) => mergeOrigins(origin?.(e), fromPlugins(e)), event)
        : origin && originOf(origin, event);
      return runtime.create(owner, ctx, task, () => keepAliveFor(event), carried, taskHooks(hooks, event));
    },
    refusal(event) {
      return capRefusal(event) ?? keepAliveRefusal(event);
    },
  });
  if (store.relayAnnouncements) watchHub(plugin, (hub) => store.relayAnnouncements!(hub));
  watchAvailabilityReports(plugin, (report) => availability.add(report));
  watchMountedHandlers(plugin, (handler) => mounted.add(handler));

  /**
   * A store that can tell synchronously (in memory) refuses here exactly when creating would; a shared
   * one decides at creation (asking it here would make `canCreateTask` asynchronous).
   */
  const capRefusal = (event: H3Event) => {
    if (!store.wouldCreate) return undefined;
    let owner: string | undefined = UNBOUND;
    // Only a per-owner cap needs to know the caller; `bind` failing here is creation's to report.
    if (maxPerOwner !== Infinity) {
      try {
        owner = ownerOf(event);
      } catch {
        return undefined;
      }
    }
    if (owner === undefined) return undefined;
    const verdict = store.wouldCreate(owner);
    return verdict === "created" ? undefined : runtime.refusal(verdict);
  };
  return plugin;
}

export type { McpExtensionPlugin };

// --- Internal ---

/** The engine for the store, with its durability part plugged in. */
function createTaskRuntime(options: TaskRuntimeOptions): TaskRuntime {
  return new TaskEngine(options, plugDurability);
}

/** The executor as given, refused at once when it is not one or the store cannot serve it. */
function checkedExecutor(executor: TaskExecutor | undefined, store: TaskStore): TaskExecutor | undefined {
  if (executor === undefined) return undefined;
  if (typeof executor !== "object" || executor === null || typeof executor.start !== "function" || typeof executor.name !== "string" || typeof executor.redelivers !== "boolean") {
    throw new TypeError("mcpTasks: executor must have a name, redelivers (a boolean) and start(attempt)");
  }
  if (!store.shared || !store.claim || !store.readHeld || !store.loadRun) {
    throw new TypeError(`mcpTasks: the executor ${executor.name} needs a task store shared by several instances that keeps runs found by name (redisTaskStore(), for example): its workers are other processes`);
  }
  return executor;
}

/** The default owner: who the handler's `auth` verified (issuer and subject), or nobody without auth. */
function authenticatedOwner(event: H3Event): string {
  const auth = getMcpContext(event).auth;
  return auth ? ownerKey({ iss: auth.issuer, sub: auth.subject })! : UNBOUND;
}

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

/** The task hooks of the handler's plugins; undefined when none has one (the run then goes straight). */
function taskHooks(hooks: PluginHooks, event: H3Event): TaskHooks | undefined {
  const { taskRun, toolCall } = hooks;
  if (!taskRun && !toolCall) return undefined;
  return {
    run: taskRun,
    // Only a `wrapToolCall` keeps the creating call's event for the task's life: it is handed that event.
    result: toolCall && ((taskId, tool, finish) => toolCall(event, tool, finish, { taskId })),
  };
}
