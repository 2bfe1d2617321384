// Listen streams on this instance, fed by the change channel (every instance publishes there),
// and by the reconciling tick when a message was lost. A listener sees each status change once.
import type { TaskEvent, TaskStateValue } from "../../../machines/task.machine.ts";
import { isTerminalStatus, type TaskSnapshotLike } from "../../protocol/wire.ts";
import { nextSnapshot } from "./chart.ts";

type Listener = (snapshot: TaskSnapshotLike) => void;

interface Listened {
  readonly listeners: Set<Listener>;
  /** The newest version seen and the last status change delivered. */
  version: number;
  snapshot: TaskSnapshotLike;
  readonly expiresAt: number;
}

export function createListeners() {
  const tasks = new Map<string, Listened>();
  let count = 0;

  const deliver = (id: string, task: Listened, snapshot: TaskSnapshotLike) => {
    task.snapshot = snapshot;
    for (const listener of task.listeners) {
      try {
        listener(snapshot);
      } catch {
        // A listener's failure is its own stream's problem.
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

  return {
    /** Starts delivering changes of a live task after `version`; returns the unsubscribe. */
    add(id: string, snapshot: TaskSnapshotLike, version: number, listener: Listener): () => void {
      let task = tasks.get(id);
      if (!task) {
        const ttl = snapshot.context.ttlMs;
        task = { listeners: new Set(), version, snapshot, expiresAt: ttl === null ? Infinity : snapshot.context.createdAt + ttl };
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
     * A change of `id` to `version`; `snapshot` when its status changed (or is the newest known state,
     * from a reconciling read). Older versions are ignored, so a late message never goes back in time.
     */
    changed(id: string, version: number, status: TaskStateValue, snapshot?: TaskSnapshotLike) {
      const task = tasks.get(id);
      if (!task || version <= task.version) return;
      task.version = version;
      if (snapshot && status !== task.snapshot.value) deliver(id, task, snapshot);
    },
    /** Delivers the expiry of a listened task whose time has come; false while it is not due. */
    expire(id: string, now: number): boolean {
      const task = tasks.get(id);
      if (!task) return true;
      if (now < task.expiresAt) return false;
      const expire: TaskEvent = { type: "task.expire", at: now };
      const step = nextSnapshot(task.snapshot, expire);
      if (step) deliver(id, task, step.snapshot);
      else drop(id, task);
      return true;
    },
    /** A listened task that is gone from Redis: its expiry if due, otherwise nothing more can come. */
    gone(id: string, now: number) {
      const task = tasks.get(id);
      if (task && !this.expire(id, now)) drop(id, task);
    },
    ids: () => [...tasks.keys()],
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
