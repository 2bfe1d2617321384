// (b) h3-mcp: the bench app (the demo's echo tool plus the task tools) served by h3 on srvx, the
// same HTTP stack as the bare h3 target. With BENCH_STORE=redis its tasks live in the Redis store
// (REDIS_URL, key prefix BENCH_REDIS_PREFIX) instead of memory. Bench-only routes, outside /mcp:
//   POST /bench/fill {"to": N}       creates tasks through tools/call (in-process app.fetch) until N
//                                    were created; answers the count and a uniform sample of ids.
//   POST /bench/tasks {"kind", "n"}  creates n tasks that stay parked (kind "parked", task_ask) or
//                                    working ("working", task_hang); answers their ids.
//   GET  /bench/stats                tasks created and held, task_ask counters, process memory and
//                                    (BENCH_GC=1) the collections since start.
// BENCH_TTL_MS (a number, or null) and BENCH_MAX replace the app's retention.
// With BENCH_AUTH=1, /mcp is protected by mcpAuth() with JWT access tokens of an issuer served by this
// process itself (bench/lib/bench-issuer.ts), scope `mcp`; POST /bench/tokens {"kind", "n"} mints tokens.
import { serve } from "h3";
import type { McpTasksOptions } from "h3-mcp/tasks";
import { askStats, createBenchApp } from "../lib/mcp-app.ts";
import { fillTasks, Reservoir, waitForStatus } from "../lib/fill.ts";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";
import type { McpAuth } from "h3-mcp/auth";
import { requests } from "../lib/wire.ts";

const taskOptions: McpTasksOptions = {};
// The bench app keeps every task (ttlMs null, max 2M) unless told otherwise.
if (process.env.BENCH_TTL_MS) taskOptions.ttlMs = process.env.BENCH_TTL_MS === "null" ? null : Number(process.env.BENCH_TTL_MS);
if (process.env.BENCH_MAX) taskOptions.max = Number(process.env.BENCH_MAX);
let closeStore: (() => Promise<void>) | undefined;
if (process.env.BENCH_STORE === "redis") {
  const { redisTaskStore } = await import("h3-mcp/tasks/redis");
  const store = redisTaskStore({ url: process.env.REDIS_URL!, prefix: process.env.BENCH_REDIS_PREFIX ?? "bench" });
  taskOptions.store = store;
  closeStore = () => store.close();
}
// With BENCH_OTEL, mcpOpenTelemetry() is installed over the OpenTelemetry SDK: "all" records every span
// (batched to an exporter that drops them) and the metrics; "none" samples no span and keeps the metrics.
// BENCH_OTEL_CONTEXT=none registers no context manager (no AsyncLocalStorage), BENCH_OTEL_METRICS=none
// gives the plugin a no-op meter, BENCH_OTEL_TRACER=floor installs the bench's floor tracer instead
// (bench/lib/otel-floor-plugin.ts: the least the MCP conventions ask of any tracer).
const otelEnv = process.env;
const plugins = otelEnv.BENCH_OTEL
  ? (await import("../lib/otel-sdk.ts")).benchTelemetry(
      otelEnv.BENCH_OTEL === "all",
      otelEnv.BENCH_OTEL_CONTEXT !== "none",
      otelEnv.BENCH_OTEL_METRICS !== "none",
      otelEnv.BENCH_OTEL_TRACER === "floor",
    )
  : [];
let auth: McpAuth | undefined;
let issuer: Awaited<ReturnType<typeof import("../lib/bench-issuer.ts").createBenchIssuer>> | undefined;
if (process.env.BENCH_AUTH === "1") {
  const { jwtVerifier, mcpAuth } = await import("h3-mcp/auth");
  const { createBenchIssuer } = await import("../lib/bench-issuer.ts");
  const origin = `http://${HOST}:${targetPort()}`;
  issuer = await createBenchIssuer(origin, `${origin}/mcp`);
  auth = mcpAuth({ resource: `${origin}/mcp`, verifier: jwtVerifier({ issuers: [{ issuer: origin, typ: "at+jwt" }] }), scopes: ["mcp"] });
}
// With BENCH_GC=1, /bench/stats also says how many collections ran and how long they took (ms), by kind.
const gc = process.env.BENCH_GC === "1" ? (await import("../lib/gc-stats.ts")).observeGc() : undefined;
const { app, tasks } = createBenchApp(taskOptions, { withAsk: process.env.BENCH_ASK === "1", plugins, auth });
issuer?.serve(app);
const sample = new Reservoir(Number(process.env.BENCH_SAMPLE ?? 4096));
let created = 0;

app.post("/bench/fill", async (event) => {
  const { to } = (await event.req.json()) as { to: number };
  const missing = Math.max(0, to - created);
  const { ms } = await fillTasks(app, missing, (id) => sample.add(id));
  created += missing;
  // A shared store finishes a task with writes of its own, after the handle: wait for the sample.
  await waitForStatus(app, sample.items.slice(-64), "completed");
  return { size: created, created: missing, ms: Math.round(ms), sample: sample.items };
});

app.post("/bench/tasks", async (event) => {
  const { kind, n } = (await event.req.json()) as { kind: "parked" | "working"; n: number };
  const ids: string[] = [];
  await fillTasks(app, n, (id) => ids.push(id), kind === "parked" ? requests.askTask() : requests.hangTask());
  await waitForStatus(app, ids.slice(-64), kind === "parked" ? "input_required" : "working");
  return { ids };
});

app.get("/bench/stats", () => ({ created, size: (tasks.store as { size?: number }).size, ...askStats, ...process.memoryUsage(), ...(gc && { gc: gc() }) }));

const server = serve(app, { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(async () => {
  await server.close(true);
  await closeStore?.();
});
announceReady({ target: "h3-mcp", lib: import.meta.resolve("h3-mcp") });
