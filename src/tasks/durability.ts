// What keeps tasks going across processes, plugged into the engine at mount (`TaskDurability`): the drain,
// the executor's first delivery, and, with a store several instances share, the lease and catch-up tick
// (shared-tick.ts), claims of tasks waiting for an attempt, the judgement of a lost holder, and the hand-off
// of a drain. Tasks of runs found by name pass from one attempt to the next here: a lost or released one is
// claimed by an instance serving its run (`claimTask`, also a worker's `execute`) or started by its executor,
// a drain hands its own off, and an attempt whose writes the store refuses as fenced stops. Every judgement
// of a task's life in this is the chart's, from the events it sends (logic/task-events.ts).
import type { McpTaskRunDefinition } from "../features/task-api.ts";
import { AttemptFenced, type Changes } from "./changes.ts";
import { drainDeadline, drainTasks } from "./drain.ts";
import type { TaskEngine } from "./engine.ts";
import { afterEvent, interruptAttempt } from "./interrupt.ts";
import { isNotified } from "./envelopes.ts";
import type { DrainOptions, DrainReport, TaskExecution } from "./executor.ts";
import { startAttempt, startNextAttempt } from "./execution-host.ts";
import type { LocalTask } from "./local-tasks.ts";
import { attemptClaimed, attemptLost, handedOff, instanceLost, unserved } from "./logic/task-events.ts";
import { waitedUnserved } from "./runtime-parts.ts";
import { createSharedTick } from "./shared-tick.ts";
import type { LiveTaskRecord, TaskRecord, TaskRunRecord } from "./store.ts";
import type { InterruptKind, Interrupted, TaskDurability } from "./runtime.ts";

/** How many leases a task of a run found by name waits for a claim before it fails as unserved. */
export const UNSERVED_LEASES = 3;

// Tasks claimed per look at the store's waiting list (the rest wait for the next look, a third of a lease on).
const CLAIM_BATCH = 16;

/** The durability part for `engine`'s store: the drain alone for a store only this process uses, all of it for a shared one. */
export function plugDurability(engine: TaskEngine): TaskDurability {
  const { store, now, options } = engine;
  let draining = false;
  let drained: Promise<DrainReport> | undefined;
  const changes = engine.writes.changes;
  const handsOff = !!changes && !!store.claim && !!store.release;

  const drain = (drainOptions: DrainOptions): Promise<DrainReport> => {
    if (drained) return drained;
    let deadlineMs: number;
    try {
      deadlineMs = drainDeadline(drainOptions);
    } catch (error) {
      return Promise.reject(error);
    }
    draining = true;
    const parts = { local: engine.local, now, dispatch: engine.dispatch.bind(engine), idle: () => engine.idle(), ...(handsOff && { handOff }) };
    return (drained = drainTasks(parts, deadlineMs));
  };
  const deliver = (attempt: Parameters<TaskDurability["deliver"]>[0]) =>
    startAttempt(options.executor!, attempt, (message, data) => engine.fail(attempt.taskId, message, data));

  /**
   * A drain's hand-off: the chart releases the task (a hand-off spends none of its run's attempts), the
   * store lets another instance claim it at once, and the run here stops with the `shutdown` reason.
   */
  async function handOff(task: LocalTask): Promise<boolean> {
    const fence = task.fence;
    if (!fence || !changes) return false;
    const { maxAttempts } = task;
    try {
      const released = await engine.local.serialize(task, async () => {
        // The chart decides: released (another instance may claim it), or failed when the run allows no
        // other attempt (a single-attempt run is never handed off, and fails saying the instance shut down).
        const after = await changes.apply(task.id, task.owner, () => handedOff(maxAttempts, now()), undefined, fence);
        if (after?.snapshot?.context.released !== true) return "ended";
        return store.release!(task.id, fence);
      });
      if (released !== "written") return false;
    } catch {
      return false;
    }
    engine.leave(task, "shutdown");
    return true;
  }

  const common = { handsOff, drain, deliver };
  if (changes) return sharedDurability(engine, changes, common, () => draining);
  const nothing = () => {};
  return {
    ...common,
    get draining() {
      return draining;
    },
    ticking: false,
    connected: nothing,
    started: nothing,
    listening: nothing,
    missed: nothing,
    interrupt: (id, how) => interruptHere(engine, id, how),
  };
}

