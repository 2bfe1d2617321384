// A worker process for the demo (`npm run worker`, docs/executors.md): with the demo's REDIS_URL and
// MCP_TASKS_SECRET, it runs the durable runs (durable_steps, durable_ask) that demo instances started with
// MCP_TASKS_EXECUTOR=bullmq enqueue. It has no HTTP server: its tasks plugin, made with the demo's options,
// reaches each task through Redis. The plugin is installed in the demo's handler all the same (never served),
// so that each attempt here is checked against its tool's outputSchema and goes through the plugins' hooks. It prints a line with "ready" once it takes runs; a signal drains it
// (MCP_DRAIN_MS, as for the demo: runs still going then are handed to another worker) and it exits 0.
import { startTaskWorker } from "h3-mcp/tasks/bullmq";
import { createDemo } from "./app.ts";
import { DEMO_DRAIN_MS, DEMO_LEASE_MS, demoEnvironment, envMs } from "./environment.ts";

const env = process.env;
if (!env.REDIS_URL || !env.MCP_TASKS_SECRET) {
  console.error("npm run worker needs REDIS_URL and MCP_TASKS_SECRET, the same as the demo instances'");
  process.exit(1);
}
const drainMs = envMs(env, "MCP_DRAIN_MS", DEMO_DRAIN_MS);
const concurrency = envMs(env, "MCP_WORKER_CONCURRENCY", 4);
const environment = await demoEnvironment({ ...env, MCP_TASKS_EXECUTOR: "bullmq" });
const { tasks } = createDemo(environment.tasks);
const worker = startTaskWorker({
  host: tasks.host,
  url: env.REDIS_URL,
  concurrency,
  deadlineMs: drainMs,
  // BullMQ takes back the job of a worker gone silent about when the store's lease lapses.
  lockMs: envMs(env, "MCP_TASKS_LEASE_MS", DEMO_LEASE_MS),
  shutdownOn: false,
});
await worker.ready;
const runs = (environment.tasks.runs ?? []).map((run) => run.name).join(", ");
console.log(`h3-mcp demo worker ready (pid ${process.pid}): runs ${runs} from the BullMQ queue in ${env.REDIS_URL}, ${concurrency} at once`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    process.once(signal, () => process.exit(1));
    console.log(`${signal}: draining (up to ${drainMs} ms)`);
    const drained = await worker.close();
    console.log(`drained: ${drained.finished} finished, ${drained.handedOff} handed off, ${drained.failed} failed, ${drained.fenced} fenced`);
    await environment.close();
    process.exit(0);
  });
}
