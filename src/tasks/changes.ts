// A change to a task in a shared store: the chart's answer to an event, computed from the snapshot the
// store holds (or the one the actor here has, which is the same unless a change made elsewhere is on its
// way), written by compare-and-set, then told to the actor here and to this instance's listeners.
import { isExpiredAt, type TaskEvent } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import { isNotified, type TaskSnapshot } from "./envelopes.ts";
import { toGetTaskResultJson } from "./kept-json.ts";
import { nextSnapshot } from "./chart.ts";
import type { Listeners } from "./listeners.ts";
import type { LocalTasks } from "./local-tasks.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { FinalStatus, LiveTaskRecord, TaskFence, TaskRecord, TaskStore } from "./store.ts";

/** Makes the event from the task's snapshot when the change is applied (undefined: no change). */
export type EventOf = (snapshot: TaskSnapshot) => TaskEvent | undefined;

// How long a change waits for the actor here to hear of the one before it.
const CATCH_UP_MS = 100;

// Enough for heavy contention on one task; past it the change is refused rather than retried forever.
const MAX_ATTEMPTS = 32;

const REFUSED = Symbol("refused");
const FENCED = Symbol("fenced");

/** The store refused a run's own write: its attempt no longer holds the task (another one may run it now). */
export class AttemptFenced extends Error {
  constructor(readonly id: string) {
    super(`Task ${id}: this attempt no longer holds the task`);
  }
}

/**
 * Reads a task as `owner` sees it; a null owner (a task this instance claimed, whose owner it never saw)
 * reads it whoever owns it, through the store's `readHeld`.
 */
export function readAs(store: TaskStore, id: string, owner: string | null, listen?: boolean): MaybePromise<TaskRecord | undefined> {
  return owner === null ? (store.readHeld?.(id) as MaybePromise<TaskRecord | undefined>) : store.read(id, owner, listen);
}

/** Up to 2^n ms (at most 50), at random: the first retry goes at once. */
function backoff(n: number): Promise<void> | undefined {
  if (n === 0) return undefined;
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** n, 50)));
}

export function createChanges(parts: { store: TaskStore; local: LocalTasks; listeners: Listeners }) {
  const { store, local, listeners } = parts;
  /** Compare-and-set writes refused because the task changed meanwhile (each one is retried). */
  let retries = 0;

  /**
   * One compare-and-set of the chart's answer to `eventOf` from `task`: the task as it then is (itself
   * when nothing changes), undefined when it is gone, REFUSED when it changed meanwhile.
   */
  const attempt = async (id: string, task: LiveTaskRecord, eventOf: EventOf, fence?: TaskFence): Promise<TaskRecord | undefined | typeof REFUSED | typeof FENCED> => {
    const event = eventOf(task.snapshot);
    const step = event && nextSnapshot(task.snapshot, event);
    if (!event || !step) return task;
    const version = task.version + 1;
    const next = step.snapshot;
    const json = step.final ? toGetTaskResultJson(next) : undefined;
    // Listeners here and on every instance hear of it when the envelope changed (a new attempt included).
    const statusChanged = isNotified(task.snapshot, next);
    // The actor of a task that runs here takes the event from here, once written: no other instance needs it.
    const here = local.has(id);
    const change = { version, snapshot: next, statusChanged, json, event: here ? undefined : event };
    const written = await local.writing(id, () => store.write(id, fence ? { ...change, fence } : change));
    if (written === "gone") return undefined;
    if (written === "fenced") return FENCED;
    if (written === "conflict") return REFUSED;
    local.feed(id, version, event);
    if (statusChanged) listeners.changed(id, version, next);
    if (json === undefined) return { version, expiresAt: task.expiresAt, snapshot: next, origin: task.origin, workerAlive: task.workerAlive };
    return { expiresAt: task.expiresAt, status: next.value as FinalStatus, json, origin: task.origin };
  };

  /** Applies the chart's answer to `eventOf(snapshot)`, retried on a concurrent change; the task as it then is. */
  const apply = async (id: string, owner: string | null, eventOf: EventOf, known?: TaskRecord, fence?: TaskFence): Promise<TaskRecord | undefined> => {
    for (let n = 0; n < MAX_ATTEMPTS; n++) {
      const task = n === 0 && known ? known : await readAs(store, id, owner);
      if (!task?.snapshot) return task;
      // The actor here may lag behind a change still on its way: it gets a moment to hear of it; past
      // that (a lost change) the actor restarts from the stored state.
      if (local.behind(id, task.version) && !(await local.reach(id, task.version, CATCH_UP_MS))) {
        local.resync(id, task.snapshot, task.version);
      }
      const done = await attempt(id, task, eventOf, fence);
      if (done === FENCED) throw new AttemptFenced(id);
      if (done !== REFUSED) return done;
      retries++;
      // Another instance wrote first: wait a moment, longer and at random as conflicts repeat, so that two
      // writers (a busy run reporting progress, a client's answer) cannot keep refusing each other.
      await backoff(n);
    }
    throw new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} changed too often to apply this change; try again`);
  };

  /**
   * A change to a task whose actor runs here, tried first from the actor's snapshot and version (what the
   * store holds, unless a change made elsewhere is still on its way): no read. "refused" when it could not
   * be decided that way; then the caller takes the reading path.
   */
  const applyLocal = async (
    id: string,
    eventOf: EventOf,
    owner: string | undefined,
    now: number,
    fence?: TaskFence,
  ): Promise<"written" | "unchanged" | "foreign" | "refused" | "fenced"> => {
    const mine = local.current(id);
    if (!mine || isExpiredAt(mine.snapshot.context, now)) return "refused";
    if (owner !== undefined && owner !== mine.task.owner) return "foreign";
    const task: LiveTaskRecord = { version: mine.version, expiresAt: mine.task.expiresAt, snapshot: mine.snapshot, workerAlive: true };
    const done = await attempt(id, task, eventOf, fence);
    if (done === FENCED) return "fenced";
    if (done === REFUSED) {
      retries++;
      return "refused";
    }
    return done === task ? "unchanged" : done ? "written" : "refused";
  };

  return { apply, applyLocal, casRetries: () => retries };
}

export type Changes = ReturnType<typeof createChanges>;