/** The parts of a shared store's: leases, claims, lapses. */
function sharedDurability(engine: TaskEngine, changes: Changes, common: Pick<TaskDurability, "handsOff" | "drain" | "deliver">, draining: () => boolean): TaskDurability {
  const { store, local, listeners, now, options } = engine;
  const leaseMs = store.leaseMs ?? 15_000;
  /** When this instance first saw each task waiting for a claim of a run it does not serve (for `unserved`). */
  const waitingSeen = new Map<string, number>();
  const executor = options.executor;
  const claimsHere = options.runs.size > 0 && options.claims !== false;

  /**
   * Claims the next attempt of task `id` and runs it here: the previous holder's loss and this claim go to
   * the chart first (which fails the task once no attempt is left), then the run's record is read (a record
   * the store refused fails the task, never runs). Resolves once the attempt ended here: finished (its end
   * stored), fenced (it lost its hold on the task: this instance's lease went, or another attempt holds it),
   * handed off by a drain, or without a claim (taken, gone, unserved, draining).
   */
  const claimTask = async (id: string): Promise<TaskExecution> => {
    if (draining()) return { outcome: "draining" };
    if (!store.claim || !store.readHeld || !store.loadRun) return { outcome: "gone" };
    if (local.has(id)) return { outcome: "taken", retryInMs: Math.ceil(leaseMs / 3) };
    const read = await store.readHeld(id);
    if (!read?.snapshot || !read.hold) return { outcome: "gone" };
    const { name, version } = read.hold;
    const run = options.runs.get(name);
    if (!run || run.version < version) return { outcome: "unserved", name, version };
    const claimed = await store.claim(id);
    if (claimed.outcome !== "claimed") return claimed;
    const attempt = claimed.attempt;
    const fence = { attempt };
    const { maxAttempts } = run;
    let task: TaskRecord | undefined;
    try {
      // The chart judges the claim whole: the previous holder's loss, the attempts spent, the budget.
      task = await changes.apply(id, null, () => attemptClaimed(attempt, now(), maxAttempts), read, fence);
    } catch (error) {
      if (error instanceof AttemptFenced) return { outcome: "fenced", attempt };
      throw error;
    }
    if (!task) return { outcome: "gone" };
    if (!task.snapshot) return { outcome: "finished", status: task.status, attempt };
    const loaded = await store.loadRun(id);
    if (loaded.outcome === "gone") return { outcome: "gone" };
    if (loaded.outcome === "refused") {
      const failed = await changes.apply(id, null, () => attemptLost("refused", false, maxAttempts, now()), task, fence).catch(() => undefined);
      return failed?.json !== undefined ? { outcome: "finished", status: failed.status, attempt } : { outcome: "fenced", attempt };
    }
    return runHere(id, task, loaded.record, run, attempt);
  };

  /** Runs a claimed attempt here; resolves once it ended here (see `claimTask`). */
  const runHere = (id: string, task: LiveTaskRecord, record: TaskRunRecord, run: McpTaskRunDefinition, attempt: number): Promise<TaskExecution> =>
    new Promise<TaskExecution>((resolve) => {
      // A task claimed here has no owner known here: the store's read checks a client's.
      engine.runAttemptHere(id, null, task, record, run, attempt, (entry) => {
        (entry.followers ??= new Set()).add((snapshot) => {
          if (snapshot.value === "completed" || snapshot.value === "failed" || snapshot.value === "cancelled") resolve({ outcome: "finished", status: snapshot.value, attempt });
        });
        // Why the attempt left, not whether this process drains: an attempt fenced during a drain was not handed off.
        (entry.leaving ??= new Set()).add((why) => resolve(why === "shutdown" ? { outcome: "handed_off", attempt } : { outcome: "fenced", attempt }));
      });
    });

  /** A task waiting for its next attempt: claimed here, or started by an executor that does not redeliver. */
  const takeWaiting: (id: string, last?: number) => Promise<unknown> = executor ? (id, last) => startNextAttempt(store, executor, id, last) : claimTask;

  /** Claims tasks waiting for an attempt of a run this instance serves (the tick's look, every third of a lease). */
  const claimWaiting = async (): Promise<void> => {
    if (draining()) return;
    const runs = options.runs;
    const waiting = await store.claimable!([...runs.keys()], CLAIM_BATCH);
    for (const task of waiting) {
      const run = runs.get(task.name);
      if (run && run.version >= task.version && !local.has(task.id)) void takeWaiting(task.id, task.attempt).catch(() => {});
    }
  };

  /**
   * A task whose holder's lease lapsed, or that waits for a claim: failed as unserved once it waited
   * `UNSERVED_LEASES` leases for a run no instance here serves, else left waiting; with `claim` (the lease
   * tick's look, never a client's read), claimed here when this instance serves its run. A closure's task
   * fails (its run cannot go on elsewhere).
   */
  const lapsed = (id: string, owner: string, task: LiveTaskRecord, claim: boolean): Promise<TaskRecord | undefined> => {
    const at = now();
    const hold = task.hold;
    if (!hold) return changes.apply(id, owner, () => instanceLost(at), task);
    // An executor delivers these runs, and fails what it gives up on: a queue's backlog is not unserved.
    if (options.claims === false) return Promise.resolve(task);
    const run = options.runs.get(hold.name);
    if (run && run.version >= hold.version) {
      waitingSeen.delete(id);
      if (claim) void takeWaiting(id, hold.attempt).catch(() => {});
      return Promise.resolve(task);
    }
    if (!waitedUnserved(waitingSeen, id, hold.waitingSince, at, UNSERVED_LEASES * leaseMs)) return Promise.resolve(task);
    return changes.apply(id, owner, () => unserved(at), task);
  };

  const claims = claimsHere && !!store.claimable;
  const tick = createSharedTick({
    store,
    local,
    listeners,
    changes,
    now,
    lapsed: (id, owner, task) => lapsed(id, owner, task, true),
    fence: engine.fenced,
    ...(claims && { claimWaiting }),
  });

  return {
    ...common,
    get draining() {
      return draining();
    },
    get ticking() {
      return tick.running;
    },
    connected() {
      if (claims) tick.wake();
    },
    started(task) {
      // Nothing else reaches the actor at its expiry: a timer of its own does.
      tick.leased();
      local.armExpiry(task);
      tick.wake();
    },
    listening: () => tick.wake(),
    missed: () => tick.missed(),
    // A hand-off elsewhere (or a task created for a claim): claimed at once, not a third of a lease later.
    ...(claimsHere && {
      released(id: string, name: string) {
        if (options.runs.has(name) && !draining()) void takeWaiting(id).catch(() => {});
      },
    }),
    judgeLive(id, owner, task) {
      if (task.workerAlive && !task.hold?.released) {
        if (waitingSeen.size) waitingSeen.delete(id);
        return task;
      }
      return lapsed(id, owner, task, false);
    },
    claimTask,
  };
}

