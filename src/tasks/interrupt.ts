// An attempt stopped the way its process's end would stop it, and the next one run in the same process:
// what a test of a run found by name needs to see a redelivery (attempt 2 starting from the checkpoint,
// answered rounds not asked again) on a store only this process uses. A crash loses the attempt (it counts
// against the run's `maxAttempts`, its signal aborts as a fenced attempt's does, its later writes are
// refused); a drain hands it off (it spends none, its signal aborts with the shutdown reason). Either way
// the chart hears the loss first, which fails the task when no attempt is left; otherwise the store lets
// the task go and this process claims its next attempt at once.
import type { TaskEvent } from "../../machines/task.machine.ts";
import { nextSnapshot } from "./chart.ts";
import type { LeaveReason, LocalTask } from "./local-tasks.ts";
import type { Interrupted, InterruptKind } from "./runtime.ts";
import type { FinalStatus, LiveTaskRecord, TaskStore } from "./store.ts";
import { attemptClaimed, attemptLost } from "./logic/task-events.ts";

/** What an interruption needs of the runtime the attempt runs in. */
export interface InterruptParts {
  readonly store: TaskStore;
  readonly now: () => number;
  /** The task's run here, if it runs here. */
  local(id: string): LocalTask | undefined;
  /** Stops the attempt here without ending the task (its signal aborts with `why`'s reason). */
  leave(task: LocalTask, why: LeaveReason): void;
  /** Records `event` on a task not running here (its version written, its listeners told); undefined when it changed nothing. */
  record(id: string, task: LiveTaskRecord, event: TaskEvent, attempt: number): Promise<LiveTaskRecord | undefined>;
  /** Runs `attempt` of the task here from its stored state. */
  runHere(id: string, owner: string, task: LiveTaskRecord, attempt: number): Promise<void>;
}

/** Stops the attempt of task `id` running here as `how` would, and runs its next one here (see the top of this file). */
export async function interruptAttempt(parts: InterruptParts, id: string, how: InterruptKind): Promise<Interrupted> {
  const { store, now } = parts;
  const task = parts.local(id);
  const fence = task?.fence;
  if (!task?.actor || !fence || task.owner === null) {
    throw new TypeError(`interruptTask: task ${id} has no attempt of a run found by name running here (a closure cannot be delivered again: it ends with its process)`);
  }
  if (!store.release || !store.claim || !store.readHeld) throw new TypeError("interruptTask: this task store cannot hand a task from one attempt to the next (claim, release)");
  const reason = how === "crash" ? "lost" : "shutdown";
  task.actor.send(attemptLost(reason, true, task.maxAttempts, now()));
  // No attempt left: the chart failed the task, and its run's signal aborted as for any end.
  if (!task.actor) return { status: task.snapshot.value as FinalStatus };
  await store.release(id, fence);
  parts.leave(task, how === "crash" ? "fenced" : "shutdown");
  const claimed = await store.claim(id);
  const read = await store.readHeld(id);
  if (claimed.outcome !== "claimed" || !read?.snapshot) throw new Error(`interruptTask: the next attempt of task ${id} could not be claimed (${claimed.outcome})`);
  const held = await parts.record(id, read, attemptClaimed(claimed.attempt, now()), claimed.attempt);
  if (!held) throw new Error(`interruptTask: the claim of task ${id}'s attempt ${claimed.attempt} could not be recorded`);
  await parts.runHere(id, task.owner, held, claimed.attempt);
  return { attempt: claimed.attempt };
}

/** `task` after `event`, as the chart has it, or undefined when the chart takes nothing from it (or it ends the task). */
export function afterEvent(task: LiveTaskRecord, event: TaskEvent): LiveTaskRecord | undefined {
  const next = nextSnapshot(task.snapshot, event);
  return next && !next.final ? { ...task, version: task.version + 1, snapshot: next.snapshot } : undefined;
}
