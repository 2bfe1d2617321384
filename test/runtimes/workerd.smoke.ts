import { inject } from "vitest";
import { launchWorker } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

// workerd through `wrangler dev`, with the entry that hands each request the Worker's ctx.waitUntil:
// `export default { fetch: serve(app, { manual: true }).fetch }` (examples/runtimes/worker.ts).
describeRuntime("workerd, serve(app, { manual: true }).fetch", () => {
  const { app, work } = inject("smokeDirs");
  return launchWorker("workerd", { script: "worker.ts", app, work, ...inject("runtimes") });
});
