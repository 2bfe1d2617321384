// The task store kit (h3-mcp/tasks/testing) on the Durable Object store (h3-mcp/tasks/durable-object),
// both as the packed package has them, inside workerd under `wrangler dev` with a local state folder:
// durable-object/kit-worker.ts runs each case as one request, two store instances per case on an object
// of its own. Here every case of the kit becomes a vitest test of the same name and place, whose body asks
// the Worker to run it (durable-object/kit-cases.ts); the messages the case read are checked against the
// official schemas here.
import { taskStoreSuite } from "../../src/tasks/testing/index.ts";
import { declareKitInWorker, inWorker } from "./durable-object/kit-cases.ts";

declareKitInWorker("the task store kit inside workerd", {
  name: "workerd-do-kit",
  script: "kit-worker.ts",
  config: "wrangler.kit.jsonc",
  files: ["kit-requests.ts", "kit-worker.ts", "wrangler.kit.jsonc"],
  register: (runner) =>
    taskStoreSuite({
      name: "Durable Object store under workerd",
      shared: true,
      runs: true,
      open: inWorker,
      // Given, as the Worker gives it: the kit registers the lost-instance case only then.
      loseInstance: inWorker,
      runner,
    }),
});
