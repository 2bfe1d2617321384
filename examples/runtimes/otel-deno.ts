// Deno's own OpenTelemetry: no SDK from npm. Deno registers its providers and context with the
// @opentelemetry/api the app imports, from the standard variables:
//   OTEL_DENO=true OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 deno run -A examples/runtimes/otel-deno.ts
import { H3, serve } from "h3";
import mcp from "./otel.ts";

const app = new H3();
app.all("/mcp", mcp);
const server = serve(app, { port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? "127.0.0.1", silent: true });
await server.ready();
console.log(`h3-mcp (OpenTelemetry) listening on ${new URL("/mcp", server.url!)}`);
