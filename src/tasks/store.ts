// Tasks in a bounded Map, swept lazily on access. With one TTL per store, insertion order is
// expiry order, so a sweep walks from the front and stops at the first live task: its cost is
// what expired, never the store's size. No timer runs, so live tasks never hold a process open.
import type { AnyActorRef } from "xstate";
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { TaskSnapshotLike } from "../wire.ts";

export interface TaskEntry {
  readonly id: string;
  /** The `bind` value computed at creation; every later request must produce the same. */
  readonly owner: unknown;
  readonly expiresAt: number;
  /** The running actor; dropped once the task is final. */
  actor?: AnyActorRef;
  /** The final snapshot, kept once the actor is stopped. */
  final?: TaskSnapshotLike;
  /** The `tasks/get` result of a finished task, serialised on first read: it can no longer change. */
  finalJson?: string;
  /** Aborted by cancel and expiry; let go once the task is final. */
  abort?: AbortController;
  listeners?: Set<(snapshot: TaskSnapshotLike) => void>;
}

/** The interface a distributed store would implement as well. */
export interface TaskStore {
  /** Adds a task; false when the store is full (nothing is evicted to make room). */
  create(entry: TaskEntry): boolean;
  /** The task if it exists, is not expired and belongs to `owner`. */
  get(id: string, owner: unknown): TaskEntry | undefined;
  /** Sends an event to a live task; false when unknown or foreign. Final tasks ignore events. */
  send(id: string, owner: unknown, event: TaskEvent): boolean;
  /** Calls `listener` on every later snapshot of the task; returns the unsubscribe, or undefined when unknown. */
  subscribe(id: string, owner: unknown, listener: (snapshot: TaskSnapshotLike) => void): (() => void) | undefined;
  /** Keeps only the final snapshot of a finished task: the actor and its listeners are let go. */
  finish(entry: TaskEntry, snapshot: TaskSnapshotLike): void;
  /** Drops expired tasks (expiring live ones first). Returns how many went. */
  sweep(): number;
  readonly size: number;
  /** Live listener count, for leak checks. */
  readonly listenerCount: number;
}

export function createTaskStore(options: {
  max: number;
  now: () => number;
  /** Called for a live task that expires, before it is dropped. */
  onExpire: (entry: TaskEntry) => void;
}): TaskStore {
  const tasks = new Map<string, TaskEntry>();
  let listenerCount = 0;

  const sweep = () => {
    if (tasks.size === 0) return 0;
    const now = options.now();
    let dropped = 0;
    for (const entry of tasks.values()) {
      if (entry.expiresAt > now) break;
      if (entry.actor) options.onExpire(entry);
      if (entry.listeners) listenerCount -= entry.listeners.size;
      tasks.delete(entry.id);
      dropped++;
    }
    return dropped;
  };

  const lookup = (id: string, owner: unknown) => {
    sweep();
    const entry = tasks.get(id);
    return entry && entry.owner === owner ? entry : undefined;
  };

  return {
    create(entry) {
      sweep();
      if (tasks.size >= options.max) return false;
      tasks.set(entry.id, entry);
      return true;
    },
    get: lookup,
    send(id, owner, event) {
      const entry = lookup(id, owner);
      if (!entry) return false;
      entry.actor?.send(event);
      return true;
    },
    subscribe(id, owner, listener) {
      const entry = lookup(id, owner);
      if (!entry) return undefined;
      if (!entry.actor) return () => {};
      (entry.listeners ??= new Set()).add(listener);
      listenerCount++;
      return () => {
        if (entry.listeners?.delete(listener)) listenerCount--;
      };
    },
    finish(entry, snapshot) {
      entry.final = snapshot;
      entry.actor = undefined;
      entry.abort = undefined;
      if (entry.listeners) {
        listenerCount -= entry.listeners.size;
        entry.listeners = undefined;
      }
    },
    sweep,
    get size() {
      sweep();
      return tasks.size;
    },
    get listenerCount() {
      return listenerCount;
    },
  };
}

