// The Worker bench/durable-object.ts measures under `wrangler dev`: one endpoint with a task tool twice,
// its tasks kept in the isolate's memory (/memory/mcp) or in the tasks Durable Object (/do/mcp), so that
// both answer from the same process and the difference is the store; and (/run/mcp) the same tool as a run
// found by name whose attempt executes inside the object (durableObjectExecutor), on an object of its own.
import { env } from "cloudflare:workers";
import { H3, serve } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { defineTaskRun, mcpTask, mcpTasks, type McpTasksOptions } from "h3-mcp/tasks";
import { durableObjectExecutor, durableObjectTaskStore, type TasksObjectNamespace } from "h3-mcp/tasks/durable-object";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

declare global {
  namespace Cloudflare {
    interface Env {
      BENCH_TASKS: TasksObjectNamespace;
    }
  }
}

/** A task whose run ends at once: creation is the store's create, then the run's final write. */
const quick = defineTool({
  name: "quick",
  description: "A task that completes at once",
  execution: { taskSupport: "required" },
  handler: (event) => mcpTask(event, { run: async () => ({ content: [{ type: "text", text: "done" }] }) }),
});

const endpoint = (tasks: McpTasksOptions) =>
  defineMcpHandler({ name: "do-bench", version: "1.0.0", tools: [quick] }, { extensionPlugins: [mcpTasks({ max: 1_000_000, ttlMs: 600_000, ...tasks })] });

/** The same work as a run found by name, executed inside the object. */
const quickRun = defineTaskRun({ name: "quick", run: async () => "done" });
const executor = durableObjectExecutor(env.BENCH_TASKS, { name: "bench-runs" });
const runTasks = mcpTasks({
  max: 1_000_000,
  ttlMs: 600_000,
  store: durableObjectTaskStore(env.BENCH_TASKS, { name: "bench-runs", secret: "bench-secret" }),
  runs: [quickRun],
  executor,
});
executor.serve(runTasks.host);
const quickNamed = defineTool({ name: "quick", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: quickRun, input: {} }) });

const app = new H3();
// The floor: the same process and route table answering without MCP.
app.post("/ping", () => "pong");
app.all("/memory/mcp", endpoint({}));
app.all("/do/mcp", endpoint({ store: durableObjectTaskStore(env.BENCH_TASKS, { name: "bench" }) }));
app.all("/run/mcp", defineMcpHandler({ name: "do-bench", version: "1.0.0", tools: [quickNamed] }, { extensionPlugins: [runTasks] }));
export default { fetch: serve(app, { manual: true }).fetch };
