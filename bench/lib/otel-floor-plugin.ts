// The floor tracer: per request only what any server tracer following the MCP semantic conventions must do
// (one SERVER span with the required attributes, started and ended, the request run inside
// `context.with(trace.setSpan(...))`, one `mcp.server.operation.duration` record with the attribute set h3-mcp
// records), against which mcpOpenTelemetry() is measured: in one process by bench/otel-floor.ts, over HTTP by
// the `otel` row of `npm run bench`. Bench code, not a tracer to use: it serves the bench's one operation.
import { context, SpanKind, SpanStatusCode, trace, type MeterProvider, type TracerProvider } from "@opentelemetry/api";
import { getMcpContext, type McpPlugin } from "h3-mcp";
import { ATTR, DURATION_BUCKETS, METRIC } from "../../src/otel/conventions.ts";
import { VERSION } from "./wire.ts";

export interface FloorOptions {
  /** Add to a recorded span the recommended attributes h3-mcp sets on it. */
  recommended?: boolean;
  /** Leave out the duration record (diagnosis only). */
  noMetric?: boolean;
  /** Use a fixed non-recording span instead of starting one (diagnosis only). */
  noSpan?: boolean;
  /** Call the request directly, not inside the span's context (diagnosis only). */
  noContext?: boolean;
}

/** The floor: a span with the conventions' required attributes, the request in its context, one duration record. */
export function floorTracing(providers: { tracerProvider: TracerProvider; meterProvider: MeterProvider }, options: FloorOptions = {}): McpPlugin {
  const tracer = providers.tracerProvider.getTracer("floor");
  const duration = providers.meterProvider
    .getMeter("floor")
    .createHistogram(METRIC.operationDuration, { unit: "s", advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  // The set h3-mcp records for this operation; a tracer serving many operations would have to find it.
  const metric = {
    [ATTR.method]: "tools/call",
    [ATTR.networkTransport]: "tcp",
    [ATTR.networkProtocol]: "http",
    [ATTR.toolName]: "echo",
    [ATTR.operation]: "execute_tool",
    [ATTR.protocolVersion]: VERSION,
  };
  const unstarted = trace.wrapSpanContext({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 0 });
  return {
    name: "floor",
    wrapRequest(event, next) {
      const ctx = getMcpContext(event);
      const tool = ctx.params.name as string;
      // The conventions take the parent from `params._meta`; these requests carry none.
      if (typeof ctx.meta.traceparent === "string") throw new Error("the floor does not extract a parent");
      const parent = context.active();
      const span = options.noSpan
        ? unstarted
        : tracer.startSpan(
            `${ctx.method} ${tool}`,
            { kind: SpanKind.SERVER, attributes: { [ATTR.method]: ctx.method, [ATTR.toolName]: tool, [ATTR.requestId]: String(ctx.requestId) } },
            parent,
          );
      if (options.recommended && span.isRecording()) {
        span.setAttribute(ATTR.networkTransport, "tcp");
        span.setAttribute(ATTR.networkProtocol, "http");
        span.setAttribute(ATTR.operation, "execute_tool");
        span.setAttribute(ATTR.protocolVersion, ctx.protocolVersion);
        const url = event.url;
        span.setAttribute(ATTR.serverAddress, url.hostname);
        if (url.port) span.setAttribute(ATTR.serverPort, Number(url.port));
      }
      const started = performance.now();
      const end = (failed: boolean) => {
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        if (!options.noMetric) duration.record((performance.now() - started) / 1000, metric);
      };
      try {
        const result = options.noContext ? next() : context.with(trace.setSpan(parent, span), next);
        if (result instanceof Promise) {
          return result.then(
            (value) => (end(value.isError === true), value),
            (error) => {
              end(true);
              throw error;
            },
          );
        }
        end(result.isError === true);
        return result;
      } catch (error) {
        end(true);
        throw error;
      }
    },
  };
}
