// Shared by the reliability tests and by scripts/fuzz.ts and scripts/soak.ts, so nothing here imports vitest.
import * as core from "@modelcontextprotocol/core";
import * as tasks from "@modelcontextprotocol/ext-tasks/core/v2";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { H3 } from "h3";
import type { McpHandler } from "../../src/transport/handler.ts";
import { NAME_PARAM } from "../helpers/name-params.ts";

export const V = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";
export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPS = "io.modelcontextprotocol/clientCapabilities";
export const META_SUB = "io.modelcontextprotocol/subscriptionId";
/** The header the reliability apps bind tasks to (`mcpTasks({ bind })`). */
export const CALLER = "x-caller";
/** 2026-07-28T10:30:00Z, the fake clock's start. */
export const T0 = Date.UTC(2026, 6, 28, 10, 30);

/** A fake clock for `mcpTasks({ clock })` (give it `{ now: clock.read }`). */
export function createClock(start = T0) {
  const clock = {
    now: start,
    read: () => clock.now,
    advance(ms: number) {
      clock.now += ms;
    },
  };
  return clock;
}

/** Counter-based task ids shaped like v4 UUIDs, so a seeded run is replayable. */
export function sequentialIds(prefix = 0) {
  let n = 0;
  return () => `00000000-${prefix.toString(16).padStart(4, "0").slice(-4)}-4000-8000-${(++n).toString(16).padStart(12, "0")}`;
}

/**
 * Mounts a handler on an h3 app that records anything escaping it: h3 turns an exception thrown out of a
 * handler into a 500, so `escaped` must stay empty.
 */
export function mountWithEscapeLog(handler: McpHandler) {
  const escaped: unknown[] = [];
  const app = new H3({ silent: true, onError: (error) => void escaped.push(error) }).all("/mcp", handler);
  return { app, escaped };
}

// --- Requests ---

export interface ModernInit {
  id?: string | number | null;
  caps?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  caller?: string;
  headers?: Record<string, string | null>;
  signal?: AbortSignal;
}

/** The params field `Mcp-Name` mirrors for a method, if any. */
export function nameParamOf(method: string): string | undefined {
  return NAME_PARAM[method];
}

/** A conforming 2026-07-28 request: `_meta`, `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`. */
export function modern(method: string, params: Record<string, unknown> = {}, init: ModernInit = {}): Request {
  const body: Record<string, unknown> = {
    jsonrpc: "2.0",
    method,
    params: { ...params, _meta: { [META_VERSION]: V, [META_CAPS]: init.caps ?? {}, ...init.meta } },
  };
  if (init.id !== null) body.id = init.id ?? 1;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
  };
  const nameParam = NAME_PARAM[method];
  if (nameParam && typeof params[nameParam] === "string") headers["mcp-name"] = params[nameParam] as string;
  if (init.caller !== undefined) headers[CALLER] = init.caller;
  for (const [k, v] of Object.entries(init.headers ?? {})) {
    if (v === null) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body), signal: init.signal });
}

// --- Responses ---

/** Parses a finished JSON or SSE response body into its JSON-RPC messages. */
export function parseMessages(contentType: string | null, text: string): unknown[] {
  if ((contentType ?? "").includes("text/event-stream")) {
    return text
      .split("\n\n")
      .map((block) =>
        block
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .join("\n"),
      )
      .filter(Boolean)
      .map((d) => JSON.parse(d));
  }
  return text ? [JSON.parse(text)] : [];
}

/** Reads SSE messages one at a time from a live stream; `close()` cancels it like a client going away. */
export function sseMessages(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const queue: any[] = [];
  let done = false;
  const pull = async (): Promise<boolean> => {
    if (done) return false;
    const chunk = await reader.read();
    if (chunk.done) {
      done = true;
      return false;
    }
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      if (data) queue.push(JSON.parse(data));
    }
    return true;
  };
  return {
    /** The next message, or undefined once the stream has ended. */
    async next(): Promise<any> {
      while (queue.length === 0) if (!(await pull())) return undefined;
      return queue.shift();
    },
    /** Every message already received, without waiting. */
    drain(): any[] {
      return queue.splice(0);
    },
    get ended() {
      return done;
    },
    async close() {
      done = true;
      await reader.cancel().catch(() => {});
    },
  };
}

/** Rejects with `what` when `promise` has not settled within `ms`: a hang detector, not a speed check. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Lets queued promise jobs and immediates run (the task runs continue on them). */
export async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

// --- Shapes, checked with the official schemas ---

type Schema = { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } };

export const SCHEMAS = {
  resultEnvelope: core.JSONRPCResultResponseSchema as Schema,
  errorEnvelope: core.JSONRPCErrorResponseSchema as Schema,
  discover: core.DiscoverResultSchema as Schema,
  listTools: core.ListToolsResultSchema as Schema,
  listPrompts: core.ListPromptsResultSchema as Schema,
  listResources: core.ListResourcesResultSchema as Schema,
  listTemplates: core.ListResourceTemplatesResultSchema as Schema,
  readResource: core.ReadResourceResultSchema as Schema,
  getPrompt: core.GetPromptResultSchema as Schema,
  complete: core.CompleteResultSchema as Schema,
  callTool: core.CallToolResultSchema as Schema,
  listenAck: core.SubscriptionsAcknowledgedNotificationSchema as Schema,
  progress: core.ProgressNotificationSchema as Schema,
  logMessage: core.LoggingMessageNotificationSchema as Schema,
  createTask: tasks.CreateTaskResultV2Schema as Schema,
  getTask: tasks.GetTaskResultV2Schema as Schema,
  updateTask: tasks.UpdateTaskResultV2Schema as Schema,
  cancelTask: tasks.CancelTaskResultV2Schema as Schema,
  taskNotification: tasks.TaskStatusNotificationV2Schema as Schema,
  inputRequired: tasks.InputRequiredCallToolResultV2Schema as Schema,
};

/** The schema's issues for `value`, or undefined when it conforms. */
export function shapeIssues(schema: Schema, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : JSON.stringify(parsed.error?.issues).slice(0, 600);
}

// --- Leak checks ---

/** `global.gc`, or one obtained at run time when the process was started without `--expose-gc`. */
export function getGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** Full collections, with turns between them so WeakRef targets and FinalizationRegistry callbacks are released. */
export async function collectGarbage(rounds = 3): Promise<void> {
  const gc = getGc();
  for (let i = 0; i < rounds; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    gc();
  }
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Active handles and requests by kind (`Timeout`, `TCPWRAP`, …), from `process.getActiveResourcesInfo()`. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Kinds whose count grew between two `activeResources()` readings. */
export function resourceGrowth(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [kind, n] of Object.entries(after)) if (n > (before[kind] ?? 0)) grown[kind] = n - (before[kind] ?? 0);
  return grown;
}
