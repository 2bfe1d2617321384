// (b) h3-mcp: the bench app (the demo's echo tool plus two task tools) served by h3 on srvx, the
// same HTTP stack as the bare h3 target. Bench-only routes, outside the MCP route:
//   POST /bench/fill {"to": N}  creates tasks through tools/call (in-process app.fetch) until N are
//                               retained; answers the store size and a uniform sample of task ids.
//   GET  /bench/stats           store size and process memory.
import { serve } from "h3";
import { createBenchApp } from "../lib/mcp-app.ts";
import { fillTasks, Reservoir } from "../lib/fill.ts";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const { app, tasks } = createBenchApp();
const sample = new Reservoir(Number(process.env.BENCH_SAMPLE ?? 4096));

app.post("/bench/fill", async (event) => {
  const { to } = (await event.req.json()) as { to: number };
  const missing = Math.max(0, to - tasks.store.size);
  const { ms } = await fillTasks(app, missing, (id) => sample.add(id));
  return { size: tasks.store.size, created: missing, ms: Math.round(ms), sample: sample.items };
});

app.get("/bench/stats", () => ({ size: tasks.store.size, ...process.memoryUsage() }));

const server = serve(app, { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(() => server.close(true));
announceReady({ target: "h3-mcp", lib: import.meta.resolve("h3-mcp") });
