// The shared task store: every task in Redis, readable and changeable from any instance. A change is
// the chart's (`transition()` on the stored snapshot), written with a versioned compare-and-set that
// publishes it, so the instance running the work and every listen stream hear of it.
import type { InspectionEvent, Observer } from "xstate";
import type { TaskEvent } from "../../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import { FinishedTask, type StoredTask, type TaskEntry, type TaskStore } from "../store.ts";
import { type ChangeMessage, createChanges, type ReadTask } from "./changes.ts";
import { CHART_VERSION, encodeSnapshot, expiryOfSnapshot, snapshotFromFinalJson } from "./chart.ts";
import type { Connection } from "./connection.ts";
import type { StoreKeys } from "./keys.ts";
import type { Listeners } from "./listeners.ts";
import type { LocalTasks } from "./local-tasks.ts";
import { ownerHash, ownerHashOrThrow } from "./owner.ts";
import { CREATE } from "./scripts.ts";

export interface SharedStoreParts {
  conn: Connection;
  keys: StoreKeys;
  local: LocalTasks;
  listeners: Listeners;
  workerId: string;
  leaseMs: number;
  secret: string;
  config: () => { max: number; now: () => number };
  /** Called when this instance takes its first live task or its first listener (the tick starts). */
  wake: () => void;
  /** Called on every lease the create script takes or extends. */
  leased: () => void;
}

/** The failure a task gets when the instance running it stopped renewing its lease. */
export function lostEvent(at: number): TaskEvent {
  return {
    type: "work.protocolError",
    error: { code: ErrorCode.InternalError, message: "The server instance running this task was lost" },
    at,
  };
}

/** The start of a change message: its task id (one needing no JSON escape) and version. */
const MESSAGE_HEAD = /^\{"i":"([^"\\]+)","v":(\d+),/;

