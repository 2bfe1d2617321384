// The tasks runtime, over any store: it creates each task (its actor, its record, its run) and serves
// every later request for it. The actor side lives here (local-tasks.ts, task-run.ts), the records in the
// store (store.ts is the contract). With a store only this process uses, a task's actor takes each event
// first and what it became is written; with a shared one, a change is the chart's transition of the
// stored snapshot, written by compare-and-set (changes.ts), then told to the actor.
import { createActor, type InspectionEvent, type Observer } from "xstate";
import { taskMachine, type TaskEvent } from "../../machines/task.machine.ts";
import { internalError, McpJsonRpcError, taskOwnerFull, taskStoreFull } from "../protocol/errors.ts";
import type { McpContext } from "../features/request-context.ts";
import type { McpTaskOptions } from "../features/task-api.ts";
import type { CreateTaskResult } from "../protocol/types.ts";
import { isTerminalStatus, toCreateTaskResult, toGetTaskResultJson, type TaskSnapshotLike } from "../protocol/wire.ts";
import { after, type MaybePromise } from "../utils/maybe-promise.ts";
import { lostEvent } from "./chart.ts";
import { createChanges, type EventOf } from "./changes.ts";
import { untilIdle, type KeepAlive } from "./keep-alive.ts";
import { createListeners } from "./listeners.ts";
import { createLocalTasks, LocalTask } from "./local-tasks.ts";
import { startTaskRun, type TaskHooks } from "./run-hooks.ts";
import { createSharedTick } from "./shared-tick.ts";
import type { CreateOutcome, TaskLimits, TaskOrigin, TaskRecord, TaskStore } from "./store.ts";
import { TaskRun, type RunRuntime } from "./task-run.ts";

