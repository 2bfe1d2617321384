// Small pieces both task runtimes use: a task's first actor, what a store's failure answers, and telling
// a status change to those who follow a task.
import { type AnyActorRef, createActor } from "xstate";
import { taskMachine } from "../../machines/task.machine.ts";
import { internalError, McpJsonRpcError, taskOwnerFull, taskStoreFull } from "../protocol/errors.ts";
import type { TaskSnapshotLike } from "./envelopes.ts";
import type { LocalTask } from "./local-tasks.ts";
import type { CreateOutcome, TaskLimits } from "./store.ts";
import type { TaskRuntimeOptions } from "./runtime.ts";

/** A new task's actor (not started yet), made from the runtime's settings. */
export function newTaskActor(options: TaskRuntimeOptions, id: string, at: number, statusMessage: string | undefined): AnyActorRef {
  return createActor(taskMachine, {
    id,
    input: { taskId: id, now: at, ttlMs: options.ttlMs, pollIntervalMs: options.pollIntervalMs, statusMessage },
    inspect: options.inspect,
  });
}

/** The error a creation the caps refused answers with. */
export function capRefusal(limits: TaskLimits, outcome: Exclude<CreateOutcome, "created">): McpJsonRpcError {
  return outcome === "full" ? taskStoreFull(limits.max) : taskOwnerFull(limits.maxPerOwner);
}

/**
 * What a store threw at creation, as the call answers it: its own JSON-RPC error (the store is unavailable),
 * or a plain -32603 whose cause (a setup mistake, a store's bug) only `onError` sees.
 */
export function storeFailure(error: unknown): McpJsonRpcError {
  return McpJsonRpcError.isError(error) ? error : internalError(error);
}

/** A store that cannot be reached answers with a 503: the run's own changes are retried meanwhile. */
export function isUnavailable(error: unknown): boolean {
  return McpJsonRpcError.isError(error) && error.status === 503;
}

/** Tells a status change to the task's followers (requests keeping it alive, plugins' status listeners). */
export function tellFollowers(task: LocalTask, snapshot: TaskSnapshotLike): void {
  const followers = task.followers;
  if (!followers) return;
  for (const follow of followers) {
    try {
      follow(snapshot);
    } catch {
      // A follower's failure is its own request's problem, never the task's.
    }
  }
}

/** An unreferenced timer: a process waiting on nothing else still exits. */
export function sleepUnref(ms: number): Promise<void> {
  return new Promise((resolve) => (setTimeout(resolve, ms) as { unref?: () => void }).unref?.());
}
