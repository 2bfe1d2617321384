// (f) What one task actor costs by itself: the bare h3 target (bare-h3.ts) whose POST /mcp also
// runs one task actor's whole life (bench/lib/bare-actor-app.ts). No store, no handlers, no wire
// layer: h3-mcp's task creation cannot be faster than this.
import { serve } from "h3";
import { createBareActorApp } from "../lib/bare-actor-app.ts";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const app = createBareActorApp();
// With BENCH_GC=1, GET /bench/stats says how many collections ran and how long they took, as h3-mcp.ts's does.
if (process.env.BENCH_GC === "1") {
  const gc = (await import("../lib/gc-stats.ts")).observeGc();
  app.get("/bench/stats", () => ({ ...process.memoryUsage(), gc: gc() }));
}
const server = serve(app, { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(() => server.close(true));
announceReady({ target: "bare-actor", lib: import.meta.resolve("h3-mcp/machines") });
