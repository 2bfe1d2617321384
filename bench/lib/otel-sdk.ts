// The OpenTelemetry SDK as the OpenTelemetry bench rows run it: the Node SDK's parts (AsyncLocalStorage
// context, W3C propagators, a batching span processor, a periodic metric reader) with exporters that drop
// what they are given, so the row measures h3-mcp's tracing and the SDK, not a collector.
import { context, createNoopMeter, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, ExportResultCode, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { McpPlugin } from "h3-mcp";
import { mcpOpenTelemetry } from "h3-mcp/otel";
import { floorTracing } from "./otel-floor-plugin.ts";

const dropSpans: SpanExporter = { export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }), shutdown: async () => {} };
const dropMetrics: PushMetricExporter = { export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }), forceFlush: async () => {}, shutdown: async () => {} };

/** The SDK's providers as the bench runs them: every span recorded (`sampled`) or none, exported to nowhere. */
export function benchProviders(sampled: boolean): { tracerProvider: BasicTracerProvider; meterProvider: MeterProvider } {
  return {
    tracerProvider: new BasicTracerProvider({
      sampler: sampled ? new AlwaysOnSampler() : new AlwaysOffSampler(),
      spanProcessors: [new BatchSpanProcessor(dropSpans)],
    }),
    meterProvider: new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 10_000 })] }),
  };
}

/** AsyncLocalStorage as the global context manager (unless `withContext` is false) and the W3C propagators, as the Node SDK registers them. */
export function registerBenchContext(withContext = true): void {
  if (withContext) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
}

/**
 * `withContext` false leaves the API's no-op context manager (no AsyncLocalStorage), `withMetrics` false
 * gives the plugin a no-op meter: diagnoses only. `floor` installs the floor tracer instead of mcpOpenTelemetry().
 */
export function benchTelemetry(sampled: boolean, withContext = true, withMetrics = true, floor = false): McpPlugin[] {
  registerBenchContext(withContext);
  const { tracerProvider, meterProvider } = benchProviders(sampled);
  const meters = withMetrics ? meterProvider : { getMeter: () => createNoopMeter() };
  return [floor ? floorTracing({ tracerProvider, meterProvider: meters }) : mcpOpenTelemetry({ tracerProvider, meterProvider: meters })];
}
