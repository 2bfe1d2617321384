// The "h3-mcp/tasks/testing" entry: a client for testing your own server in process (test-client.ts, with
// task-listener.ts and test-types.ts), the task chart's paths for model-based tests of your own task tools
// (model-paths.ts, driven over the wire by model-driver.ts), a redelivery of a run found by name in one
// process (interrupt-task.ts), and the test kit for task stores. Given a store
// factory and a test runner's `describe` and `it`, the kit runs against the store everything h3-mcp's own
// stores are held to:
//   contract-cases.ts     the contract itself, method by method, on the stores directly
//   durable-cases.ts      runs found by name: claims, hand-offs, fencing, attempts, kept records (stand-in.ts
//                         is the runtime both connect the stores to)
//   wire-cases.ts, run-cases.ts   everything a client observes of tasks over the wire: the extension's
//                         surface, and what run can do (tasks-app.ts is their server)
//   replay.ts             every path of the task chart (chart-paths.ts, from xstate/graph), replayed over
//                         the wire and predicted exactly by the chart (envelope.ts; task-driver.ts drives run)
//   concurrency-cases.ts  the caps under concurrent creation, racing changes, expiry, origin, a lost instance
//   kit.ts, assert.ts, client.ts   the options, a few assertions of its own, an MCP client over app.fetch
// And the test kit for executors (`taskExecutorSuite`): executor-cases.ts its cases, executor-kit.ts
// their web instances and workers in this process on one shared store, fed by the executor under test.
// It depends on nothing but h3-mcp and its own dependencies: no test library, no devDependency.
import type { TaskStoreKitOptions } from "./kit.ts";
import { concurrencyCases } from "./concurrency-cases.ts";
import { contractCases } from "./contract-cases.ts";
import { durableCases } from "./durable-cases.ts";
import { replayCases } from "./replay.ts";
import { runCases } from "./run-cases.ts";
import { wireCases } from "./wire-cases.ts";

export type { KitRunner, TaskShape, TaskStoreKitOptions } from "./kit.ts";
export { taskExecutorSuite, type ExecutorUnderTest, type TaskExecutorKitOptions } from "./executor-cases.ts";
export { KitAssertionError } from "./assert.ts";
export { createTestClient, TestClientError, type RequestOptions, type TestClient } from "./test-client.ts";
export type { TaskListener } from "./task-listener.ts";
export { getModelPaths, type ModelPath, type ModelPathOptions, type ModelStep, type ToolModel } from "./model-paths.ts";
export { driveModelPath, ModelPathError, type DriveOptions, type DriveReport } from "./model-driver.ts";
export { createHold, type Hold } from "./hold.ts";
export { interruptTask, type Interrupted, type InterruptKind } from "./interrupt-task.ts";
export type { TaskEvent } from "../../../machines/task.machine.ts";
export type {
  InputAnswerer,
  TaskMeta,
  TaskStatus,
  TaskView,
  TestClientOptions,
  TestResponse,
  ToolCallAnswer,
  ToolRun,
  WireError,
} from "./test-types.ts";

/**
 * Registers the task store test suite for one store with your test runner: the contract case by case,
 * runs found by name (with `runs: true`; otherwise that the store has none of their methods), the tasks
 * wire suite, the replay of every chart path, and the concurrency and expiry cases. `open` gives the
 * stores of one fresh logical server (one per instance); with two or more, requests alternate between
 * them. Some cases bind tasks to their callers: a store that needs a key for that must be given one.
 *
 * @example
 * // describe and it from your test runner (vitest, node:test, …)
 * taskStoreSuite({
 *   name: "my store",
 *   shared: true,
 *   open: () => [myStore({ namespace: crypto.randomUUID() }), myStore({ namespace: … })],
 *   close: (stores) => Promise.all(stores.map((s) => s.close())),
 *   runner: { describe, it },
 * });
 */
export function taskStoreSuite(kit: TaskStoreKitOptions): void {
  kit.runner.describe(`task store: ${kit.name}`, () => {
    const shared = kit.shared;
    kit.runner.describe("the contract", () => contractCases(kit, shared));
    kit.runner.describe("runs found by name: claims, hand-offs, fencing, kept records", () => durableCases(kit, shared));
    kit.runner.describe("tasks on the wire", () => wireCases(kit, shared));
    kit.runner.describe("inside run(task), and tasks/cancel", () => runCases(kit, shared));
    kit.runner.describe("chart paths replayed over the wire", () => replayCases(kit, shared));
    kit.runner.describe("concurrency, expiry and lost instances", () => concurrencyCases(kit, shared));
  });
}
