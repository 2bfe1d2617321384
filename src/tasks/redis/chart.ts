// The chart as a shared store uses it: a task's persisted snapshot is restored with `resolveState`
// and the next one computed with xstate's pure `transition()`. The chart alone decides what changes.
import { createHash } from "node:crypto";
import { transition } from "xstate";
import { taskMachine, type TaskContext, type TaskEvent, type TaskStateValue } from "../../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import type { TaskSnapshotLike } from "../../protocol/wire.ts";

/**
 * Identifies the chart a snapshot was written by; stored beside every live snapshot. Instances
 * running a different chart refuse the snapshot rather than guess at it.
 */
export const CHART_VERSION = createHash("sha256").update(JSON.stringify(taskMachine.definition)).digest("base64url").slice(0, 16);

/** What is persisted per live task: the state value and the context, nothing xstate can rebuild. */
export function encodeSnapshot(snapshot: TaskSnapshotLike): string {
  return JSON.stringify({ value: snapshot.value, context: snapshot.context });
}

/** A stored snapshot, checked; a clear -32603 when it was written by another chart or cannot be read. */
export function decodeSnapshot(id: string, chartVersion: string, json: string): TaskSnapshotLike {
  if (chartVersion !== CHART_VERSION) {
    throw unreadable(id, `it was written by task chart version ${chartVersion || "(none)"}, this server runs ${CHART_VERSION}`);
  }
  try {
    const parsed = JSON.parse(json) as { value: unknown; context: unknown };
    const state = taskMachine.resolveState({ value: parsed.value as TaskStateValue, context: parsed.context as TaskContext });
    return { value: state.value as TaskStateValue, context: state.context as TaskContext };
  } catch (error) {
    throw unreadable(id, `its snapshot does not fit the chart (${(error as Error).message})`);
  }
}

/** The chart's answer to `event` in `snapshot`: the next snapshot, or undefined when nothing changes. */
export function nextSnapshot(snapshot: TaskSnapshotLike, event: TaskEvent): { snapshot: TaskSnapshotLike; final: boolean } | undefined {
  const state = taskMachine.resolveState({ value: snapshot.value, context: snapshot.context });
  const [next] = transition(taskMachine, state, event);
  // xstate hands back the same snapshot when no transition was taken.
  if (next === state) return undefined;
  const out = { value: next.value as TaskStateValue, context: next.context as TaskContext };
  if (out.value === snapshot.value && JSON.stringify(out.context) === JSON.stringify(snapshot.context)) return undefined;
  return { snapshot: out, final: next.status === "done" };
}

// --- Internal ---

function unreadable(id: string, why: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} cannot be read by this server: ${why}`);
}

/**
 * The snapshot fields a notification reads, back from a finished task's kept tasks/get JSON (a listener
 * that missed the final change still gets the final frame). Only what `toDetailedTask` reads is rebuilt.
 */
export function snapshotFromFinalJson(json: string): TaskSnapshotLike {
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
  } satisfies TaskContext;
  return { value: task.status as TaskStateValue, context };
}

/** The status a finished task's JSON records (it comes second, right after the id). */
export function statusOfFinalJson(json: string): TaskStateValue {
  return (/"status":"([a-z_]+)"/.exec(json)?.[1] ?? "failed") as TaskStateValue;
}

/** When a finished task's JSON says it expires (`createdAt + ttlMs`), or Infinity for an unlimited one. */
export function expiryOfFinalJson(json: string): number {
  const ttl = /"ttlMs":(\d+)/.exec(json);
  const created = /"createdAt":"([^"]+)"/.exec(json);
  return ttl && created ? Date.parse(created[1]!) + Number(ttl[1]) : Infinity;
}
