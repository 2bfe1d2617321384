// The OpenTelemetry SDK's own work per traced request, in a loop, no HTTP: a histogram record with the
// attributes of a tool call's `mcp.server.operation.duration`, and a span started and ended, unsampled and
// recorded (with as many attributes as a request span gets). What these cost is the SDK's, whatever h3-mcp does.
//   node --import tsx bench/otel-parts.ts
import { context, SpanKind } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, type Sampler } from "@opentelemetry/sdk-trace-base";

const N = 300_000;
const measure = (label: string, fn: () => void) => {
  for (let i = 0; i < 50_000; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  console.log(`${label}: ${(Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2)} µs`);
};

const reader = new PeriodicExportingMetricReader({
  exporter: { export: (_m, done) => done({ code: ExportResultCode.SUCCESS }), forceFlush: async () => {}, shutdown: async () => {} },
  exportIntervalMillis: 60_000,
});
const histogram = new MeterProvider({ readers: [reader] }).getMeter("bench").createHistogram("mcp.server.operation.duration");
const metric = Object.freeze({
  "mcp.method.name": "tools/call",
  "network.transport": "tcp",
  "network.protocol.name": "http",
  "gen_ai.tool.name": "echo",
  "gen_ai.operation.name": "execute_tool",
  "mcp.protocol.version": "2026-07-28",
});
measure("histogram.record, one frozen attribute object", () => histogram.record(0.0001, metric));

const perRequest = ["jsonrpc.request.id", "mcp.protocol.version", "server.address", "server.port", "network.protocol.version", "client.address"];
for (const [label, sampler] of [
  ["span start and end, unsampled", new AlwaysOffSampler()],
  ["span start and end, recorded", new AlwaysOnSampler()],
] as [string, Sampler][]) {
  const drop = { export: (_s: unknown, done: (r: { code: number }) => void) => done({ code: ExportResultCode.SUCCESS }), shutdown: async () => {} };
  const tracer = new BasicTracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor(drop)] }).getTracer("bench");
  const attributes = { "mcp.method.name": "tools/call", "network.transport": "tcp", "network.protocol.name": "http", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool" };
  measure(label, () => {
    const span = tracer.startSpan("tools/call echo", { kind: SpanKind.SERVER, attributes }, context.active());
    if (span.isRecording()) for (const key of perRequest) span.setAttribute(key, "x");
    span.end();
  });
}
await reader.shutdown();
