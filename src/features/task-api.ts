// The user-facing task calls. They live in the core so `mcpTask` can be imported from "h3-mcp"
// too, yet they only look up the tasks plugin on the request: the core never loads it.
import type { H3Event } from "h3";
import { getMcpContext, getRequestContext, type McpContext } from "./request-context.ts";
import { ErrorCode, McpJsonRpcError, missingCapability } from "../protocol/errors.ts";
import type { InputAnswers, InputRequest } from "./mrtr/input-requests.ts";
import type { McpExtensionPlugin } from "./extension-plugin.ts";
import type { CallToolResult, CreateTaskResult } from "../protocol/types.ts";

/** The tasks extension identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** What `run` gets: the task it works for. */
export interface McpTaskContext {
  readonly taskId: string;
  /** What the task carries from the call that created it (`mcpTasks({ origin })`), if anything. */
  readonly origin?: Record<string, unknown>;
  /** Aborted by `tasks/cancel` and by expiry. Cancellation is cooperative: honour it. */
  readonly signal: AbortSignal;
  /**
   * Sets the status message every later `tasks/get` shows. Throws for one over `mcpTasks({ maxTaskBytes })`
   * (McpUsageError `TASK_TOO_LARGE`).
   */
  update(update: { statusMessage: string }): void;
  /**
   * Waits `ms` between steps: resolves after `ms`, rejects with `signal.reason` the moment `signal` aborts
   * (at once if it has), and leaves no listener on `signal` either way.
   */
  sleep(ms: number): Promise<void>;
  /**
   * Parks the task in `input_required` until the client has answered every request through
   * `tasks/update`. The answers are typed by the requests and are unvalidated client input. Rejects for
   * questions over `mcpTasks({ maxTaskBytes })`, and with `TASK_ENDED` when the task ends first (a rejection
   * never reported as unhandled: a run may return without awaiting its question).
   */
  requestInput<R extends Record<string, InputRequest>>(requests: R): Promise<InputAnswers<R>>;
}

/** What a run found by name (`defineTaskRun`) gets: the task, and which attempt at it this is. */
export interface McpTaskRunContext extends McpTaskContext {
  /** This attempt at the run, 1-based: a later one follows an instance lost or shut down. */
  readonly attempt: number;
  /** What the previous attempt saved with `saveCheckpoint`, or undefined (attempt 1, or nothing saved). */
  readonly checkpoint: unknown;
  /**
   * Keeps `value` (JSON data of at most `mcpTasks({ maxTaskBytes })`, or it rejects with McpUsageError
   * `TASK_TOO_LARGE`) for the next attempt. Rejects, and the signal aborts, when this
   * attempt no longer holds the task (its lease was lost) or the task ended elsewhere (cancelled through
   * another instance before this one heard of it): its writes never land.
   */
  saveCheckpoint(value: unknown): Promise<void>;
}

/** A task's run found by name on any instance that serves it (made by `defineTaskRun` from "h3-mcp/tasks"). */
export interface McpTaskRunDefinition<I = any> {
  readonly name: string;
  /** An instance runs only attempts whose version it serves (its own or lower). */
  readonly version: number;
  /** Attempts at most; above 1 the run is retryable: delivered again after its instance is lost. */
  readonly maxAttempts: number;
  run(task: McpTaskRunContext, input: I): Promise<CallToolResult | string> | CallToolResult | string;
}

/** The work as a closure: runs in this process only, and fails with it. */
export interface McpTaskClosureOptions {
  /** The status message of the new task. */
  statusMessage?: string;
  /**
   * The work. Return a CallToolResult, or a string for a result of one text block (as a tool handler may);
   * throw an Error for a tool error, a McpJsonRpcError for a protocol error.
   */
  run(task: McpTaskContext): Promise<CallToolResult | string> | CallToolResult | string;
}

/** The work as a run found by name, with its input (JSON data, kept with the task for a later attempt). */
export interface McpTaskNamedRunOptions<I = any> {
  /** The status message of the new task. */
  statusMessage?: string;
  run: McpTaskRunDefinition<I>;
  input: I;
}

export type McpTaskOptions = McpTaskClosureOptions | McpTaskNamedRunOptions;

/**
 * What the tasks plugin offers these calls. It is registered against the plugin object (`offerTasks`) rather
 * than carried on the plugin's public type.
 */
export interface TaskCreator {
  createTask(event: H3Event, options: McpTaskOptions): CreateTaskResult | Promise<CreateTaskResult>;
  /** The plugin's own refusal for this request (a full store, a Worker that cannot keep a run alive), or undefined when it can create a task. */
  refusal(event: H3Event): McpJsonRpcError | undefined;
}

const creators = new WeakMap<McpExtensionPlugin, TaskCreator>();

/** Makes `plugin` the one `mcpTask` and `canCreateTask` ask, on every request it is enabled for. */
export function offerTasks(plugin: McpExtensionPlugin, creator: TaskCreator): void {
  creators.set(plugin, creator);
}

/**
 * True when this request may be answered with a task: a 2026-07-28 `tools/call` whose own
 * capabilities declare the extension, with `mcpTasks()` installed and enabled for it, room in the
 * store, and a client still there.
 *
 * @example
 * if (!canCreateTask(event)) return renderSynchronously();
 */
