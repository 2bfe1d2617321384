// What the test client reads off the wire, typed: the task shapes of the tasks extension and the results of
// a tools/call, as a 2026-07-28 server sends them.
import type { InputRequest, TaskStatus } from "../../../machines/task.machine.ts";
import { META, type CallToolResult, type ClientCapabilities, type Implementation, type InputRequiredResult, type JsonObject } from "../../protocol/types.ts";

/** A task's status on the wire (the chart's state names). */
export type { TaskStatus };


/** A JSON-RPC error object. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * What the server tells of a task itself in `_meta`, as tasks/get and notifications/tasks carry it; the keys
 * that belong to the message instead (the server's `serverInfo`, a listen stream's `subscriptionId`) are
 * not part of it.
 */
export interface TaskMeta {
  /**
   * For a run found by name (`defineTaskRun`): the attempt that holds the task or held it last, 1-based.
   * Absent for a closure's task, and until the first attempt is claimed.
   */
  [META.attempt]?: number;
  [key: string]: unknown;
}

/** A task as tasks/get and notifications/tasks show it: the task fields and the one its status calls for. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  /** The open requests, by key; only while `input_required`. */
  inputRequests?: Record<string, InputRequest>;
  /** The tool's result; only once `completed`. */
  result?: CallToolResult;
  /** Why it failed; only once `failed`. */
  error?: WireError;
  /** The task's own `_meta`; absent when the server tells nothing of the task there. */
  _meta?: TaskMeta;
}

// The `_meta` keys that describe the message carrying a task, not the task.
const MESSAGE_META: readonly string[] = [META.serverInfo, META.subscriptionId];

/**
 * The task view of a tasks/get result or a notifications/tasks frame's params: its fields as sent, without
 * the result's `resultType`, and with `_meta` holding only what is the task's own.
 */
export function taskViewOf(fields: TaskView & { resultType?: string; _meta?: JsonObject }): TaskView {
  const { resultType: _type, _meta: meta, ...task } = fields;
  if (meta === undefined) return task;
  const own = Object.entries(meta).filter(([key]) => !MESSAGE_META.includes(key));
  return own.length === 0 ? task : { ...task, _meta: Object.fromEntries(own) as TaskMeta };
}

/** What tools/call answers: a result, a task handle, or a request for input first (MRTR). */
export type ToolCallAnswer =
  | ({ resultType: "complete" } & CallToolResult)
  | ({ resultType: "task" } & Omit<TaskView, "inputRequests" | "result" | "error" | "_meta">)
  | InputRequiredResult;

/** A tool call followed to its end (see `TestClient.runTool`). */
export interface ToolRun {
  /** `completed` for a tool that answered at once as well. */
  status: "completed" | "failed" | "cancelled";
  /** The tool's result, when it completed (it may carry `isError: true`). */
  result?: CallToolResult;
  /** The JSON-RPC error: the task's error when it failed, or the error tools/call answered with. */
  error?: WireError;
  /** The task, when the call made one: its last state. */
  task?: TaskView;
  /** Input rounds answered on the way (MRTR retries and tasks/update calls). */
  inputRounds: number;
}

/** Answers a round of input requests: a response for each key (the keys the server sent). */
export type InputAnswerer = (requests: Record<string, InputRequest>, task?: TaskView) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** One HTTP exchange: the status, headers and every JSON-RPC message of the answer (JSON or SSE). */
export interface TestResponse {
  status: number;
  headers: Headers;
  /** Every message, in order: notifications the server sent on the way, then the response. */
  messages: any[];
  /** The response to this request (the message with its id), if the server sent one. */
  message?: any;
  /** Its result, if it succeeded. */
  result?: any;
  /** Its error, if it failed. */
  error?: WireError;
}

export interface TestClientOptions {
  /** The MCP route; a path is taken relative to `http://localhost`. Default `/mcp`. */
  url?: string;
  /** Headers sent with every request, such as `authorization`. */
  headers?: Record<string, string>;
  /** Sent as `authorization: Bearer <token>` with every request. */
  token?: string;
  /** The client's capabilities. Default: the tasks extension and form elicitation. */
  capabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  /** How long `waitForTask`, `runTool` and a listener's `next` wait, in ms. Default 4000 (below the 5 s test timeout of vitest and jest). */
  timeoutMs?: number;
  /**
   * How often `waitForTask` asks tasks/get, in ms. Default 5: a test need not wait the `pollIntervalMs`
   * the server advises real clients.
   */
  pollMs?: number;
  /** Told every JSON-RPC message the client reads (for example to check it against the official schemas). */
  onMessage?(message: any, context: { method: string }): void;
}
