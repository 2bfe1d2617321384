// Tasks, bounded and swept lazily on access. Every task is in the TaskTable (outside the JS heap)
// in creation order, which with one TTL per store is expiry order: a sweep walks from the front
// and stops at the first task still alive, so its cost is what expired, never the store's size.
// A running task also has its entry (actor, abort, listeners) in a Map, until it finishes.
// No timer runs, so tasks never hold a process open.
import type { AnyActorRef } from "xstate";
import type { TaskEvent, TaskStateValue } from "../../machines/task.machine.ts";
import type { TaskSnapshotLike } from "../protocol/wire.ts";
import { TaskTable } from "./task-table.ts";

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
  /** The runtime's observer of the actor's snapshots, for a store that has to restart the actor. */
  observer?: (snapshot: { value: unknown; context: unknown }) => void;
  /** A shared store's live task read from elsewhere: its stored snapshot, with no actor here. */
  snapshot?: TaskSnapshotLike;
}

/**
 * A task whose actor reached a final state and was stopped. Its final snapshot is kept as the
 * one thing a client can still ask of it: the `tasks/get` result, serialised once (it can no longer change).
 */
export class FinishedTask {
  constructor(
    readonly owner: unknown,
    readonly expiresAt: number,
    readonly status: TaskStateValue,
    /** The `tasks/get` result JSON of the final snapshot. */
    readonly json: string,
  ) {}
}

export type StoredTask = TaskEntry | FinishedTask;

export type MaybePromise<T> = T | Promise<T>;

/** An event that depends on the task's state when it is applied (tasks/update reads the open requests). */
export type EventOf = (snapshot: TaskSnapshotLike) => TaskEvent;

/**
 * The interface both stores implement: in memory it answers synchronously, a shared store (Redis)
 * answers with promises.
 */
export interface TaskStore {
  /** True for a store shared by several instances: the cap is then decided at creation only. */
  readonly shared?: boolean;
  /** Adds a task; false when the store is full (nothing is evicted to make room). */
  create(entry: TaskEntry): MaybePromise<boolean>;
  /** The task if it exists, is not expired and belongs to `owner`. */
  get(id: string, owner: unknown): MaybePromise<StoredTask | undefined>;
  /**
   * Sends an event (or the event made from the task's current snapshot) to a live task. False when unknown
   * or foreign; the entry when the task runs here and took the event; true otherwise (a finished task,
   * which ignores events, or a shared store's task). One lookup either way.
   */
  send(id: string, owner: unknown, event: TaskEvent | EventOf): MaybePromise<TaskEntry | boolean>;
  /** Sends an event the task's own work produced; settles once it is applied. */
  dispatch(entry: TaskEntry, event: TaskEvent): MaybePromise<void>;
  /** Calls `listener` on every later snapshot of the task; returns the unsubscribe, or undefined when unknown. */
  subscribe(
    id: string,
    owner: unknown,
    listener: (snapshot: TaskSnapshotLike) => void,
  ): MaybePromise<(() => void) | undefined>;
  /**
   * Keeps only the final snapshot of a finished task (as its `tasks/get` JSON, made by `json` if the store
   * keeps it: a shared store wrote it already): the actor and its listeners are let go.
   */
  finish(entry: TaskEntry, status: TaskStateValue, json: () => string): void;
  /**
   * Records the expiry of a running task whose time has come (the chart's `task.expire`, which tells its
   * listeners), for a listen stream's timer. Returns false while the task is not due yet; true once it is
   * (or is already final or gone), so a timer that fired early knows to wait again.
   */
  expire(id: string): boolean;
  /**
   * Drops expired tasks (expiring running ones first). Returns how many went. With `maxRunning`,
   * stops after expiring that many running tasks; the rest wait for the next sweep, unreachable meanwhile.
   */
  sweep(maxRunning?: number): number;
  /** Tasks held, after the same bounded sweep as any access (so expired running tasks beyond the bound still count). */
  readonly size: number;
  /** Live listener count, for leak checks. */
  readonly listenerCount: number;
  /** Bytes the store holds outside the JS heap (finished tasks), for memory figures. */
  readonly externalBytes: number;
}

