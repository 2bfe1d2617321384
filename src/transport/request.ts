// One MCP request's life: its context, its optional SSE stream for progress and logs, and turning what
// its handler returned (or threw) into a Response.
import type { H3Event } from "h3";
import type { HandlerMount, McpContext, RequestContext } from "../features/request-context.ts";
import { internalError, invalidParams, type McpJsonRpcError, McpUsageError } from "../protocol/errors.ts";
import { reportUnexpected } from "./mount.ts";
import type { JsonObject, LoggingLevel } from "../protocol/types.ts";
import { LOG_LEVELS, META } from "../protocol/types.ts";
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
  type ResultMeta,
  type WireResponse,
} from "../protocol/wire.ts";
import { isThenable } from "../utils/is-thenable.ts";
import { SseStream } from "./sse-stream.ts";

export type RequestInit = Pick<
  McpContext,
  "era" | "protocolVersion" | "clientCapabilities" | "clientInfo" | "method" | "requestId" | "params" | "meta" | "sessionId" | "extensions" | "auth"
> & {
  /** The body's length as read (`RequestContext.bodyLength`). */
  bodyLength?: number;
  mount: HandlerMount;
  /** Minimum log level set for the session (legacy `logging/setLevel`). */
  sessionLogLevel?: LoggingLevel;
  /** The `_meta` this request's result carries (2026-07-28: the server's serverInfo). */
  resultMeta?: ResultMeta;
};

/** A request's context with what only the transport uses: its result `_meta`, its stream, its abort. */
export interface TransportContext extends RequestContext {
  readonly resultMeta?: ResultMeta;
  readonly channel?: Channel;
  abort(reason: unknown): void;
  /** Puts a message on this request's stream (opening it); false when the request cannot stream. */
  send(message: string): boolean;
  /** Hands an unexpected error to the handler's `onError`; returns the error. */
  report(error: unknown): unknown;
}

/** The part of srvx's Node runtime context the signal reads. */
interface NodeRuntime {
  node?: { res?: { readonly writableEnded: boolean; readonly destroyed: boolean; once(event: "close", listener: () => void): unknown } };
}

/**
 * The SSE stream of one request. Progress and log frames the handler sends are held here until `respond`
 * knows how to answer: with this stream when a frame came before the handler finished, else with JSON.
 */
class Channel extends SseStream {
  /** Called when the handler sends its first frame, so that `respond` stops waiting and answers with the stream. */
  onFirst: (() => void) | undefined = undefined;
}

/** Builds the context for one request and attaches it to the event. */
export function createRequestContext(event: H3Event, init: RequestInit): TransportContext {
  const token = init.meta.progressToken;
  if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token)) {
    throw invalidParams("progressToken must be a string or an integer");
  }
  const logLevel = init.meta[META.logLevel] ?? init.sessionLogLevel;
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LoggingLevel)) throw invalidParams("Invalid log level");
  const ctx = new Context(event, init, logLevel === undefined ? -1 : LOG_LEVELS.indexOf(logLevel as LoggingLevel));
  event.context.mcp = ctx;
  return ctx;
}

// A class rather than an object literal: its methods live on the prototype, so a request
// allocates one object instead of one closure per method.
class Context implements TransportContext {
  readonly era: RequestContext["era"];
  readonly protocolVersion: string;
  readonly clientCapabilities: RequestContext["clientCapabilities"];
  readonly clientInfo: RequestContext["clientInfo"];
  readonly method: string;
  readonly requestId: RequestContext["requestId"];
  readonly meta: JsonObject;
  params: JsonObject;
  // Set by a legacy initialize once its session exists.
  sessionId: string | undefined;
  readonly extensions: RequestContext["extensions"];
  readonly auth: RequestContext["auth"];
  readonly mount: HandlerMount;
  requestState?: unknown;
  readonly channel: Channel | undefined;
  tool: RequestContext["tool"] = undefined;
  readonly bodyLength: number | undefined;
  target: string | undefined = undefined;
  readonly resultMeta: ResultMeta | undefined;
  #event: H3Event;
  #task = false;
  #minLog: number;
  #lastProgress = -Infinity;
  #abort: AbortController | undefined;

  constructor(event: H3Event, init: RequestInit, minLog: number) {
    this.era = init.era;
    this.protocolVersion = init.protocolVersion;
    this.clientCapabilities = init.clientCapabilities;
    this.clientInfo = init.clientInfo;
    this.method = init.method;
    this.requestId = init.requestId;
    this.meta = init.meta;
    this.params = init.params;
    this.sessionId = init.sessionId;
    this.extensions = init.extensions;
    this.auth = init.auth;
    this.mount = init.mount;
    this.resultMeta = init.resultMeta;
    this.bodyLength = init.bodyLength;
    this.#event = event;
    this.#minLog = minLog;
    // Legacy requests may need their stream for server-to-client requests, so they always get one.
    const streams = init.meta.progressToken !== undefined || minLog >= 0 || init.era === "legacy";
    this.channel = streams ? new Channel({ onCancel: (reason) => this.abort(reason ?? new Error("Client closed the stream")) }) : undefined;
  }

