// Bun runs OpenTelemetry's Node SDK, which reads the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME…); its context rides on Bun's AsyncLocalStorage:
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 bun examples/runtimes/otel-bun.ts
import { NodeSDK } from "@opentelemetry/sdk-node";
import { H3, serve } from "h3";

// Started before the app is built: mcpOpenTelemetry() takes its meter from the global provider then.
const sdk = new NodeSDK();
sdk.start();
const { default: mcp } = await import("./otel.ts");

const app = new H3();
app.all("/mcp", mcp);
const server = serve(app, { port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? "127.0.0.1", silent: true });
await server.ready();
console.log(`h3-mcp (OpenTelemetry) listening on ${new URL("/mcp", server.url!)}`);
// Exports what is still buffered before the process ends.
process.on("SIGTERM", () => void sdk.shutdown().finally(() => process.exit(0)));
