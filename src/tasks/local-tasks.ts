// The tasks whose work runs in this process, each with its actor (the inspector sees it here), who
// follows its status, and the view of it its run holds (run-view.ts). With a shared store the actor is fed every change in
// version order, whichever instance made it; a gap that the feed cannot fill (a lost change) is closed
// by restarting the actor from the stored snapshot. This is the actor side: nothing here is persisted.
import { type AnyActorRef, createActor, type InspectionEvent, type Observer } from "xstate";
import { isExpiredAt, taskMachine, type TaskEvent } from "../../machines/task.machine.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { TaskFence } from "./store.ts";
import { unrefTimerAt } from "../utils/timers.ts";
import { expired } from "./logic/task-events.ts";
import { RunView, type Follower, type LeaveReason, type RunEngine, type TaskOfRun, type ViewedTask } from "./run-view.ts";

type Inspector = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

export type { Follower, LeaveReason } from "./run-view.ts";

/** One task whose work runs here: the engine's record of it (its run holds a view of it, `runView`). */
export class LocalTask implements ViewedTask {
  /** The running actor; undefined once the task is final. */
  actor: AnyActorRef | undefined;
  /** The runtime's observer of the actor's snapshots, subscribed again when the actor restarts. */
  observer: ((snapshot: TaskSnapshot) => void) | undefined;
  /** The run's observer of the task: told every snapshot the runtime recorded, last. */
  watch: ((snapshot: TaskSnapshot) => void) | undefined;
  /** The result the run finished with and its JSON, so the final `tasks/get` JSON does not serialise it again. */
  result: { readonly value: object; readonly json: string } | undefined;
  /** The last snapshot seen, and the version of the task it is (the actor has applied every change up to it). */
  snapshot: TaskSnapshot;
  applied = 1;
  followers: Set<Follower> | undefined;
  /** With a shared store: how changes reach the actor in order. */
  sync: SharedSync | undefined;
  /**
   * For a run found by name: the attempt this process holds. Its writes carry it, so that the store refuses
   * them once another attempt holds the task.
   */
  fence: TaskFence | undefined;
  maxAttempts = 1;
  /** Told, once, when the task stops running here without ending (its attempt was fenced, or handed off). */
  leaving: Set<(why: LeaveReason) => void> | undefined;
  /** Told why an attempt here stopped without ending the task, after `leaving`: its run's signal aborts. */
  stopped: ((why: LeaveReason) => void) | undefined;

  constructor(
    readonly id: string,
    /**
     * The owner key the task was created with; null for a task claimed from the store, whose owner this
     * instance never saw (a client's change to it is checked by the store's read instead).
     */
    readonly owner: string | null,
    readonly expiresAt: number,
    actor: AnyActorRef,
    snapshot: TaskSnapshot,
  ) {
    this.actor = actor;
    this.snapshot = snapshot;
  }

  current(): TaskSnapshot | undefined {
    return this.actor?.getSnapshot() as TaskSnapshot | undefined;
  }

  follow(listener: Follower): () => void {
    const followers = (this.followers ??= new Set());
    followers.add(listener);
    return () => followers.delete(listener);
  }

  onLeave(listener: (why: LeaveReason) => void): () => void {
    (this.leaving ??= new Set()).add(listener);
    return () => this.leaving?.delete(listener);
  }

  /** The view of this task a run holds, reporting to `engine` (the runtime). */
  runView(engine: RunEngine<LocalTask>): TaskOfRun {
    return new RunView(this, engine);
  }
}

/** What a task needs with a shared store, where changes made elsewhere reach its actor through the feed. */
class SharedSync {
  /** Changes that arrived ahead of one still missing. */
  readonly pending = new Map<number, TaskEvent>();
  /** Cancels the timer that ends the task at its expiry. */
  cancelExpiry: (() => void) | undefined;
  /** The task's own changes, written one after the other. */
  queue: Promise<unknown> = Promise.resolve();
  /** Compare-and-sets of this task under way from here: until they are answered the actor may be behind. */
  writing = 0;
  /** The last change queued, while it has not started: a status update there may still be replaced. */
  waiting: { event: TaskEvent; readonly done: Promise<void> } | undefined;
  /** Waiting for the actor to reach a version. */
  readonly catchUp = new Set<() => void>();
}