export function canCreateTask(event: H3Event): boolean {
  return whyNoTask(event) === undefined;
}

/**
 * Answers this `tools/call` with a task: the work continues after the response and the client
 * polls `tasks/get`. Where no task can be created (see `canCreateTask`) it throws the JSON-RPC error
 * the call answers with: -32021 naming the extension when the client did not declare it, a -32603
 * naming the cause when declaring would not help. With a shared store (Redis) it answers with a
 * promise, settled once the task is stored; return it from the handler either way.
 *
 * `run` is a closure (it runs here, and fails with this process) or a run found by name (`defineTaskRun`
 * from "h3-mcp/tasks", listed in `mcpTasks({ runs })`) with its `input`: retryable on another instance.
 *
 * @example
 * return mcpTask(event, { statusMessage: "Queued", async run(task) { return { content: [] }; } });
 */
export function mcpTask(event: H3Event, options: McpTaskClosureOptions): CreateTaskResult | Promise<CreateTaskResult>;
export function mcpTask<I>(event: H3Event, options: McpTaskNamedRunOptions<I>): CreateTaskResult | Promise<CreateTaskResult>;
export function mcpTask(event: H3Event, options: McpTaskOptions): CreateTaskResult | Promise<CreateTaskResult>;
export function mcpTask(event: H3Event, options: McpTaskOptions): CreateTaskResult | Promise<CreateTaskResult> {
  const why = whyNoTask(event);
  if (why) throw refusalError(event, why);
  return tasksPlugin(event)!.createTask(event, options);
}

/**
 * Throws the `-32021` a `tasks/*` request (or a task listen) answers with when its own capabilities do
 * not declare the extension.
 */
export function requireTasksDeclared(event: H3Event): void {
  const ctx = getMcpContext(event);
  if (ctx.era !== "modern" || !declaresTasks(ctx)) throw tasksUndeclared();
}

/**
 * `taskSupport: "required"`: the error a `tools/call` of this tool answers with before its handler
 * runs, when no task can be created for the request; undefined when one can.
 */
export function requiredTaskRefusal(event: H3Event, toolName: string): McpJsonRpcError | undefined {
  const why = whyNoTask(event);
  if (!why) return undefined;
  if (why === "legacy") {
    const ctx = getMcpContext(event);
    return new McpJsonRpcError(
      ErrorCode.MethodNotFound,
      `Tool ${toolName} can only run as a task, which protocol ${ctx.protocolVersion} does not support; use 2026-07-28 with the ${TASKS_EXTENSION} extension`,
    );
  }
  return refusalError(event, why);
}

// --- Internal ---

const REQUIRED = { extensions: { [TASKS_EXTENSION]: {} } };

/** Whether the request's own capabilities declare the extension. */
function declaresTasks(ctx: McpContext): boolean {
  return !!ctx.clientCapabilities.extensions?.[TASKS_EXTENSION];
}

/** `-32021` naming the extension: declaring it would help. */
function tasksUndeclared(): McpJsonRpcError {
  return missingCapability(REQUIRED);
}

/** Why no task: a cheap tag, so that `canCreateTask` builds no error object. */
type Refusal = "legacy" | "not-installed" | "not-enabled" | "method" | "undeclared" | "gone" | "plugin";

function tasksPlugin(event: H3Event): TaskCreator | undefined {
  const plugin = getMcpContext(event).extensions.get(TASKS_EXTENSION);
  return plugin && creators.get(plugin);
}

function whyNoTask(event: H3Event): Refusal | undefined {
  const ctx = getRequestContext(event);
  if (ctx.era !== "modern") return "legacy";
  const plugin = tasksPlugin(event);
  if (!plugin) {
    const installed = ctx.mount.plugins.some((p) => p.id === TASKS_EXTENSION);
    return installed ? "not-enabled" : "not-installed";
  }
  if (ctx.method !== "tools/call") return "method";
  if (!declaresTasks(ctx)) return "undeclared";
  // A task for a caller that already went away would hold a slot for its whole ttl with nobody to poll it.
  if (ctx.gone()) return "gone";
  return plugin.refusal(event) ? "plugin" : undefined;
}

function refusalError(event: H3Event, why: Refusal): McpJsonRpcError {
  const internal = (message: string) => new McpJsonRpcError(ErrorCode.InternalError, message);
  switch (why) {
    case "legacy":
      return new McpJsonRpcError(
        ErrorCode.MethodNotFound,
        `Tasks need protocol 2026-07-28 with the ${TASKS_EXTENSION} extension; this request speaks ${getMcpContext(event).protocolVersion}`,
      );
    case "not-installed":
      return internal("The tasks extension is not installed: add mcpTasks() to extensionPlugins");
    case "not-enabled":
      return internal("The tasks extension is not enabled for this request");
    case "method":
      return internal("Only tools/call may be answered with a task");
    case "undeclared":
      return tasksUndeclared();
    case "gone":
      return internal("The client went away before the task was created");
    case "plugin":
      return tasksPlugin(event)!.refusal(event) ?? internal("No task can be created for this request");
  }
}
