// The user-facing task calls. They live in the core so `mcpTask` can be imported from "h3-mcp"
// too, yet they only look up the tasks plugin on the request: the core never loads it.
import type { H3Event } from "h3";
import { getMcpContext } from "./request-context.ts";
import { McpUsageError } from "../protocol/errors.ts";
import type { InputAnswers, InputRequest } from "./mrtr/input-requests.ts";
import type { ServedMount } from "./call-context.ts";
import type { McpExtensionPlugin } from "./extension-plugin.ts";
import type { CallToolResult, CreateTaskResult } from "../protocol/types.ts";

/** The tasks extension identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** What `run` gets: the task it works for. */
export interface McpTaskContext {
  readonly taskId: string;
  /** Aborted by `tasks/cancel` and by expiry. Cancellation is cooperative: honour it. */
  readonly signal: AbortSignal;
  /** Sets the status message every later `tasks/get` shows. */
  update(update: { statusMessage: string }): void;
  /**
   * Parks the task in `input_required` until the client has answered every request through
   * `tasks/update`. The answers are typed by the requests and are unvalidated client input.
   */
  requestInput<R extends Record<string, InputRequest>>(requests: R): Promise<InputAnswers<R>>;
}

export interface McpTaskOptions {
  /** The status message of the new task. */
  statusMessage?: string;
  /** The work. Return a CallToolResult; throw an Error for a tool error, a McpJsonRpcError for a protocol error. */
  run(task: McpTaskContext): Promise<CallToolResult> | CallToolResult;
}

/** @internal What the tasks plugin offers these calls. */
export interface TaskCapablePlugin extends McpExtensionPlugin {
  "~createTask"(event: H3Event, options: McpTaskOptions): CreateTaskResult | Promise<CreateTaskResult>;
  /** Why no task can be created for this request, or undefined when one can. */
  "~whyNot"(event: H3Event): string | undefined;
}

/**
 * True when this request may be answered with a task: a 2026-07-28 request whose own
 * capabilities declare the extension, with `mcpTasks()` installed and enabled for it.
 *
 * @example
 * if (!canCreateTask(event)) return renderSynchronously();
 */
export function canCreateTask(event: H3Event): boolean {
  return whyNoTask(event) === undefined;
}

/**
 * Answers this `tools/call` with a task: the work continues after the response and the client
 * polls `tasks/get`. Throws when no task can be created for this request (see `canCreateTask`).
 * With a shared store (Redis) it answers with a promise, settled once the task is stored; return it
 * from the handler either way.
 *
 * @example
 * return mcpTask(event, { statusMessage: "Queued", async run(task) { return { content: [] }; } });
 */
export function mcpTask(event: H3Event, options: McpTaskOptions): CreateTaskResult | Promise<CreateTaskResult> {
  const reason = whyNoTask(event);
  if (reason) throw new McpUsageError("TASK_NOT_AVAILABLE", reason);
  return tasksPlugin(event)!["~createTask"](event, options);
}

// --- Internal ---

function tasksPlugin(event: H3Event): TaskCapablePlugin | undefined {
  return getMcpContext(event).extensions.get(TASKS_EXTENSION) as TaskCapablePlugin | undefined;
}

function whyNoTask(event: H3Event): string | undefined {
  const ctx = getMcpContext(event);
  if (ctx.era !== "modern") return `Tasks need protocol 2026-07-28; this request speaks ${ctx.protocolVersion}`;
  const plugin = tasksPlugin(event);
  if (!plugin) {
    const installed = (ctx["~server"] as ServedMount).plugins.some((p) => p.id === TASKS_EXTENSION);
    return installed
      ? "The tasks extension is not enabled for this request"
      : "The tasks extension is not installed: add mcpTasks() to extensionPlugins";
  }
  if (ctx.method !== "tools/call") return "Only tools/call may be answered with a task";
  if (!ctx.clientCapabilities.extensions?.[TASKS_EXTENSION]) {
    return `The client did not declare ${TASKS_EXTENSION} on this request`;
  }
  return plugin["~whyNot"](event);
}
