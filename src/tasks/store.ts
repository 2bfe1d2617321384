// Tasks in a bounded Map, swept lazily on access. With one TTL per store, insertion order is
// expiry order, so a sweep walks from the front and stops at the first live task: its cost is
// what expired, never the store's size. No timer runs, so live tasks never hold a process open.
//
// A finished task moves to the FinishedLog (outside the JS heap) and its Map value becomes the
// log's slot number; replacing a key's value keeps its place in the expiry order.
import type { AnyActorRef } from "xstate";
import type { TaskEvent, TaskStateValue } from "../../machines/task.machine.ts";
import type { TaskSnapshotLike } from "../wire.ts";
import { FinishedLog, FinishedTask } from "./finished-log.ts";

export { FinishedTask };

/** A task whose actor runs. */
export interface TaskEntry {
  readonly id: string;
  /** The `bind` value computed at creation; every later request must produce the same. */
  readonly owner: unknown;
  readonly expiresAt: number;
  /** The running actor; let go once the task is final. */
  actor?: AnyActorRef;
  /** Aborted by cancel and expiry; let go once the task is final. */
  abort?: AbortController;
  listeners?: Set<(snapshot: TaskSnapshotLike) => void>;
}

export type StoredTask = TaskEntry | FinishedTask;

/** The interface a distributed store would implement as well. */
export interface TaskStore {
  /** Adds a task; false when the store is full (nothing is evicted to make room). */
  create(entry: TaskEntry): boolean;
  /** The task if it exists, is not expired and belongs to `owner`. */
  get(id: string, owner: unknown): StoredTask | undefined;
  /** Sends an event to a live task; false when unknown or foreign. Final tasks ignore events. */
  send(id: string, owner: unknown, event: TaskEvent): boolean;
  /** Calls `listener` on every later snapshot of the task; returns the unsubscribe, or undefined when unknown. */
  subscribe(id: string, owner: unknown, listener: (snapshot: TaskSnapshotLike) => void): (() => void) | undefined;
  /** Keeps only the final snapshot of a finished task (as its `tasks/get` JSON): the actor and its listeners are let go. */
  finish(entry: TaskEntry, status: TaskStateValue, json: string): void;
  /** Drops expired tasks (expiring live ones first). Returns how many went. */
  sweep(): number;
  readonly size: number;
  /** Live listener count, for leak checks. */
  readonly listenerCount: number;
  /** Bytes the store holds outside the JS heap (finished tasks), for memory figures. */
  readonly externalBytes: number;
}

export function createTaskStore(options: {
  max: number;
  now: () => number;
  /** Called for a live task that expires, before it is dropped. */
  onExpire: (entry: TaskEntry) => void;
}): TaskStore {
  /** A live task's entry, or a finished task's slot in `finished`. */
  const tasks = new Map<string, TaskEntry | number>();
  const finished = new FinishedLog();
  let listenerCount = 0;
  /** The front task's expiry, the earliest of all: until then a sweep has nothing to do. */
  let nextExpiry = Infinity;

  const sweep = () => {
    const now = options.now();
    if (now < nextExpiry) return 0;
    nextExpiry = Infinity;
    let dropped = 0;
    for (const [id, task] of tasks) {
      if (typeof task === "number") {
        const expiresAt = finished.expiresAt(task);
        if (expiresAt > now) {
          nextExpiry = expiresAt;
          break;
        }
        finished.remove(task);
      } else {
        if (task.expiresAt > now) {
          nextExpiry = task.expiresAt;
          break;
        }
        // Expiring a live task finishes it, which moves it to the log; it goes from there.
        if (task.actor) options.onExpire(task);
        if (task.listeners) listenerCount -= task.listeners.size;
        const slot = tasks.get(id);
        if (typeof slot === "number") finished.remove(slot);
      }
      tasks.delete(id);
      dropped++;
    }
    return dropped;
  };

  const lookup = (id: string, owner: unknown): TaskEntry | number | undefined => {
    sweep();
    const task = tasks.get(id);
    if (task === undefined) return undefined;
    if (typeof task === "number") return finished.ownedBy(task, owner) ? task : undefined;
    return task.owner === owner ? task : undefined;
  };

  return {
    create(entry) {
      sweep();
      if (tasks.size >= options.max) return false;
      tasks.set(entry.id, entry);
      if (tasks.size === 1) nextExpiry = entry.expiresAt;
      return true;
    },
    get(id, owner) {
      const task = lookup(id, owner);
      return typeof task === "number" ? finished.read(task) : task;
    },
    send(id, owner, event) {
      const entry = lookup(id, owner);
      if (entry === undefined) return false;
      if (typeof entry !== "number") entry.actor?.send(event);
      return true;
    },
    subscribe(id, owner, listener) {
      const entry = lookup(id, owner);
      if (entry === undefined) return undefined;
      if (typeof entry === "number" || !entry.actor) return () => {};
      (entry.listeners ??= new Set()).add(listener);
      listenerCount++;
      return () => {
        if (entry.listeners?.delete(listener)) listenerCount--;
      };
    },
    finish(entry, status, json) {
      entry.actor = undefined;
      entry.abort = undefined;
      if (entry.listeners) {
        listenerCount -= entry.listeners.size;
        entry.listeners = undefined;
      }
      if (tasks.get(entry.id) === entry) tasks.set(entry.id, finished.add(new FinishedTask(entry.owner, entry.expiresAt, status, json)));
    },
    sweep,
    get size() {
      sweep();
      return tasks.size;
    },
    get listenerCount() {
      return listenerCount;
    },
    get externalBytes() {
      return finished.externalBytes;
    },
  };
}

