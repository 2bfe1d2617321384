// The executor kit (taskExecutorSuite, h3-mcp/tasks/testing) on durableObjectExecutor(), both as the packed
// package has them, inside workerd under `wrangler dev`: durable-object/executor-kit-worker.ts runs each
// case as one request, its web instances and workers in the Worker on one fresh object, whose alarm
// executes the attempts it is delivered. Every case of the kit becomes a vitest test of the same name and
// place here (durable-object/kit-cases.ts).
import { taskExecutorSuite } from "../../src/tasks/testing/index.ts";
import { declareKitInWorker, inWorker } from "./durable-object/kit-cases.ts";

declareKitInWorker("the executor kit inside workerd", {
  name: "workerd-do-executor-kit",
  script: "executor-kit-worker.ts",
  config: "wrangler.kit.jsonc",
  files: ["kit-requests.ts", "executor-kit-worker.ts", "wrangler.kit.jsonc"],
  register: (runner) => taskExecutorSuite({ name: "Durable Object executor under workerd", open: inWorker, executor: inWorker, runner }),
});
