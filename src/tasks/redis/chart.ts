// The chart as a shared store uses it: a task's persisted snapshot is restored with `resolveState`
// and the next one computed with the chart's pure transition. The chart alone decides what changes.
import { createHash } from "node:crypto";
import { type ActorScope, type AnyMachineSnapshot, createActor } from "xstate";
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

/**
 * The chart's answer to `event` in `snapshot`: the next snapshot, or undefined when nothing changes.
 * `snapshot` may be a live actor's own snapshot (used as it is) or a plain stored one (resolved first).
 */
export function nextSnapshot(snapshot: TaskSnapshotLike, event: TaskEvent): { snapshot: TaskSnapshotLike; final: boolean } | undefined {
  const state = isMachineSnapshot(snapshot) ? snapshot : taskMachine.resolveState({ value: snapshot.value, context: snapshot.context });
  const next = taskMachine.transition(state as never, event, inertScope());
  // The chart hands back the very snapshot it was given when no transition was taken (an unknown
  // event, or a guard that refused: a repeated status message, an answer naming no open request).
  if (next === state) return undefined;
  return { snapshot: { value: next.value as TaskStateValue, context: next.context as TaskContext }, final: next.status === "done" };
}

// --- Internal ---

/**
 * What xstate's `transition()` builds on every call (an actor, its system and a scope whose effects go
 * nowhere), made once, on first use: nothing may run at import. The chart has no children, delays or
 * effects beyond `assign`, so one scope serves every task.
 */
let scope: ActorScope<any, any, any, any> | undefined;
function inertScope(): ActorScope<any, any, any, any> {
  if (scope) return scope;
  const self = createActor(taskMachine, { input: { taskId: "", now: 0, ttlMs: null, pollIntervalMs: 0 } });
  const none = () => {};
  scope = { self, defer: none, id: "", logger: none, sessionId: "", stopChild: none, system: self.system, emit: none, actionExecutor: none } as never;
  return scope!;
}

function isMachineSnapshot(snapshot: TaskSnapshotLike): snapshot is TaskSnapshotLike & AnyMachineSnapshot {
  return (snapshot as Partial<AnyMachineSnapshot>).machine === taskMachine;
}

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

/** When a task's snapshot says it expires (`createdAt + ttlMs`), or Infinity for an unlimited one. */
export function expiryOfSnapshot(snapshot: TaskSnapshotLike): number {
  const { ttlMs, createdAt } = snapshot.context;
  return ttlMs === null ? Infinity : createdAt + ttlMs;
}

/** When a finished task's JSON says it expires (`createdAt + ttlMs`), or Infinity for an unlimited one. */
export function expiryOfFinalJson(json: string): number {
  const ttl = /"ttlMs":(\d+)/.exec(json);
  const created = /"createdAt":"([^"]+)"/.exec(json);
  return ttl && created ? Date.parse(created[1]!) + Number(ttl[1]) : Infinity;
}
