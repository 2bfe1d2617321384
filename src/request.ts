// One MCP request's life: its context, its optional SSE stream for progress and logs, and the
// turn of a handler's value (or throw) into a Response.
import type { H3Event } from "h3";
import type { McpContext } from "./context.ts";
import { invalidParams } from "./errors.ts";
import type { McpExtensionPlugin } from "./plugins.ts";
import type { ClientCapabilities, Implementation, JsonObject, LoggingLevel, RequestId } from "./types.ts";
import { LOG_LEVELS, META } from "./types.ts";
import {
  errorResponse,
  jsonResponse,
  SSE_HEADERS,
  sseFrame,
  toErrorMessage,
  toJsonRpcError,
  toNotificationMessage,
  toResultMessage,
  type Era,
} from "./wire.ts";

export type RequestInit = Pick<
  McpContext,
  "era" | "protocolVersion" | "clientCapabilities" | "clientInfo" | "method" | "requestId" | "params" | "meta" | "sessionId" | "extensions"
> & {
  server: unknown;
  /** Minimum log level set for the session (legacy `logging/setLevel`). */
  sessionLogLevel?: LoggingLevel;
};

export type RequestContext = McpContext & {
  "~channel"?: Channel;
  "~abort"(reason: unknown): void;
  /** Puts a message on this request's stream (opening it); false when the request cannot stream. */
  "~send"(message: string): boolean;
};

interface Channel {
  frames: Uint8Array[];
  controller?: ReadableStreamDefaultController<Uint8Array>;
  onFirst?: () => void;
  done: boolean;
}

/** Builds the context for one request and attaches it to the event. */
export function createRequestContext(event: H3Event, init: RequestInit): RequestContext {
  const progressToken = init.meta.progressToken;
  const logLevel = init.meta[META.logLevel] ?? init.sessionLogLevel;
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LoggingLevel)) throw invalidParams("Invalid log level");
  const minLog = logLevel === undefined ? -1 : LOG_LEVELS.indexOf(logLevel as LoggingLevel);
  // Legacy requests may need their stream for server-to-client requests, so they always get one.
  const streams = progressToken !== undefined || minLog >= 0 || init.era === "legacy";
  const channel: Channel | undefined = streams ? { frames: [], done: false } : undefined;
  let abort: AbortController | undefined;
  let lastProgress = -Infinity;

  const push = (message: string) => {
    if (!channel || channel.done) return;
    const frame = sseFrame(message);
    if (channel.controller) channel.controller.enqueue(frame);
    else {
      channel.frames.push(frame);
      channel.onFirst?.();
    }
  };

  const ctx: RequestContext = {
    era: init.era,
    protocolVersion: init.protocolVersion,
    clientCapabilities: init.clientCapabilities,
    clientInfo: init.clientInfo,
    method: init.method,
    requestId: init.requestId,
    meta: init.meta,
    params: init.params,
    sessionId: init.sessionId,
    extensions: init.extensions,
    get signal() {
      if (!abort) {
        abort = new AbortController();
        const outer = event.req.signal;
        if (outer) {
          if (outer.aborted) abort.abort(outer.reason);
          else outer.addEventListener("abort", () => abort!.abort(outer.reason), { once: true });
        }
      }
      return abort.signal;
    },
    progress(progress, total, message) {
      if (progressToken === undefined || !(progress > lastProgress)) return;
      lastProgress = progress;
      const params: JsonObject = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      push(toNotificationMessage("notifications/progress", params));
    },
    log(level, data, logger) {
      if (minLog < 0 || LOG_LEVELS.indexOf(level) < minLog) return;
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      push(toNotificationMessage("notifications/message", params));
    },
    "~server": init.server,
    "~channel": channel,
    "~send"(message: string) {
      if (!channel || channel.done) return false;
      push(message);
      return true;
    },
    "~abort"(reason: unknown) {
      // The controller exists once someone has read the signal; create it so late readers see the abort too.
      void ctx.signal;
      abort!.abort(reason);
    },
  };
  event.context.mcp = ctx;
  return ctx;
}

/**
 * Runs a method and answers with JSON, or with SSE when the handler emitted progress or logs
 * before it finished. A client closing that stream aborts the handler's signal.
 */
export async function respond(
  ctx: RequestContext,
  run: () => unknown,
  era: Era,
  headers?: Record<string, string>,
): Promise<Response> {
  const channel = ctx["~channel"];
  const id = ctx.requestId;
  if (!channel) {
    try {
      return jsonResponse(toResultMessage(id, await run()), 200, headers);
    } catch (error) {
      return errorResponse(id, toJsonRpcError(error), era, headers);
    }
  }
  const outcome = settle(run);
  const first = new Promise<void>((resolve) => (channel.onFirst = resolve));
  const winner = await Promise.race([outcome.then(() => "done" as const), first.then(() => "stream" as const)]);
  channel.onFirst = undefined;
  if (winner === "done" && channel.frames.length === 0) {
    channel.done = true;
    const r = await outcome;
    return r.ok
      ? jsonResponse(toResultMessage(id, r.value), 200, headers)
      : errorResponse(id, toJsonRpcError(r.error), era, headers);
  }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of channel.frames) controller.enqueue(frame);
      channel.frames.length = 0;
      channel.controller = controller;
      outcome.then((r) => {
        if (channel.done) return;
        channel.done = true;
        controller.enqueue(
          sseFrame(r.ok ? toResultMessage(id, r.value) : toErrorMessage(id, toJsonRpcError(r.error))),
        );
        controller.close();
      });
    },
    cancel(reason) {
      channel.done = true;
      ctx["~abort"](reason ?? new Error("Client closed the stream"));
    },
  });
  return new Response(stream, { status: 200, headers: headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS });
}

// --- Internal ---

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

function settle(run: () => unknown): Promise<Settled> {
  try {
    return Promise.resolve(run()).then(
      (value) => ({ ok: true, value }),
      (error) => ({ ok: false, error }),
    );
  } catch (error) {
    return Promise.resolve({ ok: false, error });
  }
}
