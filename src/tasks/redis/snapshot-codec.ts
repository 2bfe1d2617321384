// A live task's snapshot as Redis holds it: the state value and the context, tagged with the chart that
// wrote it, and restored with `resolveState` before the chart's transition reads it.
import { createHash } from "node:crypto";
import { taskMachine, type TaskContext, type TaskStateValue } from "../../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import type { TaskSnapshotLike } from "../envelopes.ts";

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

/** When a task's snapshot says it expires (`createdAt + ttlMs`), or Infinity for an unlimited one. */
export function expiryOfSnapshot(snapshot: TaskSnapshotLike): number {
  const { ttlMs, createdAt } = snapshot.context;
  return ttlMs === null ? Infinity : createdAt + ttlMs;
}

function unreadable(id: string, why: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} cannot be read by this server: ${why}`);
}