const MAX_EXPIRING_PER_ACCESS = 64;

export function createTaskStore(options: {
  max: number;
  now: () => number;
  /** Called for a live task that expires, before it is dropped. */
  onExpire: (entry: TaskEntry) => void;
}): TaskStore {
  const table = new TaskTable();
  const running = new Map<string, TaskEntry>();
  let listenerCount = 0;
  /** The front task's expiry, the earliest of all: until then a sweep has nothing to do. */
  let nextExpiry = Infinity;

  const sweep = (maxRunning = Infinity) => {
    const now = options.now();
    if (now < nextExpiry) return 0;
    let dropped = 0;
    let expired = 0;
    for (let p = table.front(); p !== -1; p = table.front()) {
      if (table.expiresAt(p) > now) break;
      if (table.status(p) === undefined) {
        if (expired === maxRunning) break;
        expired++;
        const id = table.id(p);
        const entry = running.get(id);
        if (entry) {
          // Expiring a running task finishes it (its actor fails and stops); then it goes.
          if (entry.actor) options.onExpire(entry);
          if (entry.listeners) listenerCount -= entry.listeners.size;
          running.delete(id);
        }
      }
      table.dropFront();
      dropped++;
    }
    const front = table.front();
    nextExpiry = front === -1 ? Infinity : table.expiresAt(front);
    return dropped;
  };
  // Expiring a running task costs tens of µs (its actor transitions and stops, its signal aborts):
  // a request pays for at most this many, so thousands expiring together never stall one request.
  const sweepOnAccess = () => sweep(MAX_EXPIRING_PER_ACCESS);

  /** The task's position when it exists, is not expired and belongs to `owner`; else -1. */
  const lookup = (id: string, owner: unknown): number => {
    sweepOnAccess();
    const p = table.find(id);
    // Past its expiry but not swept yet (the sweep stopped at its bound): already gone for clients.
    if (p === -1 || table.expiresAt(p) <= options.now()) return -1;
    return table.owner(p) === owner ? p : -1;
  };
  const runningAt = (p: number, id: string) => (table.status(p) === undefined ? running.get(id) : undefined);

  return {
    create(entry) {
      // Expired tasks sit at the front, so a bounded sweep that found any has made room.
      sweepOnAccess();
      if (table.count >= options.max) return false;
      if (table.find(entry.id) !== -1) throw new Error(`Task id ${entry.id} is already in use`);
      table.add(entry.id, entry.owner, entry.expiresAt);
      running.set(entry.id, entry);
      if (table.count === 1) nextExpiry = entry.expiresAt;
      return true;
    },
    get(id, owner) {
      const p = lookup(id, owner);
      if (p === -1) return undefined;
      const status = table.status(p);
      return status === undefined ? running.get(id) : new FinishedTask(owner, table.expiresAt(p), status, table.json(p));
    },
    send(id, owner, event) {
      const p = lookup(id, owner);
      if (p === -1) return false;
      const entry = runningAt(p, id);
      const actor = entry?.actor;
      if (!actor) return true;
      actor.send(typeof event === "function" ? event(actor.getSnapshot() as TaskSnapshotLike) : event);
      return entry;
    },
    dispatch(entry, event) {
      // After the final state the actor is gone: a late outcome changes nothing.
      entry.actor?.send(event);
    },
    subscribe(id, owner, listener) {
      const p = lookup(id, owner);
      if (p === -1) return undefined;
      const entry = runningAt(p, id);
      if (!entry?.actor) return () => {};
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
      if (running.get(entry.id) !== entry) return;
      running.delete(entry.id);
      table.finish(table.find(entry.id), status, json());
    },
    expire(id) {
      const entry = running.get(id);
      if (!entry?.actor) return true;
      if (entry.expiresAt > options.now()) return false;
      options.onExpire(entry);
      return true;
    },
    sweep,
    get size() {
      sweepOnAccess();
      return table.count;
    },
    get listenerCount() {
      return listenerCount;
    },
    get externalBytes() {
      return table.externalBytes;
    },
  };
}
