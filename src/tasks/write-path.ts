// How a change to a task is made, chosen once at mount by the store's kind. Either way a change is the
// chart's step, the store's write, the actor here brought level and the listeners told:
// - a store only this process uses (memory): the live actor takes the event (its step is the chart's), and
//   what it became is written at once (`recorded`); such a write cannot conflict and is synchronous;
// - a store several instances share: the chart's pure step of the stored snapshot is written by
//   compare-and-set (changes.ts), and the actor here then takes the event in version order.
import type { TaskEvent } from "../../machines/task.machine.ts";
import { isExpiredAt } from "../../machines/task.machine.ts";
import type { JsonObject } from "../protocol/types.ts";
import { after, type MaybePromise } from "../utils/maybe-promise.ts";
import { AttemptFenced, createChanges, type Changes, type EventOf } from "./changes.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import { toGetTaskResultJson } from "./kept-json.ts";
import type { Listeners } from "./listeners.ts";
import type { LocalTask, LocalTasks } from "./local-tasks.ts";
import { executorFailed } from "./logic/task-events.ts";
import { isUnavailable, sleepUnref } from "./runtime-parts.ts";
import type { LiveTaskRecord, TaskRecord, TaskStore } from "./store.ts";

/** What a write path works with: the engine's store, its tasks here and listeners, and two of its acts. */
export interface WriteParts {
  readonly store: TaskStore;
  readonly local: LocalTasks;
  readonly listeners: Listeners;
  readonly now: () => number;
  /** The task as `owner` reads it, judged (an expired one ended through the chart). */
  find(id: string, owner: string): MaybePromise<TaskRecord | undefined>;
  /** The store refused a write of this attempt: another attempt holds the task now. */
  fenced(task: LocalTask): void;
}

export interface WritePath {
  /** An event the task's run here produced; settles once the store has it. */
  own(task: LocalTask, event: TaskEvent): MaybePromise<void>;
  /**
   * A client's change (the event made from the snapshot it applies to): false when the task is unknown or
   * foreign, the task when its run is here, true otherwise.
   */
  client(id: string, owner: string, eventOf: EventOf): MaybePromise<LocalTask | boolean>;
  /** An end judged on a task as read (its expiry): recorded through the chart. */
  record(id: string, owner: string, task: LiveTaskRecord, event: TaskEvent): MaybePromise<unknown>;
  /** Fails a live task (unless it ended): its executor refused it or gave up on it. */
  fail(id: string, message: string, data: JsonObject): Promise<void>;
  /** The actor here became `snapshot`: written now when the actor took the event first. */
  recorded(task: LocalTask, snapshot: TaskSnapshot, notified: boolean, final: boolean): void;
  /** The compare-and-set of a shared store; undefined for a store only this process uses. */
  readonly changes: Changes | undefined;
}

/** The write path over a store only this process uses: the actor takes the event, its snapshot is written. */
export function exclusiveWrites(parts: WriteParts): WritePath {
  const { store, local, listeners, now } = parts;
  return {
    changes: undefined,
    // After the final state the actor is gone: a late outcome changes nothing.
    own: (task, event) => void task.actor?.send(event),
    client(id, owner, eventOf) {
      const task = local.get(id);
      const actor = task?.actor;
      if (!actor || task.owner !== owner || isExpiredAt(task.snapshot.context, now())) return after(parts.find(id, owner), (found) => !!found);
      const event = eventOf(task.snapshot);
      if (event) actor.send(event);
      return task;
    },
    record: (id, _owner, _task, event) => void local.get(id)?.actor?.send(event),
    async fail(id, message, data) {
      local.get(id)?.actor?.send(executorFailed(message, data, now()));
    },
    recorded(task, snapshot, notified, final) {
      const version = ++task.applied;
      let json: string | undefined;
      if (final) {
        // The run's result JSON, made when it finished, is used when the chart kept that very result.
        const result = task.result;
        task.result = undefined;
        json = toGetTaskResultJson(snapshot, result && snapshot.context.result === result.value ? result.json : undefined);
      }
      void store.write(task.id, { version, snapshot, statusChanged: notified, json });
      if (notified && listeners.taskCount) listeners.changed(task.id, version, snapshot);
    },
  };
}

/** The write path over a store several instances share: compare-and-set of the chart's step, then the actor. */
export function sharedWrites(parts: WriteParts): WritePath {
  const { store, local, now } = parts;
  const changes = createChanges(parts);

  /**
   * Retries a change of the work while the store is unreachable, for as long as the task runs here
   * (a worker cut off for longer than its lease ends its tasks itself).
   */
  const writeOwn = async (task: LocalTask, event: TaskEvent): Promise<void> => {
    for (;;) {
      try {
        // The actor here holds what the store holds, unless another instance's change is on its way.
        const written = await changes.applyLocal(task.id, () => event, undefined, now(), task.fence);
        if (written === "fenced") return parts.fenced(task);
        if (written !== "refused") return;
        await changes.apply(task.id, task.owner, () => event, undefined, task.fence);
        return;
      } catch (error) {
        if (error instanceof AttemptFenced) return parts.fenced(task);
        if (!local.has(task.id) || !isUnavailable(error)) return;
        await sleepUnref(Math.min(500, (store.leaseMs ?? 2000) / 4));
      }
    }
  };

  /** Reads the task, judges it, and applies the change to it; false when it is unknown or foreign. */
  const applyRead = async (id: string, owner: string, eventOf: EventOf): Promise<boolean> => {
    const task = await parts.find(id, owner);
    if (!task) return false;
    if (task.snapshot) await changes.apply(id, owner, eventOf, task);
    return true;
  };

  return {
    changes,
    own(task, event) {
      return local.enqueue(task, event, async (latest) => {
        const started = performance.now();
        await writeOwn(task, latest);
        // A run reporting progress without pause would take every moment the store has for this task, and a
        // client's change made elsewhere (a read, then a compare-and-set) would never find one free: after
        // a status update the task's queue rests as long as the write took.
        if (latest.type === "status.update") await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
      });
    },
    async client(id, owner, eventOf) {
      const here = local.get(id);
      if (!here) return applyRead(id, owner, eventOf);
      // A task claimed here has no owner known here: the store's read checks the caller's.
      if (here.owner !== null && owner !== here.owner) return false;
      // Tried from the actor's snapshot first. A change that would change nothing there is read again: the
      // actor may not have heard of a change made elsewhere yet.
      const found = await local.serialize(here, async () =>
        here.owner !== null && (await changes.applyLocal(id, eventOf, owner, now())) === "written" ? true : applyRead(id, owner, eventOf),
      );
      return found && here;
    },
    record: (id, owner, task, event) => changes.apply(id, owner, () => event, task),
    async fail(id, message, data) {
      await changes.apply(id, null, () => executorFailed(message, data, now()));
    },
    // The change was written before the actor took it: nothing is left to record.
    recorded() {},
  };
}
