// Cloudflare Workers: OpenTelemetry's Node SDK does not run here. A BasicTracerProvider exports over
// OTLP/HTTP with fetch (the exporter's browser build, which wrangler bundles), AsyncLocalStorage (nodejs_compat)
// carries the context, and each request flushes what has ended in ctx.waitUntil. A task's run outlives the
// request that created it: its span is exported by the flush of a later request (a poll, say).
//   wrangler dev otel-worker.ts --var OTEL_EXPORTER_OTLP_ENDPOINT:http://localhost:4318
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { H3, serve } from "h3";
import mcp from "./otel.ts";

// A Worker's vars are in process.env with nodejs_compat. Building these does no I/O (Workers forbid it
// outside a request); the exporter fetches only when a flush sends spans.
const env = process.env;
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "h3-mcp-worker" }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` }))],
});
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
// The plugin reads a call's parent from params._meta through the global propagator.
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const app = new H3();
// After each request, what has ended is exported in the request's waitUntil: h3's serve() hands the
// Worker's ctx.waitUntil to the event, so the flush outlives the response.
app.use(async (event, next) => {
  const response = await next();
  event.waitUntil(provider.forceFlush());
  return response;
});
app.all("/mcp", mcp);
export default { fetch: serve(app, { manual: true }).fetch };
