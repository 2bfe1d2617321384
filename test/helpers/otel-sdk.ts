// The real OpenTelemetry SDK with in-memory exporters: spans as they finish, metrics on demand. The
// context manager and the W3C propagators are registered globally once (as the Node SDK would).
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

let registered = false;

/** Registers the AsyncLocalStorage context manager and the W3C trace-context and baggage propagators. */
export function registerGlobals(): void {
  if (registered) return;
  registered = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
}

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface TestSdk {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  metrics(): Promise<ResourceMetrics>;
  reset(): void;
}

/** A tracer provider recording every span (or none, `sampled: false`) and a meter provider read on demand. */
export function testSdk(options: { sampled?: boolean } = {}): TestSdk {
  registerGlobals();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(options.sampled === false ? { sampler: new AlwaysOffSampler() } : {}),
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async metrics() {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length) throw errors[0];
      return resourceMetrics;
    },
    reset: () => exporter.reset(),
  };
}
