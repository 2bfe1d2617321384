// The app of the Workers whose runs found by name execute inside the tasks Durable Object
// (durableObjectExecutor), for the runs smokes: each Worker entry (runs-worker.ts, runs-worker-app-fetch.ts)
// exports it its own way. The same module runs in the web isolate (which stores each task and hands its
// attempt to the object) and in the object's isolate (which executes it with the plugin given to `serve`).
// A closure's task beside them still runs in the request's isolate. Copied into the smoke's app project.
import { env } from "cloudflare:workers";
import { H3 } from "h3";
import { defineMcpHandler, defineTool, mcpElicit } from "h3-mcp";
import { defineTaskRun, mcpTask, mcpTasks } from "h3-mcp/tasks";
import { durableObjectExecutor, durableObjectTaskStore, type TasksObjectNamespace } from "h3-mcp/tasks/durable-object";

const tasksObject = (env as unknown as { MCP_TASKS: TasksObjectNamespace }).MCP_TASKS;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const untilCancelled = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));

const askGo = mcpElicit({ message: "Go on?", requestedSchema: { type: "object", properties: { go: { type: "boolean" } }, required: ["go"] } });

/** Asks, then answers with what it was told and the attempt that heard it. */
const askLater = defineTaskRun({
  name: "ask_later",
  async run(task) {
    const answers = await task.requestInput({ go: askGo });
    const go = answers.go?.action === "accept" && answers.go.content?.go === true;
    return `${go ? "went on" : "stopped"} in attempt ${task.attempt}`;
  },
});

/** Counts `steps` steps of 300 ms, each one a checkpoint and a status message; a later attempt goes on from the checkpoint. */
const count = defineTaskRun({
  name: "count",
  maxAttempts: 3,
  async run(task, input: { steps: number }) {
    const from = (task.checkpoint as number | undefined) ?? 0;
    for (let step = from; step < input.steps; step++) {
      await sleep(300, task.signal);
      await task.saveCheckpoint(step + 1);
      task.update({ statusMessage: `step ${step + 1}` });
    }
    return `counted to ${input.steps} from ${from} in attempt ${task.attempt}`;
  },
});

// Leases short enough that a restart's lost attempt is claimed again within seconds, long enough that a
// renewal delayed on a loaded machine does not lose a live attempt.
const store = durableObjectTaskStore(tasksObject, { secret: "runs-smoke-secret", leaseMs: 5000 });
const executor = durableObjectExecutor(tasksObject);
const tasks = mcpTasks({ store, runs: [askLater, count], executor, pollIntervalMs: 100 });
executor.serve(tasks.host);

const tools = [
  defineTool({ name: "ask_later", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: askLater, input: {} }) }),
  defineTool({
    name: "count",
    execution: { taskSupport: "required" },
    inputSchema: { type: "object", properties: { steps: { type: "integer" } }, required: ["steps"] },
    handler: (event, args) => mcpTask(event, { run: count, input: { steps: Number((args as { steps: number }).steps) } }),
  }),
  // A closure: it runs in the request's isolate, until cancelled or lost with that isolate.
  defineTool({ name: "block_task", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: (task) => untilCancelled(task.signal) }) }),
];

export const app = new H3();
app.all("/mcp", defineMcpHandler({ name: "h3-mcp-do-runs", version: "1.0.0", tools }, { extensionPlugins: [tasks] }));
