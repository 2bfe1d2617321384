// mcpOpenTelemetry(): a plugin of hooks only (not an MCP extension, never advertised) that traces and
// measures every request, task run and legacy session through the OpenTelemetry API. The API is the only
// import: with no SDK registered every call is a no-op, and the app chooses the SDK, exporters and sampler.
import {
  context,
  metrics,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type MeterProvider,
  type Span,
  type TextMapGetter,
  type TracerProvider,
} from "@opentelemetry/api";
import type { H3Event } from "h3";
import type { McpPlugin } from "../features/extension-plugin.ts";
import { getRequestContext, type McpContext } from "../features/request-context.ts";
import { McpJsonRpcError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/types.ts";
import { isThenable } from "../utils/is-thenable.ts";
import { ATTR, DURATION_BUCKETS, EVENT, METRIC, TOOL_ERROR } from "./conventions.ts";
import { createOperations, type Operation } from "./operations.ts";
import { createTaskTracing, type TaskStoreSize } from "./task-spans.ts";
import { traceparentOf } from "./trace-context.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

export interface McpOpenTelemetryOptions {
  /** Where spans go. Default: the global provider (the one the OpenTelemetry SDK registers). */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global provider. */
  meterProvider?: MeterProvider;
  /**
   * Record a tool call's arguments (`gen_ai.tool.call.arguments`) and result (`gen_ai.tool.call.result`) as
   * JSON on its span. Off by default: they may hold personal data or secrets.
   */
  recordToolPayloads?: boolean;
  /** Put a `resources/read`'s URI in its span name (`resources/read {uri}`). Off by default: URIs make span names of high cardinality. */
  resourceUriInSpanName?: boolean;
  /** The tasks plugin, whose store size (`mcp.server.task.store.size`) is then observed when its store tells it (the in-memory one does). */
  tasks?: { readonly store: object };
}

const SCOPE = "h3-mcp";

const OPTION_NAMES: OptionNames<McpOpenTelemetryOptions> = {
  tracerProvider: true, meterProvider: true, recordToolPayloads: true, resourceUriInSpanName: true, tasks: true,
};

/**
 * Traces every MCP request (a SERVER span named `{mcp.method.name} {target}`, its parent taken from
 * `params._meta`), every task's run (a span linked to the call that created it, ending with the task),
 * and records `mcp.server.operation.duration`, `mcp.server.session.duration` and task metrics, all as the
 * OpenTelemetry semantic conventions for MCP say. Install it first, so it wraps every other plugin.
 *
 * @example
 * defineMcpHandler(options, { plugins: [mcpOpenTelemetry()], extensionPlugins: [mcpTasks()] });
 */
export function mcpOpenTelemetry(options: McpOpenTelemetryOptions = {}): McpPlugin {
  checkOptions("mcpOpenTelemetry()", options, OPTION_NAMES);
  const tracer = (options.tracerProvider ?? trace).getTracer(SCOPE);
  const meter = (options.meterProvider ?? metrics).getMeter(SCOPE);
  const operationDuration = meter.createHistogram(METRIC.operationDuration, {
    unit: "s",
    description: "How long the server took to handle an MCP request",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const sessionDuration = meter.createHistogram(METRIC.sessionDuration, {
    unit: "s",
    description: "How long a 2025-11-25 session lasted, from initialize to its end",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const authRefusals = meter.createCounter(METRIC.authRefusals, { unit: "{request}", description: "Bearer tokens refused (401), by reason and detail" });
  const clientFailures = meter.createCounter(METRIC.clientFailures, {
    unit: "{request}",
    description: "Requests whose body never arrived whole: the client hung up, or was too slow",
  });
  const payloads = options.recordToolPayloads === true;
  const uriInName = options.resourceUriInSpanName === true;
  const tasks = createTaskTracing(tracer, meter, storeSizeOf(options.tasks));
  const operations = createOperations();

  return {
    name: "opentelemetry",
    wrapRequest(event, next) {
      const ctx = getRequestContext(event);
      const method = ctx.method;
      const params = ctx.params;
      const named = method === "tools/call" || method === "prompts/get" ? params.name : undefined;
      const target = typeof named === "string" ? named : undefined;
      const version = ctx.protocolVersion;
      const operation = operations.get(method, target, version);
      const attributes = operation.span;
      const ambient = context.active();
      const fromMeta = hasTraceContext(ctx.meta) ? propagation.extract(ambient, ctx.meta, META_GETTER) : undefined;
      const parent = fromMeta && trace.getSpanContext(fromMeta) ? fromMeta : ambient;
      // The HTTP request's span, when an HTTP instrumentation made one, is a link: MCP's context is the parent.
      const ambientSpan = parent === ambient ? undefined : trace.getSpanContext(ambient);
      const links: Link[] | undefined = ambientSpan && trace.isSpanContextValid(ambientSpan) ? [{ context: ambientSpan }] : undefined;
      const name = uriInName && method === "resources/read" && typeof params.uri === "string" ? `${method} ${params.uri}` : operation.name;
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent);
      if (span.isRecording()) describeRequest(span, event, ctx, payloads);
      const started = performance.now();
      // The conventions name a request by its tool or prompt only when that is a low-cardinality name: one the
      // server serves. A name it does not serve leaves the span (which keeps it as an attribute) and the metric
      // named by the method alone.
      const settled = (): Operation => {
        if (target === undefined || ctx.target === target) {
          if (!operation.kept) operations.keep(method, target, version, operation);
          return operation;
        }
        const plain = operations.get(method, undefined, version);
        span.updateName(plain.name);
        return plain;
      };

      const ok = (result: JsonObject) => {
        const settledOperation = settled();
        let metricAttributes = settledOperation.metric;
        if (result.isError === true && method === "tools/call") {
          span.setAttribute(ATTR.errorType, TOOL_ERROR);
          span.setStatus({ code: SpanStatusCode.ERROR });
          metricAttributes = settledOperation.failed(TOOL_ERROR);
        } else if (payloads && method === "tools/call" && result.resultType !== "task") span.setAttribute(ATTR.toolResult, jsonOf(result));
        const taskId = method === "tools/call" && result.resultType === "task" ? result.taskId : undefined;
        if (typeof taskId === "string") span.setAttribute(ATTR.taskId, taskId);
        if (method === "subscriptions/listen") listenedTasks(span, result);
        if (method === "initialize" && ctx.sessionId !== undefined) span.setAttribute(ATTR.sessionId, ctx.sessionId);
        span.end();
        operationDuration.record((performance.now() - started) / 1000, metricAttributes);
        return result;
      };
      const failed = (error: unknown) => {
        const { code, message } = rpcErrorOf(error);
        const type = String(code);
        span.setAttributes({ [ATTR.errorType]: type, [ATTR.statusCode]: type });
        span.setStatus({ code: SpanStatusCode.ERROR, message });
        const settledOperation = settled();
        span.end();
        operationDuration.record((performance.now() - started) / 1000, settledOperation.failed(type));
        throw error;
      };

      let result: JsonObject | Promise<JsonObject>;
      try {
        result = context.with(trace.setSpan(parent, span), next);
      } catch (error) {
        return failed(error);
      }
      return isThenable(result) ? result.then(ok, failed) : ok(result);
    },
    authRefused(refusal) {
      const attributes: Record<string, string> = { [ATTR.authReason]: refusal.reason, [ATTR.authDetail]: refusal.detail };
      if (refusal.issuer !== undefined) attributes[ATTR.authIssuer] = refusal.issuer;
      authRefusals.add(1, attributes);
      // Refused before any MCP request exists: the event goes on the span around it (an HTTP instrumentation's).
      trace.getActiveSpan()?.addEvent(EVENT.authRefused, attributes);
    },
    clientError(failure) {
      clientFailures.add(1, { [ATTR.clientFailure]: failure.reason });
    },
    wrapTaskRun: tasks.wrapTaskRun,
    taskOrigin() {
      const span = trace.getActiveSpan();
      return span ? traceparentOf(span.spanContext()) : undefined;
    },
    watchSession(session) {
      const started = performance.now();
      return () => {
        sessionDuration.record((performance.now() - started) / 1000, {
          [ATTR.protocolVersion]: session.protocolVersion,
          [ATTR.networkTransport]: "tcp",
          [ATTR.networkProtocol]: "http",
        });
      };
    },
  };
}

// --- Internal ---

/** Reads `params._meta` entries as a text map (only string values). */
const META_GETTER: TextMapGetter<JsonObject> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

function hasTraceContext(meta: JsonObject): boolean {
  return typeof meta.traceparent === "string";
}

/** The attributes a sampler has no use for, set only on a span that records. */
function describeRequest(span: Span, event: H3Event, ctx: McpContext, payloads: boolean): void {
  const params = ctx.params;
  span.setAttribute(ATTR.requestId, String(ctx.requestId));
  span.setAttribute(ATTR.protocolVersion, ctx.protocolVersion);
  if (ctx.sessionId !== undefined) span.setAttribute(ATTR.sessionId, ctx.sessionId);
  const method = ctx.method;
  if ((method === "resources/read" || method === "resources/subscribe" || method === "resources/unsubscribe") && typeof params.uri === "string") {
    span.setAttribute(ATTR.resourceUri, params.uri);
  }
  if (typeof params.taskId === "string" && method.startsWith("tasks/")) span.setAttribute(ATTR.taskId, params.taskId);
  if (payloads && method === "tools/call" && params.arguments !== undefined) span.setAttribute(ATTR.toolArguments, jsonOf(params.arguments));
  // Where the client reached the server, as it named it (the request's URL, which honours a trusted proxy).
  const url = event.url;
  span.setAttribute(ATTR.serverAddress, url.hostname);
  // Left out when it is the scheme's default, as the URL leaves it out.
  if (url.port) span.setAttribute(ATTR.serverPort, Number(url.port));
  const node = (event.runtime as NodeRuntime | undefined)?.node?.req;
  if (node?.httpVersion) span.setAttribute(ATTR.networkProtocolVersion, node.httpVersion);
  const address = node?.socket?.remoteAddress;
  if (address) span.setAttribute(ATTR.clientAddress, address);
}

interface NodeRuntime {
  node?: { req?: { httpVersion?: string; socket?: { remoteAddress?: string } } };
}

/** The task ids a listen stream was agreed to, from its acknowledgement. */
function listenedTasks(span: Span, ack: JsonObject): void {
  const ids = (ack.notifications as JsonObject | undefined)?.taskIds;
  if (Array.isArray(ids) && ids.length) span.setAttribute(ATTR.taskIds, ids.filter((id): id is string => typeof id === "string"));
}

/** The JSON-RPC error a thrown value is answered with (anything but a JSON-RPC error is an internal error). */
function rpcErrorOf(error: unknown): { code: number; message: string } {
  return McpJsonRpcError.isError(error) ? { code: error.code, message: error.message } : { code: -32603, message: "Internal error" };
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return "null";
  }
}

function storeSizeOf(tasks: McpOpenTelemetryOptions["tasks"]): TaskStoreSize | undefined {
  const store = tasks?.store;
  if (!store || !("size" in store) || typeof store.size !== "number") return undefined;
  // Read at each observation: `size` is a getter on the in-memory store.
  return () => {
    const size = store.size;
    return typeof size === "number" ? size : 0;
  };
}

