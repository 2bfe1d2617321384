// The contracts of the task engine (engine.ts): what the plugin and the tasks/* handlers ask of it
// (`TaskRuntime`), what it is made with at mount, and what it asks of the durability part plugged into it
// (`TaskDurability`, made by durability.ts). How a change is written is write-path.ts; small helpers are
// runtime-parts.ts.
import type { InspectionEvent, Observer } from "xstate";
import type { RequestContext } from "../features/request-context.ts";
import type { McpTaskOptions } from "../features/task-api.ts";
import type { McpJsonRpcError } from "../protocol/errors.ts";
import type { CreateTaskResult, JsonObject } from "../protocol/types.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { EventOf } from "./changes.ts";
import type { DrainOptions, DrainReport, TaskAttempt, TaskExecution, TaskExecutor } from "./executor.ts";
import type { KeepAlive } from "./keep-alive.ts";
import type { LocalTask } from "./local-tasks.ts";
import type { MountedTools } from "./mounted-tools.ts";
import type { TaskHooks } from "./run-hooks.ts";
import type { ServedRuns } from "./task-runs.ts";
import type { CreateOutcome, FinalStatus, LiveTaskRecord, TaskLimits, TaskOrigin, TaskRecord, TaskStore } from "./store.ts";

export interface TaskRuntimeOptions {
  store: TaskStore;
  limits: TaskLimits;
  ttlMs: number | null;
  pollIntervalMs: number;
  /** What one task may keep of each piece, in bytes (`mcpTasks({ maxTaskBytes })`). */
  maxTaskBytes: number;
  now: () => number;
  newId: () => string;
  /** Whether tasks are bound to their callers (the store may need a key for that). */
  bound: boolean;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** The runs found by name this instance serves (`mcpTasks({ runs })`). */
  runs: ServedRuns;
  /**
   * False when something else delivers lost attempts (an executor that redelivers): this instance then
   * never looks for tasks waiting for a claim on its own. Default true.
   */
  claims?: boolean;
  /**
   * Where named runs' attempts execute (`mcpTasks({ executor })`): a new task of a run found by name is
   * stored released and handed to it, never run here. Absent: they run here.
   */
  executor?: TaskExecutor;
  /** The tools of the handlers the plugin is installed in, known at mount: what an attempt away from its creating request starts with. */
  mounted: MountedTools;
}

/** How an attempt is stopped: its process killed (`"crash"`), or drained with a deadline of 0 (`"drain"`). */
export type InterruptKind = "crash" | "drain";

/** What became of the task: its next attempt runs here, or it ended (no attempt was left). */
export type Interrupted = { readonly attempt: number; readonly status?: undefined } | { readonly attempt?: undefined; readonly status: FinalStatus };

/** What the runtime tells about itself, for tests and tooling. */
export interface TaskRuntimeStats {
  /** Tasks whose run is in this process. */
  readonly localTasks: number;
  /** Tasks some listen stream here waits on, and those streams' listeners. */
  readonly listenedTasks: number;
  readonly listeners: number;
  /** Whether the shared store's lease and catch-up timer runs (only while there are local or listened tasks). */
  readonly timer: boolean;
  /** Changes to a shared store refused because the task changed meanwhile (each one retried). */
  readonly casRetries: number;
}

/** A listen stream's subscription to one task: its state now, and the unsubscribe. */
export interface TaskSubscription {
  readonly task: TaskRecord;
  readonly off: () => void;
}

export interface TaskRuntime {
  /** The error a refused creation answers with. */
  refusal(outcome: Exclude<CreateOutcome, "created">): McpJsonRpcError;
  /**
   * Creates the actor, stores the task, starts its run, and returns the handle (already retrievable).
   * `keepAlive` gives the request's waitUntil, asked for only when the run goes on after this call.
   */
  create(owner: string, ctx: RequestContext, task: McpTaskOptions, keepAlive: () => KeepAlive, origin?: TaskOrigin, hooks?: TaskHooks): MaybePromise<CreateTaskResult>;
  /** The task if it exists, is not expired and belongs to `owner`. */
  get(id: string, owner: string): MaybePromise<TaskRecord | undefined>;
  /**
   * Applies a client's change (the event made from the task's snapshot when it is applied). False when
   * the task is unknown or foreign; the task when its run is here (the request may keep it alive); true
   * otherwise (a finished task, which ignores events, or one running elsewhere).
   */
  send(id: string, owner: string, eventOf: EventOf): MaybePromise<LocalTask | boolean>;
  /** Subscribes `listener` to the task's later status changes; undefined when the caller may not have it. */
  subscribe(id: string, owner: string, listener: (snapshot: TaskSnapshot) => void): MaybePromise<TaskSubscription | undefined>;
  /**
   * Tells the expiry of a task whose time has come to whoever is here to hear it (its run, or listen
   * streams), for a listen stream's timer. False while it is not due yet; true once it is (or is final
   * or gone), so a timer that fired early knows to wait again.
   */
  expire(id: string): boolean;
  /**
   * Stops taking new runs, waits up to `deadlineMs` for the runs here, then hands off or fails the rest
   * (drain.ts). Called again, it answers the first drain's report.
   */
  drain(options: DrainOptions): Promise<DrainReport>;
  /**
   * A shared runtime's: claims task `id`'s next attempt and runs it here, resolving once it ended here
   * (a worker's `execute`, executor.ts).
   */
  claimTask?(id: string): Promise<TaskExecution>;
  /** Fails a live task (unless it ended) with `message` and `data`: its executor refused it or gave up on it. */
  fail(id: string, message: string, data: JsonObject): Promise<void>;
  /**
   * A store only this process uses: stops the attempt of a run found by name running here as a crash
   * (`"crash"`) or a drain's hand-off (`"drain"`) of its process would, then claims the next attempt and
   * runs it here (interrupt.ts). For tests (`interruptTask` from "h3-mcp/tasks/testing").
   */
  interrupt?(id: string, how: InterruptKind): Promise<Interrupted>;
  /** True from the first `drain` on. */
  readonly draining: boolean;
  readonly stats: TaskRuntimeStats;
}

/** What the engine asks of the durability part (durability.ts makes it at mount): the engine calls it and imports nothing of it. */
export interface TaskDurability {
  /** True from the first drain on: no new run starts here. */
  readonly draining: boolean;
  /** Whether a task can be left for another instance to claim (a shared store that keeps claims). */
  readonly handsOff: boolean;
  /** Whether its lease and catch-up timer runs. */
  readonly ticking: boolean;
  /** The store is connected: start what looks for work. */
  connected(): void;
  /** A task's run started here. */
  started(task: LocalTask): void;
  /** A listen stream subscribed to a task. */
  listening(): void;
  /** The store may have lost changes. */
  missed(): void;
  /** A task of run `name` was released on some instance (a drain's hand-off, or created released). */
  released?(id: string, name: string): void;
  /** A live task as read: its holder's loss judged through the chart (a read never claims or runs it). */
  judgeLive?(id: string, owner: string, task: LiveTaskRecord): MaybePromise<TaskRecord | undefined>;
  /** Hands a new task's first attempt to the executor; resolves once it accepted it. */
  deliver(attempt: TaskAttempt): Promise<void>;
  drain(options: DrainOptions): Promise<DrainReport>;
  /** Claims task `id`'s next attempt and runs it here (a shared store's: a worker's `execute`). */
  readonly claimTask?: (id: string) => Promise<TaskExecution>;
  /** Stops an attempt here as a crash or a drain would and runs the next one here (a store only this process uses; for tests). */
  readonly interrupt?: (id: string, how: InterruptKind) => Promise<Interrupted>;
}
