// The tasks whose work runs on this instance. Each keeps its actor (the inspector sees it here),
// fed every change in version order, whichever instance made it; a gap that the change channel
// cannot fill (a lost message) is closed by restarting the actor from the stored snapshot.
import { createActor, type InspectionEvent, type Observer } from "xstate";
import { taskMachine, type TaskEvent } from "../../../machines/task.machine.ts";
import type { TaskSnapshotLike } from "../../protocol/wire.ts";
import type { TaskEntry } from "../store.ts";

interface LocalTask {
  readonly entry: TaskEntry;
  /** The owner's keyed hash, as stored. */
  readonly owner: string;
  /** The version the actor has reached. */
  applied: number;
  /** Changes that arrived ahead of one still missing. */
  readonly pending: Map<number, TaskEvent>;
  expiry?: ReturnType<typeof setTimeout>;
  /** The task's own changes, written one after the other. */
  queue: Promise<unknown>;
  /** The last change queued, while it has not started: a status update there may still be replaced. */
  waiting?: { event: TaskEvent; readonly done: Promise<void> };
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
    add(entry: TaskEntry, owner: string) {
      const task: LocalTask = { entry, owner, applied: 1, pending: new Map(), queue: Promise.resolve(), catchUp: new Set() };
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
    /**
     * The actor's snapshot and the version it reached, while it is live and nothing heard is still
     * pending: what the store holds, unless a change made elsewhere is on its way (then the
     * compare-and-set from it is refused and the store is read instead).
     */
    current(id: string): { snapshot: TaskSnapshotLike; version: number; owner: string; expiresAt: number } | undefined {
      const task = tasks.get(id);
      const snapshot = task?.entry.actor?.getSnapshot();
      if (!task || task.pending.size || snapshot?.status !== "active") return undefined;
      return { snapshot, version: task.applied, owner: task.owner, expiresAt: task.entry.expiresAt };
    },
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
    /**
     * Writes `event` with `write` after the task's earlier own changes. A status update replaces one
     * still waiting at the end of the queue (only the latest message matters, and a worker reporting
     * in a tight loop must not queue writes faster than Redis takes them); both settle together.
     */
    enqueue(id: string, event: TaskEvent, write: (event: TaskEvent) => Promise<void>): Promise<void> {
      const task = tasks.get(id);
      if (!task) return write(event);
      const waiting = task.waiting;
      if (event.type === "status.update" && waiting?.event.type === "status.update") {
        waiting.event = event;
        return waiting.done;
      }
      const run = (): Promise<void> => {
        if (task.waiting === slot) task.waiting = undefined;
        return write(slot.event);
      };
      const slot: { event: TaskEvent; done: Promise<void> } = { event, done: task.queue.then(run, run) };
      task.waiting = slot;
      task.queue = slot.done.catch(() => {});
      return slot.done;
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
