// The tasks whose work runs on this instance. Each keeps its actor (the inspector sees it here),
// fed every change in version order, whichever instance made it; a gap that the change channel
// cannot fill (a lost message) is closed by restarting the actor from the stored snapshot.
import { createActor, type InspectionEvent, type Observer } from "xstate";
import { taskMachine, type TaskEvent } from "../../../machines/task.machine.ts";
import type { TaskSnapshotLike } from "../../protocol/wire.ts";
import type { TaskEntry } from "../store.ts";

interface LocalTask {
  readonly entry: TaskEntry;
  /** The version the actor has reached. */
  applied: number;
  /** Changes that arrived ahead of one still missing. */
  readonly pending: Map<number, TaskEvent>;
  expiry?: ReturnType<typeof setTimeout>;
  /** The task's own changes, written one after the other. */
  queue: Promise<unknown>;
  /** Waiting for the actor to reach a version. */
  readonly catchUp: Set<() => void>;
}

// setTimeout's longest delay; a longer ttl waits in steps.
const MAX_DELAY = 2 ** 31 - 1;

export function createLocalTasks(options: {
  now: () => number;
  inspect?: () => Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined;
}) {
  const tasks = new Map<string, LocalTask>();

  const drain = (task: LocalTask) => {
    for (let event = task.pending.get(task.applied + 1); event; event = task.pending.get(task.applied + 1)) {
      task.pending.delete(task.applied + 1);
      task.applied++;
      task.entry.actor?.send(event);
    }
    for (const done of task.catchUp) done();
  };
  const armExpiry = (task: LocalTask) => {
    const { entry } = task;
    if (entry.expiresAt === Infinity) return;
    task.expiry = setTimeout(
      () => {
        if (options.now() < entry.expiresAt) return armExpiry(task);
        // Redis drops the key by itself; the work learns it here, with no message needed.
        entry.actor?.send({ type: "task.expire", at: options.now() });
      },
      Math.min(MAX_DELAY, Math.max(0, entry.expiresAt - options.now())),
    );
    task.expiry.unref?.();
  };

  return {
    add(entry: TaskEntry) {
      const task: LocalTask = { entry, applied: 1, pending: new Map(), queue: Promise.resolve(), catchUp: new Set() };
      tasks.set(entry.id, task);
      armExpiry(task);
    },
    remove(id: string) {
      const task = tasks.get(id);
      if (!task) return;
      tasks.delete(id);
      if (task.expiry) clearTimeout(task.expiry);
      task.pending.clear();
      for (const done of task.catchUp) done();
    },
    has: (id: string) => tasks.has(id),
    /** Change `version` of task `id` was `event`: applied once every earlier one is. */
    feed(id: string, version: number, event: TaskEvent) {
      const task = tasks.get(id);
      if (!task || version <= task.applied) return;
      task.pending.set(version, event);
      drain(task);
    },
    /** True when the actor has not reached `version` yet. */
    behind(id: string, version: number): boolean {
      const task = tasks.get(id);
      return !!task && task.applied < version;
    },
    /**
     * Resolves once the actor has reached `version` (the message of a change made elsewhere is usually
     * a moment behind its write), or after `ms`; true when it got there.
     */
    reach(id: string, version: number, ms: number): Promise<boolean> {
      const task = tasks.get(id);
      if (!task || task.applied >= version) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = () => {
          if (task.applied < version && tasks.has(id)) return;
          clearTimeout(timer);
          task.catchUp.delete(done);
          resolve(task.applied >= version);
        };
        const timer = setTimeout(() => {
          task.catchUp.delete(done);
          resolve(task.applied >= version);
        }, ms);
        task.catchUp.add(done);
      });
    },
    /** Restarts the actor from the stored snapshot at `version`; the runtime's observer sees its state at once. */
    resync(id: string, snapshot: TaskSnapshotLike, version: number) {
      const task = tasks.get(id);
      if (!task || version <= task.applied || !task.entry.actor) return;
      const { entry } = task;
      entry.actor!.stop();
      task.applied = version;
      for (const v of [...task.pending.keys()]) if (v <= version) task.pending.delete(v);
      const c = snapshot.context;
      const actor = createActor(taskMachine, {
        id,
        input: { taskId: id, now: c.createdAt, ttlMs: c.ttlMs, pollIntervalMs: c.pollIntervalMs },
        snapshot: taskMachine.resolveState({ value: snapshot.value, context: snapshot.context }),
        inspect: options.inspect?.(),
      });
      entry.actor = actor;
      if (entry.observer) actor.subscribe(entry.observer);
      actor.start();
      drain(task);
    },
    /** Runs `work` after the task's earlier own changes. */
    enqueue<T>(id: string, work: () => Promise<T>): Promise<T> {
      const task = tasks.get(id);
      if (!task) return work();
      const next = task.queue.then(work, work);
      task.queue = next.catch(() => {});
      return next;
    },
    /** Ends every task here with `event`, straight on its actor (used when Redis cannot be told). */
    endAll(event: () => TaskEvent) {
      for (const task of [...tasks.values()]) task.entry.actor?.send(event());
    },
    ids: () => [...tasks.keys()],
    get size() {
      return tasks.size;
    },
  };
}

export type LocalTasks = ReturnType<typeof createLocalTasks>;
