import { serve } from "h3";
import { drainOnSignal } from "h3-mcp/tasks";
import { createDemo } from "./app.ts";
import { DEMO_DRAIN_MS, demoEnvironment, envMs } from "./environment.ts";

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? "127.0.0.1";
const environment = await demoEnvironment();
const drainMs = envMs(process.env, "MCP_DRAIN_MS", DEMO_DRAIN_MS);
// Without an OTLP endpoint nothing of OpenTelemetry is loaded.
const telemetry = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? (await import("./telemetry.ts")).startTelemetry() : undefined;
const { app, tasks } = createDemo(environment.tasks, environment.requestState, telemetry?.plugins ?? [], environment.auth);
// A signal drains (docs/durability.md): requests are served meanwhile (new closure tasks get a 503), running
// tasks get up to MCP_DRAIN_MS to end, then the rest fail with the shutdown reason, all written before the
// server closes, the Redis connections are released and the process exits 0. A second signal does not wait.
let drainStarted = 0;
const drainOnSignalPlugin = drainOnSignal(tasks, {
  deadlineMs: drainMs,
  onSignal(signal) {
    drainStarted = performance.now();
    console.log(`${signal}: draining (up to ${drainMs} ms)`);
  },
  onDrained(drained) {
    const ms = (performance.now() - drainStarted).toFixed(1);
    console.log(`drained: ${drained.finished} finished, ${drained.handedOff} handed off, ${drained.failed} failed, ${drained.fenced} fenced in ${ms} ms`);
  },
  async close() {
    await environment.close();
    await telemetry?.shutdown();
  },
});
const server = serve(app, { port, hostname, silent: true, plugins: [drainOnSignalPlugin] });
await server.ready();
const url = `http://${hostname}:${port}/mcp`;
console.log(`h3-mcp demo listening on ${url}, ${environment.describe}${telemetry ? `; ${telemetry.describe}` : ""}`);
console.log(`Try: curl -s ${url} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/list' \\
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`);
if (environment.auth) {
  console.log(`Protected: add -H 'authorization: Bearer <token>' with a JWT access token of ${process.env.MCP_AUTH_ISSUER} for ${environment.auth.resource} (scope mcp; mcp:admin for admin_echo); metadata at ${environment.auth.metadataUrl}`);
}

