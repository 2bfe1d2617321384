// A task's wire envelopes, built from the chart's snapshot: the Task a creation answers, the DetailedTask
// that `tasks/get` and `notifications/tasks` carry. Fields are picked by name; context is never spread.
import type { TaskContext, TaskStatus } from "../../machines/task.machine.ts";
import { ErrorCode } from "../protocol/errors.ts";
import { META, type CreateTaskResult, type JsonObject } from "../protocol/types.ts";
import { toErrorObject } from "../protocol/wire.ts";

/**
 * A task's chart snapshot as the package passes it: the state value and the context of
 * `machines/task.machine.ts`, both JSON data. A store keeps it and gives it back without looking inside.
 */
export interface TaskSnapshot {
  value: TaskStatus;
  context: TaskContext;
}

// The chart's state names are the protocol's status spellings; this table keeps that explicit.
const TASK_STATUS = {
  working: "working",
  input_required: "input_required",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
} as const satisfies Record<TaskStatus, string>;

export function isTerminalStatus(value: TaskStatus): boolean {
  return value === "completed" || value === "failed" || value === "cancelled";
}

/**
 * Whether listeners hear of a change (`notifications/tasks`): what the envelope tells of the task beyond its
 * status message and times changed, that is its status, or the attempt of a run found by name (its `_meta`).
 */
export function isNotified(previous: TaskSnapshot, next: TaskSnapshot): boolean {
  return next.value !== previous.value || next.context.attempt !== previous.context.attempt;
}

/** The Task fields common to every envelope. Picks named fields; never spreads context. */
export function toTask(snapshot: TaskSnapshot, resultType?: "complete"): JsonObject {
  const c = snapshot.context;
  // With a resultType (a result of its own rather than a Task inside one), it comes first.
  const task: JsonObject = resultType ? { resultType, taskId: c.taskId, status: TASK_STATUS[snapshot.value] } : { taskId: c.taskId, status: TASK_STATUS[snapshot.value] };
  if (c.statusMessage !== undefined) task.statusMessage = c.statusMessage;
  task.createdAt = isoTime(c.createdAt);
  task.lastUpdatedAt = c.lastUpdatedAt === c.createdAt ? task.createdAt : isoTime(c.lastUpdatedAt);
  task.ttlMs = c.ttlMs;
  task.pollIntervalMs = c.pollIntervalMs;
  return task;
}

// A task's two times are the same millisecond at creation, and often still when a quick run ends: the
// envelopes format such a pair once, formatting being a measurable share of what a creation adds.
function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** DetailedTask: Task plus the fields its status requires. */
export function toDetailedTask(snapshot: TaskSnapshot): JsonObject {
  const task = toTask(snapshot);
  const c = snapshot.context;
  switch (snapshot.value) {
    case "input_required":
      task.inputRequests = c.inputRequests;
      break;
    case "completed":
      // The inlined result is a 2026-07-28 CallToolResult, which carries its own resultType.
      task.result = c.result && c.result.resultType === undefined ? { resultType: "complete", ...c.result } : c.result;
      break;
    case "failed":
      task.error = c.error ? toErrorObject(c.error) : { code: ErrorCode.InternalError, message: "Task failed" };
      break;
  }
  // A run found by name tells its attempt, last (where a kept answer's own `_meta` is found, in wire.ts).
  const meta = taskMeta(c);
  if (meta !== undefined) task._meta = meta;
  return task;
}

/**
 * A task's own `_meta`, on every envelope that carries one: the attempt of a run found by name, 1-based.
 * None for a closure, and none before the first attempt is claimed: a task handed to an executor is stored
 * with attempt 0, which means no attempt has begun, not an attempt numbered 0.
 */
export function taskMeta(context: Pick<TaskContext, "attempt">): JsonObject | undefined {
  const attempt = context.attempt;
  return attempt !== undefined && attempt > 0 ? { [META.attempt]: attempt } : undefined;
}

/** The handle of a task just created (so `working`). */
export function toCreateTaskResult(snapshot: TaskSnapshot): CreateTaskResult {
  const c = snapshot.context;
  const createdAt = isoTime(c.createdAt);
  const lastUpdatedAt = c.lastUpdatedAt === c.createdAt ? createdAt : isoTime(c.lastUpdatedAt);
  return c.statusMessage === undefined
    ? { resultType: "task", taskId: c.taskId, status: "working", createdAt, lastUpdatedAt, ttlMs: c.ttlMs, pollIntervalMs: c.pollIntervalMs }
    : { resultType: "task", taskId: c.taskId, status: "working", statusMessage: c.statusMessage, createdAt, lastUpdatedAt, ttlMs: c.ttlMs, pollIntervalMs: c.pollIntervalMs };
}

export function toGetTaskResult(snapshot: TaskSnapshot): JsonObject {
  return { resultType: "complete", ...toDetailedTask(snapshot) };
}

/** The answer of `tasks/cancel` and of an accepted `tasks/update`: a result with nothing in it. */
export const EMPTY_ACK: JsonObject = Object.freeze({ resultType: "complete" }) as JsonObject;