export function createLocalTasks(options: { now: () => number; inspect?: Inspector }) {
  const tasks = new Map<string, LocalTask>();

  const drain = (task: LocalTask, sync: SharedSync) => {
    const pending = sync.pending;
    for (let event = pending.get(task.applied + 1); event; event = pending.get(task.applied + 1)) {
      pending.delete(task.applied + 1);
      task.applied++;
      task.actor?.send(event);
    }
    for (const done of sync.catchUp) done();
  };
  const syncOf = (task: LocalTask) => (task.sync ??= new SharedSync());
  /** Ends the task at its time, straight on its actor: the store drops it by itself, with no write needed. */
  const armExpiry = (task: LocalTask, sync: SharedSync) => {
    sync.cancelExpiry = unrefTimerAt(task.expiresAt, options.now, () => expireHere(task));
  };
  const expireHere = (task: LocalTask) => {
    const at = options.now();
    if (isExpiredAt(task.snapshot.context, at)) task.actor?.send(expired(at));
  };

  return {
    add(task: LocalTask) {
      tasks.set(task.id, task);
    },
    /** With a shared store nothing else reaches the actor at its expiry: a timer of its own does (unreferenced). */
    armExpiry(task: LocalTask) {
      if (task.expiresAt !== Infinity && tasks.get(task.id) === task) armExpiry(task, syncOf(task));
    },
    /** A task that ended (its actor reached a final state). */
    remove(task: LocalTask) {
      tasks.delete(task.id);
      const sync = task.sync;
      if (!sync) return;
      sync.cancelExpiry?.();
      sync.pending.clear();
      for (const done of sync.catchUp) done();
    },
    get: (id: string) => tasks.get(id),
    has: (id: string) => tasks.has(id),
    /** Ends a task whose time has come with the chart's `task.expire`. */
    expireHere,
    /**
     * The actor's snapshot and the version it reached, standing in for a read of the store. Undefined when
     * it cannot: the task runs elsewhere or is final, a change heard from the feed waits for an earlier one,
     * or a write from here is under way (the caller then reads the store, and that read, queued behind the
     * write, sees its outcome). What it gives is what the store holds unless a change made elsewhere is on
     * its way; the compare-and-set made from it is then refused, and the caller reads the store.
     */
    current(id: string): { snapshot: TaskSnapshot; version: number; task: LocalTask } | undefined {
      const task = tasks.get(id);
      const snapshot = task?.actor?.getSnapshot();
      if (!task || task.sync?.pending.size || task.sync?.writing || snapshot?.status !== "active") return undefined;
      return { snapshot, version: task.applied, task };
    },
    /** Change `version` of task `id` was `event`: applied once every earlier one is. */
    feed(id: string, version: number, event: TaskEvent) {
      const task = tasks.get(id);
      if (!task || version <= task.applied) return;
      const sync = syncOf(task);
      sync.pending.set(version, event);
      drain(task, sync);
    },
    /** Runs `write`, a compare-and-set of task `id`, counted as under way meanwhile. */
    async writing<T>(id: string, write: () => T | Promise<T>): Promise<T> {
      const task = tasks.get(id);
      if (!task) return write();
      const sync = syncOf(task);
      sync.writing++;
      try {
        return await write();
      } finally {
        sync.writing--;
      }
    },
    /** True when the actor has not reached `version` yet. */
    behind(id: string, version: number): boolean {
      const task = tasks.get(id);
      return !!task && task.applied < version;
    },
    /**
     * Resolves once the actor has reached `version` (a change made elsewhere usually arrives a moment
     * after its write), or after `ms`; true when it got there.
     */
    reach(id: string, version: number, ms: number): Promise<boolean> {
      const task = tasks.get(id);
      if (!task || task.applied >= version) return Promise.resolve(true);
      const waiting = syncOf(task).catchUp;
      return new Promise((resolve) => {
        const done = () => {
          if (task.applied < version && tasks.has(id)) return;
          clearTimeout(timer);
          waiting.delete(done);
          resolve(task.applied >= version);
        };
        const timer = setTimeout(() => {
          waiting.delete(done);
          resolve(task.applied >= version);
        }, ms);
        waiting.add(done);
      });
    },
    /** Restarts the actor from the stored snapshot at `version`; the runtime's observer sees its state at once. */
    resync(id: string, snapshot: TaskSnapshot, version: number) {
      const task = tasks.get(id);
      if (!task || version <= task.applied || !task.actor) return;
      task.actor.stop();
      task.applied = version;
      const sync = syncOf(task);
      for (const v of [...sync.pending.keys()]) if (v <= version) sync.pending.delete(v);
      const c = snapshot.context;
      const actor = createActor(taskMachine, {
        id,
        input: { taskId: id, now: c.createdAt, ttlMs: c.ttlMs, pollIntervalMs: c.pollIntervalMs },
        snapshot: taskMachine.resolveState({ value: snapshot.value, context: snapshot.context }),
        inspect: options.inspect,
      });
      task.actor = actor;
      if (task.observer) actor.subscribe(task.observer);
      actor.start();
      drain(task, sync);
    },
    /**
     * Writes `event` with `write` after the task's earlier changes made here. A status update replaces one
     * still waiting at the end of the queue (only the latest message matters, and a run reporting in a
     * tight loop must not queue writes faster than the store takes them); both settle together.
     */
    enqueue(task: LocalTask, event: TaskEvent, write: (event: TaskEvent) => Promise<void>): Promise<void> {
      if (tasks.get(task.id) !== task) return write(event);
      const sync = syncOf(task);
      const waiting = sync.waiting;
      if (event.type === "status.update" && waiting?.event.type === "status.update") {
        waiting.event = event;
        return waiting.done;
      }
      const run = (): Promise<void> => {
        if (sync.waiting === slot) sync.waiting = undefined;
        return write(slot.event);
      };
      const slot: { event: TaskEvent; done: Promise<void> } = { event, done: sync.queue.then(run, run) };
      sync.waiting = slot;
      sync.queue = slot.done.catch(() => {});
      return slot.done;
    },
    /**
     * Runs `job` (a client's change to a task that runs here) after the task's earlier changes made here,
     * so that the run's own writes and the client's never race each other for the same version.
     */
    serialize<T>(task: LocalTask, job: () => Promise<T>): Promise<T> {
      if (tasks.get(task.id) !== task) return job();
      const sync = syncOf(task);
      // A status update queued after this point goes after this change: it must not replace one queued before it.
      sync.waiting = undefined;
      const done = sync.queue.then(job, job);
      sync.queue = done.catch(() => {});
      return done;
    },
    /** Ends every task here with `event`, straight on its actor (when the store cannot be told). */
    endAll(event: () => TaskEvent) {
      for (const task of [...tasks.values()]) task.actor?.send(event());
    },
    ids: () => [...tasks.keys()],
    get size() {
      return tasks.size;
    },
  };
}

export type LocalTasks = ReturnType<typeof createLocalTasks>;
