// The tasks side of bench/bullmq.ts: one run found by name that returns at once, the tasks plugin of a web
// instance (with the BullMQ executor, or running the run in process) and of a worker, on one Redis.
import { H3 } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { defineTaskRun, mcpTask, mcpTasks } from "h3-mcp/tasks";
import { bullmqExecutor } from "h3-mcp/tasks/bullmq";
import { redisTaskStore } from "h3-mcp/tasks/redis";
import { mcpRequest, toWebRequest } from "./wire.ts";

export const BENCH_QUEUE = "bench-tasks";
const SECRET = "bench-secret";

/** The run every lane creates: it returns its input at once. */
export const echo = defineTaskRun({ name: "echo", maxAttempts: 3, run: (_task, input: { text: string }) => input.text });

/** A tasks plugin on the bench's Redis: with the BullMQ executor (`viaQueue`), or running runs here. */
export function benchTasks(url: string, viaQueue: boolean) {
  // Apart: an instance running runs here would claim the tasks left for the queue's workers.
  const store = redisTaskStore({ url, prefix: viaQueue ? "bench-executor" : "bench-in-process", secret: SECRET });
  const executor = viaQueue ? bullmqExecutor({ url, queueName: BENCH_QUEUE, keepJobs: 0, timeoutMs: 10_000 }) : undefined;
  const tasks = mcpTasks({ store, runs: [echo], max: 1_000_000, ...(executor && { executor }) });
  return {
    tasks,
    executor,
    async close() {
      await executor?.close();
      await store.close();
    },
  };
}

/** A web instance's app (in this process) whose `echo` tool creates a task of the run. */
export function benchApp(plugin: ReturnType<typeof benchTasks>["tasks"]) {
  const tool = defineTool({
    name: "echo",
    execution: { taskSupport: "required" },
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    handler: (event, args) => mcpTask(event, { run: echo, input: { text: String(args.text) } }),
  });
  const app = new H3().all("/mcp", defineMcpHandler({ name: "bench", version: "0", tools: [tool] }, { extensionPlugins: [plugin] }));
  const create = mcpRequest("tools/call", { name: "echo", arguments: { text: "hello" } }, { tasks: true });
  return {
    /** Creates a task; its id. */
    async create(): Promise<string> {
      const res = await app.fetch(toWebRequest(create));
      const text = await res.text();
      const id = /"taskId":"([^"]+)"/.exec(text)?.[1];
      if (res.status !== 200 || !id) throw new Error(`create: HTTP ${res.status}: ${text}`);
      return id;
    },
    /** The task's status as tasks/get answers it. */
    async status(taskId: string): Promise<string> {
      const res = await app.fetch(toWebRequest(mcpRequest("tasks/get", { taskId }, { tasks: true })));
      return /"status":"(\w+)"/.exec(await res.text())?.[1] ?? "unknown";
    },
  };
}
