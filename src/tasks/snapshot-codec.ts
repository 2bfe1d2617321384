// A live task's snapshot as a store outside this process holds it (Redis, Postgres, SQLite): the state value and the context, tagged with the chart that
// wrote it, and restored with `resolveState` before the chart's transition reads it.
import { createHash } from "node:crypto";
import { taskMachine, type TaskContext, type TaskStatus } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import type { TaskSnapshot } from "./envelopes.ts";

/**
 * Identifies the chart a snapshot was written by; stored beside every live snapshot. A snapshot another
 * chart version wrote (an instance of the previous or next deploy) is read into this chart when it fits it:
 * a state this chart has and the context fields it reads. One that does not fit is refused, never guessed at.
 */
export const CHART_VERSION = createHash("sha256").update(JSON.stringify(taskMachine.definition)).digest("base64url").slice(0, 16);

/** What is persisted per live task: the state value and the context, nothing xstate can rebuild. */
export function encodeSnapshot(snapshot: TaskSnapshot): string {
  return JSON.stringify({ value: snapshot.value, context: snapshot.context });
}

/** A stored snapshot, checked; a clear -32603 when it cannot be read into this chart. */
export function decodeSnapshot(id: string, chartVersion: string, json: string): TaskSnapshot {
  try {
    const parsed = JSON.parse(json) as { value: unknown; context: unknown };
    if (chartVersion !== CHART_VERSION) assertFits(parsed.context);
    const state = taskMachine.resolveState({ value: parsed.value as TaskStatus, context: parsed.context as TaskContext });
    return { value: state.value as TaskStatus, context: state.context as TaskContext };
  } catch (error) {
    const message = (error as Error).message;
    throw unreadable(
      id,
      chartVersion === CHART_VERSION
        ? `its snapshot does not fit the chart (${message})`
        : `it was written by task chart version ${chartVersion || "(none)"} and does not fit this server's chart ${CHART_VERSION} (${message})`,
    );
  }
}

// What this chart's context must have, and of what kind, to take a snapshot another chart version wrote.
const CONTEXT_FIELDS: Record<string, (value: unknown) => boolean> = {
  taskId: (v) => typeof v === "string",
  createdAt: (v) => typeof v === "number",
  lastUpdatedAt: (v) => typeof v === "number",
  ttlMs: (v) => v === null || typeof v === "number",
  pollIntervalMs: (v) => typeof v === "number",
  inputRequests: (v) => typeof v === "object" && v !== null,
  inputKeys: (v) => typeof v === "object" && v !== null,
  issuedKeys: Array.isArray,
  answers: (v) => typeof v === "object" && v !== null,
};

function assertFits(context: unknown): void {
  if (typeof context !== "object" || context === null) throw new Error("no context");
  for (const [field, fits] of Object.entries(CONTEXT_FIELDS)) {
    if (!fits((context as Record<string, unknown>)[field])) throw new Error(`context.${field} is missing or not what this chart reads`);
  }
}

/** When a task's snapshot says it expires (`createdAt + ttlMs`), or Infinity for an unlimited one. */
export function expiryOfSnapshot(snapshot: TaskSnapshot): number {
  const { ttlMs, createdAt } = snapshot.context;
  return ttlMs === null ? Infinity : createdAt + ttlMs;
}

function unreadable(id: string, why: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} cannot be read by this server: ${why}`);
}
