// Every event the tasks package sends the chart, made here and nowhere else. Each says what happened (a
// run's outcome, a client's change, the clock, an instance's claim or loss); what it does to the task is
// the chart's to decide (machines/task.machine.ts), so nothing here looks at a task's state.
import type { AttemptLossReason, InputRequest, JsonRpcErrorObject, TaskEvent } from "../../../machines/task.machine.ts";
import type { JsonObject } from "../../protocol/types.ts";

/** Any one of them, by its type. */
export type TaskEventOf<T extends TaskEvent["type"]> = Extract<TaskEvent, { type: T }>;

/** The run reported progress. */
export function statusUpdated(statusMessage: string, at: number): TaskEventOf<"status.update"> {
  return { type: "status.update", statusMessage, at };
}

/** The run asked the client for input (`requests` by the keys it asked with). */
export function inputRequested(requests: Record<string, InputRequest>, at: number): TaskEventOf<"input.request"> {
  return { type: "input.request", requests, at };
}

/** A client answered through tasks/update (`responses` by wire key). */
export function inputAnswered(responses: Record<string, unknown>, at: number): TaskEventOf<"input.answer"> {
  return { type: "input.answer", responses, at };
}

/** The run returned a result. */
export function workDone(result: Record<string, unknown>, at: number): TaskEventOf<"work.done"> {
  return { type: "work.done", result, at };
}

/** The run threw something other than a protocol error. */
export function workToolError(message: string, at: number): TaskEventOf<"work.toolError"> {
  return { type: "work.toolError", message, at };
}

/** The run (or its result) failed with a protocol error. */
export function workProtocolError(error: JsonRpcErrorObject, at: number): TaskEventOf<"work.protocolError"> {
  return { type: "work.protocolError", error, at };
}

/** The task's executor refused its run or gave up on it (`data` says which executor). */
export function executorFailed(message: string, data: JsonObject, at: number): TaskEventOf<"work.protocolError"> {
  return workProtocolError({ code: -32603, message, data }, at);
}

/** A client cancelled the task through tasks/cancel. */
export function cancelled(at: number): TaskEventOf<"task.cancel"> {
  return { type: "task.cancel", at };
}

/** The task's ttl ran out. */
export function expired(at: number): TaskEventOf<"task.expire"> {
  return { type: "task.expire", at };
}

/** The instance running a closure's task was lost (its lease lapsed). */
export function instanceLost(at: number): TaskEventOf<"instance.lost"> {
  return { type: "instance.lost", at };
}

/**
 * An instance claimed attempt `attempt` of a run found by name; with the run's `maxAttempts`, the chart judges
 * the claim whole (the previous holder's loss, the attempts spent, the budget).
 */
export function attemptClaimed(attempt: number, at: number, maxAttempts?: number): TaskEventOf<"attempt.claimed"> {
  return maxAttempts === undefined ? { type: "attempt.claimed", attempt, at } : { type: "attempt.claimed", attempt, maxAttempts, at };
}

/** The attempt holding a run found by name lost its hold, for `reason`; `maxAttempts` is the run's. */
export function attemptLost(reason: AttemptLossReason, retryable: boolean, maxAttempts: number, at: number): TaskEventOf<"attempt.lost"> {
  return { type: "attempt.lost", reason, retryable, maxAttempts, at };
}

/** A drain hands the attempt here off to another instance (the chart refuses it to a run allowed one attempt). */
export function handedOff(maxAttempts: number, at: number): TaskEventOf<"attempt.lost"> {
  return attemptLost("shutdown", true, maxAttempts, at);
}

/** A drain ends a run that cannot go on after this instance: the task fails, saying the instance shut down. */
export function shutDown(at: number): TaskEventOf<"attempt.lost"> {
  return attemptLost("shutdown", false, 1, at);
}

/** No instance serves the task's run, and it waited long enough for one. */
export function unserved(at: number): TaskEventOf<"attempt.lost"> {
  return attemptLost("unserved", false, 1, at);
}
