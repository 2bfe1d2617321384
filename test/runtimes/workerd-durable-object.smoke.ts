import { inject } from "vitest";
import { launchWorker } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

// workerd through `wrangler dev`, with the Worker that keeps its tasks in a Durable Object
// (examples/runtimes/worker-durable-object.ts, bound and migrated by wrangler-durable-object.jsonc): the
// smoke every runtime gets, its tasks created, answered, cancelled and listened to through the object.
describeRuntime("workerd, tasks in a Durable Object", () => {
  const { app, work } = inject("smokeDirs");
  return launchWorker("workerd-durable-object", {
    script: "worker-durable-object.ts",
    config: "wrangler-durable-object.jsonc",
    app,
    work,
    ...inject("runtimes"),
    vars: { MCP_TASKS_SECRET: "smoke-secret" },
  });
});