  get signal(): AbortSignal {
    if (!this.#abort) {
      const abort = (this.#abort = new AbortController());
      const res = (this.#event.runtime as NodeRuntime | undefined)?.node?.res;
      if (res) {
        // On Node the response tells: the client is gone when it closes before the end was written.
        // The request's own signal cannot be trusted there: srvx before 1.0 (as in Nitro 3.0.0) aborts
        // it as soon as the body has been read.
        const gone = () => !res.writableEnded && abort.abort(new DOMException("The client went away", "AbortError"));
        if (res.destroyed) gone();
        else res.once("close", gone);
      } else {
        const outer = this.#event.req.signal;
        if (outer) {
          if (outer.aborted) abort.abort(outer.reason);
          else outer.addEventListener("abort", () => abort.abort(outer.reason), { once: true });
        }
      }
    }
    return this.#abort.signal;
  }

  gone(): boolean {
    if (this.#abort) return this.#abort.signal.aborted;
    const res = (this.#event.runtime as NodeRuntime | undefined)?.node?.res;
    if (res) return res.destroyed && !res.writableEnded;
    return this.#event.req.signal?.aborted === true;
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.#task) throw new McpUsageError("TASK_PROGRESS", "mcpProgress cannot report on a task: use task.update({ statusMessage })");
    const progressToken = this.meta.progressToken;
    if (progressToken === undefined || !(progress > this.#lastProgress)) return;
    this.#lastProgress = progress;
    const params: JsonObject = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#push(toNotificationMessage("notifications/progress", params));
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (this.#task) throw new McpUsageError("TASK_LOG", "mcpLog cannot report on a task: use task.update({ statusMessage })");
    if (this.#minLog < 0 || LOG_LEVELS.indexOf(level) < this.#minLog) return;
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.#push(toNotificationMessage("notifications/message", params));
  }

  becameTask(): void {
    this.#task = true;
  }

  send(message: string): boolean {
    const channel = this.channel;
    if (!channel || channel.closed) return false;
    this.#push(message);
    return true;
  }

  report(error: unknown): unknown {
    return reportUnexpected(this.mount, error, this.#event);
  }

  abort(reason: unknown): void {
    // Create the controller if nobody read the signal yet, so late readers see the abort too.
    void this.signal;
    this.#abort!.abort(reason);
  }

  #push(message: string): void {
    const channel = this.channel;
    if (!channel || channel.closed) return;
    channel.send(sseFrame(message));
    if (!channel.started) channel.onFirst?.();
  }
}

/**
 * Runs a method and answers with JSON, or with SSE when the handler emitted progress or logs
 * before it finished. A client closing that stream aborts the handler's signal.
 */
export async function respond(
  ctx: TransportContext,
  run: () => unknown,
  era: Era,
  headers?: Record<string, string>,
): Promise<WireResponse> {
  const channel = ctx.channel;
  let value: unknown;
  try {
    value = run();
  } catch (error) {
    if (!channel || channel.queued === 0) return answerWithJson(ctx, false, error, era, headers);
    return answerWithStream(ctx, channel, Promise.resolve({ ok: false, error }), headers);
  }
  // Most handlers answer synchronously and queue no frame: no promise is made for them.
  if (!isThenable(value)) {
    if (!channel || channel.queued === 0) return answerWithJson(ctx, true, value, era, headers);
    return answerWithStream(ctx, channel, Promise.resolve({ ok: true, value }), headers);
  }
  const outcome = settle(value);
  if (channel) {
    // The answer is a stream when the handler sends a frame (progress, a log) before it settles, so wait
    // for whichever of the two comes first.
    if (channel.queued === 0) {
      const first = new Promise<void>((resolve) => (channel.onFirst = resolve));
      await Promise.race([outcome, first]);
      channel.onFirst = undefined;
    }
    // When the handler sent frames, they go out first and its outcome last, as the stream's final frame.
    // This holds for a task's handle too, whichever store made the task. When it sent none, the outcome is
    // answered as JSON, and the stream is closed so that later frames are dropped.
    if (channel.queued !== 0) return answerWithStream(ctx, channel, outcome, headers);
    channel.close();
  }
  const settled = await outcome;
  return settled.ok ? answerWithJson(ctx, true, settled.value, era, headers) : answerWithJson(ctx, false, settled.error, era, headers);
}

// --- Internal ---

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

function settle(value: PromiseLike<unknown>): Promise<Settled> {
  return Promise.resolve(value).then(
    (value) => ({ ok: true, value }),
    (error) => ({ ok: false, error }),
  );
}

/**
 * The one JSON exit of a request: its result or its error. Nothing goes on the request's stream after it.
 */
function answerWithJson(ctx: TransportContext, ok: boolean, outcome: unknown, era: Era, headers: Record<string, string> | undefined): WireResponse {
  ctx.channel?.close();
  const last = lastMessage(ctx, ok, outcome);
  return typeof last === "string" ? jsonResponse(last, 200, headers) : errorResponse(ctx.requestId, last, era, headers);
}

/**
 * A request's last message, as JSON: its result, with the server's `_meta` as on every result. Its error
 * instead (the error itself, for the status and headers it answers with), also when the result is not JSON
 * data (a BigInt, a cycle): that is the server's fault, told to `onError` and answered -32603.
 */
function lastMessage(ctx: TransportContext, ok: boolean, outcome: unknown): string | McpJsonRpcError {
  if (ok) {
    try {
      return toResultMessage(ctx.requestId, outcome, ctx.resultMeta);
    } catch (error) {
      outcome = internalError(error);
    }
  }
  return toJsonRpcError(ctx.report(outcome));
}

/** Answers with the stream: the frames already held, those the handler sends later, then its outcome as the last frame. */
function answerWithStream(ctx: TransportContext, channel: Channel, outcome: Promise<Settled>, headers: Record<string, string> | undefined): WireResponse {
  outcome.then((r) => {
    if (channel.closed) return;
    const last = lastMessage(ctx, r.ok, r.ok ? r.value : r.error);
    channel.end(sseFrame(typeof last === "string" ? last : toErrorMessage(ctx.requestId, last)));
  });
  return channel.response(headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS);
}
