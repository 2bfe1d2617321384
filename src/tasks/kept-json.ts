// The format a finished task is kept in: its `tasks/get` answer as JSON text, made once when the task
// finishes, sent as it is to every later `tasks/get`, and read back here (and only here) when a snapshot
// is needed again.
import type { TaskContext, TaskStatus } from "../../machines/task.machine.ts";
import { META } from "../protocol/types.ts";
import { taskMeta, toGetTaskResult, toTask, type TaskSnapshot } from "./envelopes.ts";

/**
 * A final snapshot's `tasks/get` result, serialised: what a finished task keeps. `resultJson` is the
 * completed task's result already serialised (the runtime serialises it once, to know it is JSON), spliced
 * in rather than serialised again; it goes last, where `toDetailedTask` puts the result.
 */
export function toGetTaskResultJson(snapshot: TaskSnapshot, resultJson?: string): string {
  if (resultJson === undefined || snapshot.value !== "completed" || snapshot.context.result?.resultType === undefined) {
    return JSON.stringify(toGetTaskResult(snapshot));
  }
  const head = JSON.stringify(toTask(snapshot, "complete"));
  const meta = taskMeta(snapshot.context);
  return `${head.slice(0, -1)},"result":${resultJson}${meta === undefined ? "" : `,"_meta":${JSON.stringify(meta)}`}}`;
}

/**
 * What every `toGetTaskResultJson` string starts with: the result type, then the task id (`toTask` puts
 * them first). A store that keeps the id elsewhere may keep only the rest.
 */
export function getTaskResultJsonHead(taskId: string): string {
  return `{"resultType":"complete","taskId":${JSON.stringify(taskId)}`;
}

/**
 * A finished task's `tasks/get` JSON without its head (which only repeats the id), for a store that keys
 * the task by its id anyway: the shortened form starts with ",". A JSON that does not start with the head
 * is kept whole, and `fullGetTaskResultJson` tells the two forms apart by that first character.
 */
export function shortGetTaskResultJson(taskId: string, json: string): string {
  const head = getTaskResultJsonHead(taskId);
  return json.startsWith(head) && json[head.length] === "," ? json.slice(head.length) : json;
}

/** The whole `tasks/get` JSON back from what `shortGetTaskResultJson` kept. */
export function fullGetTaskResultJson(taskId: string, kept: string): string {
  return kept.startsWith(",") ? getTaskResultJsonHead(taskId) + kept : kept;
}

/**
 * The final snapshot back from a finished task's kept `tasks/get` JSON, for a listener that missed the
 * final change and still gets the final frame. Only what the envelopes read is rebuilt: a field added to
 * the kept format is read back here, in one place.
 */
export function snapshotFromKeptJson(json: string): TaskSnapshot {
  const task = JSON.parse(json) as Record<string, any>;
  const context = {
    taskId: task.taskId,
    createdAt: Date.parse(task.createdAt),
    lastUpdatedAt: Date.parse(task.lastUpdatedAt),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    inputRequests: {},
    inputKeys: {},
    issuedKeys: [],
    answers: {},
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    ...(task.result !== undefined && { result: task.result }),
    ...(task.error !== undefined && { error: task.error }),
    ...(task._meta?.[META.attempt] !== undefined && { attempt: task._meta[META.attempt] }),
  } satisfies TaskContext;
  return { value: task.status as TaskStatus, context };
}
