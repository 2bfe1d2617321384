// What the test client reads off the wire, typed: the task shapes of the tasks extension and the results of
// a tools/call, as a 2026-07-28 server sends them.
import type { TaskStateValue } from "../../../machines/task.machine.ts";
import type { CallToolResult, ClientCapabilities, Implementation, InputRequiredResult, JsonObject } from "../../protocol/types.ts";

/** A task's status on the wire (the chart's state names). */
export type TaskStatus = TaskStateValue;

/** One request for client input, as the server sends it under `inputRequests`. */
export interface WireInputRequest {
  method: string;
  params?: JsonObject;
}

/** A JSON-RPC error object. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
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
  inputRequests?: Record<string, WireInputRequest>;
  /** The tool's result; only once `completed`. */
  result?: CallToolResult;
  /** Why it failed; only once `failed`. */
  error?: WireError;
}

/** What tools/call answers: a result, a task handle, or a request for input first (MRTR). */
export type ToolCallAnswer =
  | ({ resultType: "complete" } & CallToolResult)
  | ({ resultType: "task" } & Omit<TaskView, "inputRequests" | "result" | "error">)
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
export type InputAnswerer = (requests: Record<string, WireInputRequest>, task?: TaskView) => Record<string, unknown> | Promise<Record<string, unknown>>;

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
  /** How long `waitForTask`, `runTool` and a listener's `next` wait, in ms. Default 5000. */
  timeoutMs?: number;
  /**
   * How often `waitForTask` asks tasks/get, in ms. Default 5: a test need not wait the `pollIntervalMs`
   * the server advises real clients.
   */
  pollMs?: number;
  /** Told every JSON-RPC message the client reads (for example to check it against the official schemas). */
  onMessage?(message: any, context: { method: string }): void;
}
