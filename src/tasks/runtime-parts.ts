// Small pieces both task runtimes use: a task's first actor, what a store's failure answers, and telling
// a status change to those who follow a task.
import { type AnyActorRef, createActor } from "xstate";
import { taskMachine } from "../../machines/task.machine.ts";
import type { McpTaskNamedRunOptions } from "../features/task-api.ts";
import type { ClientCapabilities, JsonObject } from "../protocol/types.ts";
import { ErrorCode, internalError, McpJsonRpcError, McpUsageError, taskOwnerFull, taskStoreFull } from "../protocol/errors.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { LocalTask } from "./local-tasks.ts";
import type { CreateOutcome, TaskLimits, TaskRunRecord, TaskStore } from "./store.ts";
import type { ServedRuns } from "./task-runs.ts";
import type { TaskRuntimeOptions } from "./runtime.ts";
import { bytesOver, inputTooLarge } from "./task-bytes.ts";

/** A new task's actor (not started yet), made from the runtime's settings. */
export function newTaskActor(options: TaskRuntimeOptions, id: string, at: number, statusMessage: string | undefined, attempt?: number): AnyActorRef {
  return createActor(taskMachine, {
    id,
    input: { taskId: id, now: at, ttlMs: options.ttlMs, pollIntervalMs: options.pollIntervalMs, statusMessage, attempt },
    inspect: options.inspect,
  });
}

/** The actor of a task read from the store (claimed here), at the state it was read in (not started yet). */
export function actorFromSnapshot(options: TaskRuntimeOptions, id: string, snapshot: TaskSnapshot): AnyActorRef {
  const c = snapshot.context;
  return createActor(taskMachine, {
    id,
    input: { taskId: id, now: c.createdAt, ttlMs: c.ttlMs, pollIntervalMs: c.pollIntervalMs },
    snapshot: taskMachine.resolveState({ value: snapshot.value, context: snapshot.context }),
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

/**
 * What creating a task whose run cannot leave this instance (a closure) answers while it drains: a 503 with
 * `Retry-After: 1`, so that a client (or a balancer) tries again, reaching an instance that is not stopping.
 */
export function drainingRefusal(): McpJsonRpcError {
  return new McpJsonRpcError(
    ErrorCode.InternalError,
    "This server instance is shutting down and starts no new task; try again, another instance will take it",
    undefined,
    503,
    { "retry-after": "1" },
  );
}

/** A store that cannot be reached answers with a 503: the run's own changes are retried meanwhile. */
export function isUnavailable(error: unknown): boolean {
  return McpJsonRpcError.isError(error) && error.status === 503;
}

/** Tells a status change to the task's followers (requests keeping it alive, plugins' status listeners). */
export function tellFollowers(task: LocalTask, snapshot: TaskSnapshot): void {
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
  return new Promise((resolve) => {
    setTimeout(resolve, ms).unref?.();
  });
}

/**
 * The record a task made from a run found by name keeps: the run must be one this instance serves (so
 * some instance can run its later attempts), and its input JSON data (copied: every attempt gets the same);
 * `tool` names the tool whose call creates the task (every attempt's result is checked against it). An input
 * over `maxTaskBytes` is the call's -32602.
 */
export function runRecordOf(runs: ServedRuns, task: McpTaskNamedRunOptions, store: TaskStore, caps: ClientCapabilities, tool: string | undefined, maxTaskBytes: number): TaskRunRecord {
  const run = task.run;
  if (typeof run !== "object" || run === null || typeof run.run !== "function") throw new McpUsageError("TASK_NO_RUN", "mcpTask needs a run(task) function or a run from defineTaskRun()");
  if (runs.get(run.name) !== run) throw new McpUsageError("TASK_RUN_UNSERVED", `mcpTask: the run ${run.name} is not in mcpTasks({ runs }): list it there on every instance that may run it`);
  if (!store.claim || !store.saveRun) throw new McpUsageError("TASK_RUN_UNKEPT", "mcpTask: this task store keeps no run records (saveRun), so it cannot take a run found by name; give a closure");
  // What asking for input on a later attempt, away from this request, checks the client declared.
  const client: JsonObject = {};
  for (const key of ["elicitation", "sampling", "roots"] as const) if (caps[key] !== undefined) client[key] = caps[key];
  if (task.input === undefined) return { name: run.name, version: run.version, input: undefined, client, tool };
  let json: string | undefined;
  try {
    json = JSON.stringify(task.input);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new McpUsageError("TASK_RUN_INPUT", `mcpTask: the input of run ${run.name} must be JSON data`);
  const bytes = bytesOver(json, maxTaskBytes);
  if (bytes !== undefined) throw inputTooLarge(`The input of run ${run.name}`, bytes, maxTaskBytes);
  return { name: run.name, version: run.version, input: JSON.parse(json), client, tool };
}

/** A run's call on a task that already ended. */
export function taskEnded(): McpUsageError {
  return new McpUsageError("TASK_ENDED", "The task has already ended");
}

/**
 * Whether a task waiting for a claim of a run this instance does not serve has waited `limitMs`, counted
 * from the later of the store's `waitingSince` and when this instance first saw it waiting (`seen`): an
 * instance acts only on a wait it has watched that long itself. Forgets the task once it has.
 */
export function waitedUnserved(seen: Map<string, number>, id: string, waitingSince: number | undefined, at: number, limitMs: number): boolean {
  let since = seen.get(id);
  if (since === undefined) seen.set(id, (since = at));
  if (at - Math.max(since, waitingSince ?? at) < limitMs) return false;
  seen.delete(id);
  return true;
}
