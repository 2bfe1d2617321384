// A Worker that runs the executor kit (taskExecutorSuite, h3-mcp/tasks/testing) against
// durableObjectExecutor() inside workerd, one case per request (kit-requests.ts), for
// durable-object-executor-kit.smoke.ts. Each case is a logical server of its own: its stores and its
// executor on one fresh object name, so the object that keeps the case's tasks is the one its executor
// delivers attempts to, and executes them with.
//
// The object executes with the one host served for its name in its isolate; the kit makes up to two workers
// per case and stops them one by one. So the host served is a dispatcher over the kit's live workers, in
// turn: an attempt the object executes runs in one of them, a stopped one gets no more, and with none
// served the execution fails, which the object tries again a second later, as with no host at all.
import { durableObjectExecutor, durableObjectTaskStore, type DurableObjectTaskStore, type TasksObjectNamespace } from "h3-mcp/tasks/durable-object";
import type { TaskExecutionHost } from "h3-mcp/tasks";
import { taskExecutorSuite } from "h3-mcp/tasks/testing";
import { kitWorker } from "./kit-requests.ts";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

interface Env {
  MCP_TASKS: TasksObjectNamespace;
}

/** The object name of the case being set up: `open` makes it, `executor` (called right after) uses it. */
let caseName = "";

/** The host the object executes with: the kit's live workers in turn. */
function workersInTurn() {
  const live: TaskExecutionHost[] = [];
  let turn = 0;
  let closed = false;
  const next = () => live[turn++ % live.length] ?? fail("no worker of the kit is served now");
  const host: TaskExecutionHost = {
    async execute(taskId) {
      // The case is over: what the object still holds of it is not run.
      if (closed) return { outcome: "gone" };
      return next().execute(taskId);
    },
    fail: (taskId, message) => next().fail(taskId, message),
    async drain() {
      return { finished: 0, handedOff: 0, failed: 0, fenced: 0 };
    },
  };
  return {
    host,
    add(worker: TaskExecutionHost) {
      live.push(worker);
    },
    remove(worker: TaskExecutionHost) {
      live.splice(live.indexOf(worker), 1);
    },
    close() {
      closed = true;
    },
  };
}

const kit = kitWorker<Env>((runner) =>
  taskExecutorSuite({
    name: "Durable Object executor under workerd",
    open(count) {
      caseName = `exec-kit-${crypto.randomUUID()}`;
      return Array.from({ length: count }, () => durableObjectTaskStore(kit.running().env.MCP_TASKS, { name: caseName, secret: "kit-secret", leaseMs: 3000 }));
    },
    close: (stores) => stores.forEach((store) => (store as DurableObjectTaskStore).close()),
    executor() {
      const executor = durableObjectExecutor(kit.running().env.MCP_TASKS, { name: caseName });
      const workers = workersInTurn();
      executor.serve(workers.host);
      return {
        executor,
        serve(worker) {
          workers.add(worker);
          return {
            async stop() {
              workers.remove(worker);
              return worker.drain({ deadlineMs: 0 });
            },
          };
        },
        close: () => workers.close(),
      };
    },
    settleMs: 15_000,
    runner,
  }),
);

export default { fetch: kit.fetch };

function fail(message: string): never {
  throw new Error(message);
}