export interface TaskRuntimeOptions {
  store: TaskStore;
  limits: TaskLimits;
  ttlMs: number | null;
  pollIntervalMs: number;
  now: () => number;
  newId: () => string;
  /** Whether tasks are bound to their callers (the store may need a key for that). */
  bound: boolean;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

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

export function createTaskRuntime(options: TaskRuntimeOptions) {
  const { store, now, limits } = options;
  const shared = store.shared;
  const local = createLocalTasks({ now, inspect: options.inspect });
  const listeners = createListeners();
  const changes = createChanges({ store, local, listeners });
  const tick = shared ? createSharedTick({ store, local, listeners, changes, now }) : undefined;

  store.connect({
    now,
    limits,
    bound: options.bound,
    feed: {
      wants: (id, version) => listeners.has(id) || local.behind(id, version),
      changed(change) {
        if (change.event) local.feed(change.id, change.version, change.event);
        listeners.changed(change.id, change.version, change.snapshot);
      },
      expired(id) {
        const task = local.get(id);
        if (task) local.expireHere(task);
      },
      missed: () => tick?.missed(),
    },
  });

  /** The actor side of a task's run. */
  const runRuntime: RunRuntime = {
    dispatch(task, event) {
      // After the final state the actor is gone: a late outcome changes nothing.
      if (!shared) return void task.actor?.send(event);
      return local.enqueue(task, event, async (latest) => {
        const started = performance.now();
        await writeOwn(task, latest);
        // A run reporting progress without pause would take every moment the store has for this task, and a
        // client's change made elsewhere (a read, then a compare-and-set) would never find one free: after
        // a status update the task's queue rests as long as the write took.
        if (latest.type === "status.update") await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
      });
    },
    observed(task, snapshot, resultJson) {
      const previous = task.snapshot;
      // The actor also reports an event that changed nothing, with the very same snapshot.
      if (snapshot === previous) return;
      task.snapshot = snapshot;
      const statusChanged = snapshot.value !== previous.value;
      const final = isTerminalStatus(snapshot.value);
      if (!shared) {
        // Nobody else writes this store: the write cannot conflict, and it is synchronous.
        const version = ++task.applied;
        void store.write(task.id, { version, snapshot, statusChanged, json: final ? toGetTaskResultJson(snapshot, resultJson) : undefined });
        if (statusChanged && listeners.taskCount) listeners.changed(task.id, version, snapshot);
      }
      if (statusChanged && task.followers) {
        for (const follow of task.followers) {
          try {
            follow(snapshot);
          } catch {
            // A follower's failure is its own request's problem, never the task's.
          }
        }
      }
      if (!final) return;
      local.remove(task);
      const actor = task.actor;
      task.actor = undefined;
      task.followers = undefined;
      actor?.stop();
    },
  };

  // Retries a change of the work while the store is unreachable, for as long as the task runs here
  // (a worker cut off for longer than its lease ends its tasks itself).
  const writeOwn = async (task: LocalTask, event: TaskEvent): Promise<void> => {
    for (;;) {
      try {
        // The actor here holds what the store holds, unless another instance's change is on its way.
        if ((await changes.applyLocal(task.id, () => event, undefined, now())) !== "refused") return;
        await changes.apply(task.id, task.owner, () => event);
        return;
      } catch (error) {
        if (!local.has(task.id) || !isUnavailable(error)) return;
        await new Promise((resolve) => (setTimeout(resolve, Math.min(500, (store.leaseMs ?? 2000) / 4)) as { unref?: () => void }).unref?.());
      }
    }
  };

  /**
   * Judges a task as read: gone past its expiry (a live one is ended with the chart's `task.expire` first,
   * which tells its run and its listeners), failed if the instance running it is lost.
   */
  const judge = (id: string, owner: string, task: TaskRecord | undefined): MaybePromise<TaskRecord | undefined> => {
    if (!task) return undefined;
    const at = now();
    if (task.json !== undefined) return task.expiresAt <= at ? undefined : task;
    if (task.expiresAt <= at) {
      if (!shared) {
        const here = local.get(id);
        if (here) local.expireHere(here);
        return undefined;
      }
      return changes.apply(id, owner, () => ({ type: "task.expire", at }), task).then(() => undefined);
    }
    return task.workerAlive ? task : changes.apply(id, owner, () => lostEvent(at), task);
  };
  /** The task if it exists, is not expired and belongs to `owner`. */
  const find = (id: string, owner: string, listen = false): MaybePromise<TaskRecord | undefined> =>
    after(store.read(id, owner, listen), (task) => judge(id, owner, task));

  /** A change a client asks for (an answer, a cancel), in a shared store. */
  const sendShared = async (id: string, owner: string, eventOf: EventOf): Promise<LocalTask | boolean> => {
    const here = local.get(id);
    if (here) {
      if (owner !== here.owner) return false;
      // Queued behind the run's own writes here, then tried from the actor's snapshot. A change that would
      // change nothing there is read again: the actor may not have heard of a change made elsewhere yet.
      const found = await local.serialize(here, async () => ((await changes.applyLocal(id, eventOf, owner, now())) === "written" ? true : applyRead(id, owner, eventOf)));
      return found && here;
    }
    return applyRead(id, owner, eventOf);
  };
  /** Reads the task, judges it, and applies the change to it; false when it is unknown or foreign. */
  const applyRead = async (id: string, owner: string, eventOf: EventOf): Promise<boolean> => {
    const task = await find(id, owner);
    if (!task) return false;
    if (task.snapshot) await changes.apply(id, owner, eventOf, task);
    return true;
  };

  /** The error a refused creation answers with. */
  const refusal = (outcome: Exclude<CreateOutcome, "created">) => (outcome === "full" ? taskStoreFull(limits.max) : taskOwnerFull(limits.maxPerOwner));

  return {
    refusal,
    /**
     * Creates the actor, stores the task, starts `run`, and returns the handle (already retrievable).
     * `keepAlive` gives the request's waitUntil, asked for only when the run goes on after this call: it
     * gets the work this request set going (see `untilIdle`), so a platform that ends work with the
     * response (Workers) lets the run go on.
     */
    create(owner: string, ctx: McpContext, task: McpTaskOptions, keepAlive: () => KeepAlive, origin?: TaskOrigin, hooks?: TaskHooks): MaybePromise<CreateTaskResult> {
      const id = options.newId();
      const at = now();
      const actor = createActor(taskMachine, {
        id,
        input: { taskId: id, now: at, ttlMs: options.ttlMs, pollIntervalMs: options.pollIntervalMs, statusMessage: task.statusMessage },
        inspect: options.inspect,
      });
      const snapshot = actor.getSnapshot() as TaskSnapshotLike;
      const expiresAt = options.ttlMs === null ? Infinity : at + options.ttlMs;
      const begin = (outcome: CreateOutcome): CreateTaskResult => {
        if (outcome !== "created") throw refusal(outcome);
        ctx["~becameTask"]();
        const entry = new LocalTask(id, owner, expiresAt, actor, snapshot);
        local.add(entry);
        const run = new TaskRun(entry, runRuntime, ctx.clientCapabilities, now, origin);
        if (tick) {
          tick.leased();
          local.armExpiry(entry);
          tick.wake();
        }
        actor.subscribe(entry.observer!);
        actor.start();
        const handle = toCreateTaskResult(snapshot);
        const ran = startTaskRun(run, task.run, entry, ctx["~tool"], origin, hooks);
        // A run that ended in this call (and a store that recorded it at once) leaves nothing to keep alive.
        if (ran) {
          const alive = keepAlive();
          alive.waitUntil(Promise.race([ran, untilIdle(entry, alive.holdParkedMs)]));
        }
        return handle;
      };
      // A shared store holds the task before the handle exists, so another instance finds it at once.
      let created: MaybePromise<CreateOutcome>;
      try {
        created = store.create({ id, owner, expiresAt, snapshot, origin });
      } catch (error) {
        throw storeFailure(error);
      }
      return typeof created === "string" ? begin(created) : created.then(begin, (error: unknown) => Promise.reject(storeFailure(error)));
    },
    /** The task if it exists, is not expired and belongs to `owner`. */
    get: (id: string, owner: string) => find(id, owner),
    /**
     * Applies a client's change (the event made from the task's snapshot when it is applied). False when
     * the task is unknown or foreign; the task when its run is here (the request may keep it alive); true
     * otherwise (a finished task, which ignores events, or one running elsewhere).
     */
    send(id: string, owner: string, eventOf: EventOf): MaybePromise<LocalTask | boolean> {
      if (shared) return sendShared(id, owner, eventOf);
      const task = local.get(id);
      const actor = task?.actor;
      if (!actor || task.owner !== owner || task.expiresAt <= now()) return after(find(id, owner), (found) => !!found);
      const event = eventOf(task.snapshot);
      if (event) actor.send(event);
      return task;
    },
    /** Subscribes `listener` to the task's later status changes; undefined when the caller may not have it. */
    subscribe(id: string, owner: string, listener: (snapshot: TaskSnapshotLike) => void): MaybePromise<TaskSubscription | undefined> {
      return after(find(id, owner, true), (task) => {
        if (!task) return undefined;
        if (task.json !== undefined) return { task, off: () => {} };
        const off = listeners.add(id, owner, task.snapshot, task.version, task.expiresAt, listener);
        tick?.wake();
        return { task, off };
      });
    },
    /**
     * Tells the expiry of a task whose time has come to whoever is here to hear it (its run, or listen
     * streams), for a listen stream's timer. False while it is not due yet; true once it is (or is final
     * or gone), so a timer that fired early knows to wait again.
     */
    expire(id: string): boolean {
      const task = local.get(id);
      if (!task?.actor) return listeners.expire(id, now());
      if (task.expiresAt > now()) return false;
      local.expireHere(task);
      return true;
    },
    get stats(): TaskRuntimeStats {
      return {
        localTasks: local.size,
        listenedTasks: listeners.taskCount,
        listeners: listeners.listenerCount,
        timer: tick?.running ?? false,
        casRetries: changes.casRetries(),
      };
    },
  };
}

export type TaskRuntime = ReturnType<typeof createTaskRuntime>;

/**
 * What a store threw at creation, as the call answers it: its own JSON-RPC error (the store is unavailable),
 * or a plain -32603 whose cause (a setup mistake, a store's bug) only `onError` sees.
 */
function storeFailure(error: unknown): McpJsonRpcError {
  return McpJsonRpcError.isError(error) ? error : internalError(error);
}

/** A store that cannot be reached answers with a 503: the run's own changes are retried meanwhile. */
function isUnavailable(error: unknown): boolean {
  return McpJsonRpcError.isError(error) && error.status === 503;
}
