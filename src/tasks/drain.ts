// Draining an instance before it stops (docs/durability.md): no new run starts here, the runs here get up to
// a deadline to end, and then each one left is either handed off (a retryable run, when another instance can
// claim it) or failed through the chart with the `shutdown` reason, so that every other instance and every
// listen stream sees it end before this process goes. The instance's lease stays renewed until the last of
// those writes (the shared runtime renews while it has tasks here), so nothing is taken for lost meanwhile.
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { DrainOptions, DrainReport } from "./executor.ts";
import type { LeaveReason, LocalTask, LocalTasks } from "./local-tasks.ts";
import { shutDown } from "./logic/task-events.ts";

/** What a drain works with: the runtime's tasks here and how it changes them. */
export interface DrainParts {
  readonly local: LocalTasks;
  readonly now: () => number;
  /** Applies an event to a task here; settles once the store has it. */
  dispatch(task: LocalTask, event: TaskEvent): MaybePromise<void>;
  /** Resolves once no run is here. */
  idle(): Promise<void>;
  /**
   * Hands a task here off to another instance (its run aborted with the `shutdown` reason, the task left
   * claimable at once, none of its run's attempts spent); false when this task cannot be (a closure, a run
   * allowed a single attempt, a store nobody else reads). Absent: nothing is handed off.
   */
  handOff?(task: LocalTask): Promise<boolean>;
}

/**
 * How long the final writes (hand-offs and failures) may take after the deadline. A store that answers
 * none of them in this time (unreachable) cannot be told: the tasks end here, and other instances fail
 * them once this instance's lease lapses, as for a crash.
 */
export const FINAL_WRITES_MS = 1000;

/** The drain's deadline; a TypeError naming `deadlineMs` when it is not a finite number of ms. */
export function drainDeadline(options: DrainOptions): number {
  const deadlineMs = options?.deadlineMs;
  if (typeof deadlineMs !== "number" || !(deadlineMs >= 0) || deadlineMs === Infinity) {
    throw new TypeError(`drain: deadlineMs must be a finite number of milliseconds (0 or more), not ${String(deadlineMs)}`);
  }
  return deadlineMs;
}

/** Runs one drain: waits, then hands off or fails what is left, and says how each run here ended. */
export async function drainTasks(parts: DrainParts, deadlineMs: number): Promise<DrainReport> {
  const { local } = parts;
  const here = local.ids();
  // An attempt fenced meanwhile leaves without ending here or being handed off: counted on its own.
  const fencedHere = new Set<LocalTask>();
  for (const id of here) {
    const task = local.get(id);
    if (task) (task.leaving ??= new Set()).add((why: LeaveReason) => why === "fenced" && fencedHere.add(task));
  }
  if (here.length) await within(parts.idle(), deadlineMs);
  const left = local.ids().flatMap((id) => local.get(id) ?? []);
  if (!left.length) return { finished: here.length - fencedHere.size, handedOff: 0, failed: 0, fenced: fencedHere.size };

  const handedOff = new Set<LocalTask>();
  const end = async (task: LocalTask) => {
    if (parts.handOff && (await parts.handOff(task))) handedOff.add(task);
    else await parts.dispatch(task, shutDown(parts.now()));
  };
  await within(Promise.all(left.map((task) => end(task).catch(() => {}))), FINAL_WRITES_MS);
  // What the store could not be told in time ends here all the same: no run outlives the drain.
  for (const task of left) if (local.get(task.id) === task) task.actor?.send(shutDown(parts.now()));

  let failed = 0;
  for (const task of left) if (!handedOff.has(task) && failedByDrain(task)) failed++;
  // A task released to the store was handed off, even when its attempt here heard it was fenced before it
  // stopped (another instance claimed it at once): each run is counted once.
  const fenced = [...fencedHere].filter((task) => !handedOff.has(task)).length;
  return { finished: here.length - handedOff.size - failed - fenced, handedOff: handedOff.size, failed, fenced };
}

// --- Internal ---

/** Whether the task ended with the drain's own failure (rather than finishing, or being cancelled, meanwhile). */
function failedByDrain(task: LocalTask): boolean {
  return task.snapshot.context.endedBy === "shutdown";
}

/** Waits for `work`, at most `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