export function createSharedStore(parts: SharedStoreParts) {
  const { conn, keys, local, listeners } = parts;
  const now = () => parts.config().now();
  const { read, apply, applyLocal, casRetries } = createChanges({ conn, keys, local, workerId: parts.workerId, now, listenMs: parts.leaseMs });

  /**
   * The task if it exists, is not expired and belongs to `owner`; a live one whose worker was lost is failed
   * first. Expiry is judged by this server's clock, as in memory: Redis drops the key about then too, but a
   * reader must not see a task past its time in between, and a live one's expiry reaches the chart (and so
   * its listeners and its worker) as `task.expire`.
   */
  const find = (id: string, owner: unknown, listen = false): Promise<ReadTask | undefined> => {
    const hash = ownerHash(owner, parts.secret);
    if (hash === undefined) return Promise.resolve(undefined);
    // Chained, not awaited: this is every request's path to its task.
    return read(id, listen).then((task) => judge(id, hash, task));
  };
  const judge = (id: string, hash: string, task: ReadTask | undefined): ReadTask | undefined | Promise<ReadTask | undefined> => {
    if (!task || task.owner !== hash) return undefined;
    const at = now();
    if (task.facts) return task.facts.expiresAt <= at ? undefined : task;
    if (expiryOfSnapshot(task.snapshot!) <= at) return apply(id, () => ({ type: "task.expire", at }), task).then(() => undefined);
    return task.alive ? task : apply(id, () => lostEvent(at), task);
  };

  const toStored = (id: string, owner: unknown, task: ReadTask): StoredTask => {
    if (task.final) return new FinishedTask(owner, Infinity, task.facts!.status, task.final);
    return { id, owner, expiresAt: expiryOfSnapshot(task.snapshot!), snapshot: task.snapshot };
  };

  const store: TaskStore & { readonly shared: true } = {
    shared: true,
    create(entry) {
      // Thrown here, not rejected: a bind value that cannot be shared is the caller's mistake, said at once.
      const owner = ownerHashOrThrow(entry.owner, parts.secret);
      return insert(entry, owner);
    },
    get(id, owner) {
      return find(id, owner).then((task) => task && toStored(id, owner, task));
    },
    async send(id, owner, event) {
      const eventOf = typeof event === "function" ? event : () => event;
      // At the instance running the task, an answer or a cancel starts from the actor's snapshot. One
      // that would change nothing there is read again: the actor may not have heard of a change yet.
      const hash = local.has(id) ? ownerHash(owner, parts.secret) : undefined;
      if (hash !== undefined) {
        const done = await applyLocal(id, eventOf, hash);
        if (done === "written") return true;
        if (done === "foreign") return false;
      }
      const task = await find(id, owner);
      if (!task) return false;
      if (task.snapshot) await apply(id, eventOf, task);
      return true;
    },
    dispatch(entry, event) {
      // The work's own changes go in order; one that Redis refused waits for the next attempt.
      return local.enqueue(entry.id, event, (latest) => writeOwn(entry, latest));
    },
    async subscribe(id, owner, listener) {
      // Read and marked as listened in one step: every change after this read is published.
      const task = await find(id, owner, true);
      if (!task) return undefined;
      if (!task.snapshot) return () => {};
      const off = listeners.add(id, task.snapshot, task.version, listener);
      parts.wake();
      return off;
    },
    finish(entry) {
      local.remove(entry.id);
    },
    // Redis drops the key at its time and the worker ends the work itself; what is left is telling
    // this instance's listeners.
    expire(id) {
      return listeners.expire(id, now());
    },
    sweep: () => 0,
    get size() {
      return local.size;
    },
    get listenerCount() {
      return listeners.listenerCount;
    },
    externalBytes: 0,
  };

  const insert = async (entry: TaskEntry, owner: string): Promise<boolean> => {
    const snap = entry.actor!.getSnapshot();
    const snapshot = encodeSnapshot({ value: snap.value, context: snap.context });
    const added = await conn.run<number>(
      CREATE,
      [keys.task(entry.id), keys.tasks, keys.lease(parts.workerId)],
      [now(), entry.expiresAt === Infinity ? "" : entry.expiresAt, parts.config().max, owner, CHART_VERSION, snapshot, parts.workerId, entry.id, parts.leaseMs],
    );
    if (added === -1) throw new Error(`Task id ${entry.id} is already in use`);
    if (added === 0) return false;
    parts.leased();
    local.add(entry, owner);
    parts.wake();
    return true;
  };

  // Retries a change of the work while Redis is unreachable, for as long as the task runs here
  // (a worker cut off for longer than its lease ends its tasks itself).
  const writeOwn = async (entry: TaskEntry, event: TaskEvent): Promise<void> => {
    for (;;) {
      try {
        // The actor here holds what Redis holds, unless another instance's change is on its way.
        if ((await applyLocal(entry.id, () => event)) !== "refused") return;
        await apply(entry.id, () => event);
        return;
      } catch (error) {
        if (!local.has(entry.id) || !isUnavailable(error)) return;
        await new Promise((resolve) => setTimeout(resolve, Math.min(500, parts.leaseMs / 4)).unref?.());
      }
    }
  };

  /** A message from the change channel. */
  const onChange = (raw: string) => {
    // Most messages here concern no task listened to or run here, or are this instance's own change,
    // already applied: those are let go unparsed.
    const head = MESSAGE_HEAD.exec(raw);
    if (head && !listeners.has(head[1]!) && !local.behind(head[1]!, Number(head[2]))) return;
    let message: ChangeMessage;
    try {
      message = JSON.parse(raw) as ChangeMessage;
    } catch {
      return;
    }
    if (typeof message?.i !== "string" || typeof message.v !== "number") return;
    if (message.e) local.feed(message.i, message.v, message.e);
    listeners.changed(message.i, message.v, message.t, message.s);
  };

  /** Catches up with whatever a lost message did not tell: listened tasks, and the actors running here. */
  const reconcile = async () => {
    await Promise.all(
      listeners.ids().map(async (id) => {
        try {
          const task = await readForListeners(id);
          if (!task) return listeners.gone(id, now());
          const snapshot = task.final ? snapshotFromFinalJson(task.final) : task.snapshot!;
          listeners.changed(id, task.version, snapshot.value, snapshot);
        } catch {
          // Redis trouble: the next tick tries again.
        }
      }),
    );
  };
  // Each tick renews the mark that the task is listened to (it lasts a lease, the tick comes thrice in one).
  const readForListeners = async (id: string) => {
    const task = await read(id, true);
    return task?.snapshot && !task.alive ? apply(id, () => lostEvent(now()), task) : task;
  };

  return { store, read, apply, onChange, reconcile, casRetries };
}

export function isUnavailable(error: unknown): boolean {
  return McpJsonRpcError.isError(error) && error.status === 503;
}

export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void);
