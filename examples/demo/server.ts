import { serve } from "h3";
import { createDemo } from "./app.ts";
import { DEMO_DRAIN_MS, demoEnvironment, envMs } from "./environment.ts";

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? "127.0.0.1";
const environment = await demoEnvironment();
const drainMs = envMs(process.env, "MCP_DRAIN_MS", DEMO_DRAIN_MS);
// Without an OTLP endpoint nothing of OpenTelemetry is loaded.
const telemetry = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? (await import("./telemetry.ts")).startTelemetry() : undefined;
const { app, tasks } = createDemo(environment.tasks, environment.requestState, telemetry?.plugins ?? [], environment.auth);
const server = serve(app, { port, hostname, silent: true });
await server.ready();
const url = `http://${hostname}:${port}/mcp`;
console.log(`h3-mcp demo listening on ${url}, ${environment.describe}${telemetry ? `; ${telemetry.describe}` : ""}`);
console.log(`Try: curl -s ${url} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/list' \\
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`);
if (environment.auth) {
  console.log(`Protected: add -H 'authorization: Bearer <token>' with a JWT access token of ${process.env.MCP_AUTH_ISSUER} for ${environment.auth.resource} (scope mcp; mcp:admin for admin_echo); metadata at ${environment.auth.metadataUrl}`);
}

// A signal drains (docs/durability.md): requests are served meanwhile (new closure tasks get a 503), running
// tasks get up to MCP_DRAIN_MS to end, then the rest fail with the shutdown reason, all written before the
// Redis connections are released and the process exits 0. A second signal does not wait.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    process.once(signal, () => process.exit(1));
    console.log(`${signal}: draining (up to ${drainMs} ms)`);
    const started = performance.now();
    const drained = await tasks.drain({ deadlineMs: drainMs });
    const ms = (performance.now() - started).toFixed(1);
    console.log(`drained: ${drained.finished} finished, ${drained.handedOff} handed off, ${drained.failed} failed, ${drained.fenced} fenced in ${ms} ms`);
    // Requests under way get a moment to be answered (the one that ended the last task, say); whatever is
    // still open after it (listen streams) is cut.
    const closing = server.close();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    await server.close(true);
    await environment.close();
    await telemetry?.shutdown();
    process.exit(0);
  });
}
