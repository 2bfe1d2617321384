// Listen streams of this instance, per task: fed by the runtime's own writes and by the store's feed
// (changes made by other instances), and by the periodic catch-up when a change was lost. A listener
// sees each change it hears of (a new status or a new attempt, `isNotified`) once, in version order.
import { isExpiredAt, type TaskEvent } from "../../machines/task.machine.ts";
import { isNotified, isTerminalStatus, type TaskSnapshot } from "./envelopes.ts";
import { nextSnapshot } from "./chart.ts";
import { expired } from "./logic/task-events.ts";

type Listener = (snapshot: TaskSnapshot) => void;

interface Listened {
  readonly listeners: Set<Listener>;
  /** The owner key the streams were agreed to with, for reading the task again. */
  readonly owner: string;
  /** The newest version seen and the last change delivered. */
  version: number;
  snapshot: TaskSnapshot;
}

export function createListeners() {
  const tasks = new Map<string, Listened>();
  let count = 0;

  const deliver = (id: string, task: Listened, snapshot: TaskSnapshot) => {
    task.snapshot = snapshot;
    for (const listener of task.listeners) {
      try {
        listener(snapshot);
      } catch {
        // A listener's failure is its own stream's problem, never the task's.
      }
    }
    if (isTerminalStatus(snapshot.value)) drop(id, task);
  };
  const drop = (id: string, task: Listened) => {
    if (tasks.get(id) !== task) return;
    tasks.delete(id);
    count -= task.listeners.size;
    task.listeners.clear();
  };
  const expire = (id: string, now: number): boolean => {
    const task = tasks.get(id);
    if (!task) return true;
    if (!isExpiredAt(task.snapshot.context, now)) return false;
    const event: TaskEvent = expired(now);
    const step = nextSnapshot(task.snapshot, event);
    if (step) deliver(id, task, step.snapshot);
    else drop(id, task);
    return true;
  };

  return {
    /** Starts delivering changes of a live task after `version`; returns the unsubscribe. */
    add(id: string, owner: string, snapshot: TaskSnapshot, version: number, listener: Listener): () => void {
      let task = tasks.get(id);
      if (!task) {
        task = { listeners: new Set(), owner, version, snapshot };
        tasks.set(id, task);
      }
      const entry = task;
      entry.listeners.add(listener);
      count++;
      return () => {
        if (!entry.listeners.delete(listener)) return;
        count--;
        if (entry.listeners.size === 0 && tasks.get(id) === entry) tasks.delete(id);
      };
    },
    /**
     * A change of `id` to `version`; `snapshot` when listeners hear of it (`isNotified`: its status or its
     * attempt changed), or the newest known state, from a catch-up read. Older versions are ignored, so a
     * late change never goes back in time.
     */
    changed(id: string, version: number, snapshot: TaskSnapshot | undefined) {
      const task = tasks.get(id);
      if (!task || version <= task.version) return;
      task.version = version;
      if (snapshot && isNotified(task.snapshot, snapshot)) deliver(id, task, snapshot);
    },
    /** A listened task's final state, read back from the store: it ends whatever version was seen. */
    finished(id: string, snapshot: TaskSnapshot) {
      const task = tasks.get(id);
      if (task) deliver(id, task, snapshot);
    },
    /** Delivers the expiry of a listened task whose time has come; false while it is not due. */
    expire,
    /** A listened task that is gone from the store: its expiry if due, otherwise nothing more can come. */
    gone(id: string, now: number) {
      const task = tasks.get(id);
      if (task && !expire(id, now)) drop(id, task);
    },
    /** Every listened task's id and owner, for the catch-up. */
    entries: () => [...tasks.entries()].map(([id, task]) => ({ id, owner: task.owner })),
    has: (id: string) => tasks.has(id),
    version: (id: string) => tasks.get(id)?.version,
    get taskCount() {
      return tasks.size;
    },
    get listenerCount() {
      return count;
    },
  };
}

export type Listeners = ReturnType<typeof createListeners>;