/** Stops the attempt running here as a crash or a drain of this process would, and runs the next one here (interrupt.ts). */
function interruptHere(engine: TaskEngine, id: string, how: InterruptKind): Promise<Interrupted> {
  const { store, listeners, options, now } = engine;
  return interruptAttempt(
    {
      store,
      now,
      local: (taskId) => engine.local.get(taskId),
      leave: (task, why) => engine.leave(task, why),
      async record(taskId, task, event, attempt) {
        const next = afterEvent(task, event);
        if (!next) return undefined;
        const notified = isNotified(task.snapshot, next.snapshot);
        if ((await store.write(taskId, { version: next.version, snapshot: next.snapshot, statusChanged: notified, fence: { attempt } })) !== "written") return undefined;
        if (notified && listeners.taskCount) listeners.changed(taskId, next.version, next.snapshot);
        return next;
      },
      runHere: async (taskId, owner, task, attempt) => {
        const loaded = await store.loadRun!(taskId);
        const run = loaded.outcome === "loaded" ? options.runs.get(loaded.record.name) : undefined;
        if (loaded.outcome !== "loaded" || !run) throw new Error(`interruptTask: the run record of task ${taskId} could not be loaded (${loaded.outcome})`);
        engine.runAttemptHere(taskId, owner, task, loaded.record, run, attempt);
      },
    },
    id,
    how,
  );
}
