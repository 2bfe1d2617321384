// The h3-mcp app under test: the demo's `echo` tool, a task tool whose run completes at once, and
// a task tool whose run never finishes (for the working-task memory figure). Shared by the HTTP
// target, the memory script and the sweep script so all three measure the same handler.
import { H3 } from "h3";
import { defineMcpHandler, defineTool, mcpListRoots, type McpHandler, type McpPlugin } from "h3-mcp";
import type { McpAuth } from "h3-mcp/auth";
import { mcpTask, mcpTasks, type McpTasksOptions, type McpTasksPlugin } from "h3-mcp/tasks";
import { z } from "zod";

export const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text",
  inputSchema: z.object({ text: z.string() }),
  handler: (_event, { text }) => text,
});

export const taskEchoTool = defineTool({
  name: "task_echo",
  description: "Echoes its text from a task that completes at once",
  execution: { taskSupport: "required" },
  inputSchema: z.object({ text: z.string() }),
  handler: (event, { text }) =>
    mcpTask(event, {
      run: () => ({ content: [{ type: "text", text }] }),
    }),
});

/** Never settles: the task stays `working` for as long as the process lives. */
const forever = new Promise<never>(() => {});

export const taskHangTool = defineTool({
  name: "task_hang",
  description: "Starts a task that stays working",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      run: () => forever,
    }),
});

/** Answers the task_ask tasks received, so the bench can tell answered questions from ignored ones. */
export const askStats = { asked: 0, answered: 0 };

/** Parks in input_required (one roots/list question) until tasks/update answers it, then completes. */
export const taskAskTool = defineTool({
  name: "task_ask",
  description: "Starts a task that asks one question and completes once it is answered",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      async run(task) {
        askStats.asked++;
        await task.requestInput({ r: mcpListRoots() });
        askStats.answered++;
        return { content: [{ type: "text", text: "answered" }] };
      },
    }),
});

export interface BenchApp {
  app: H3;
  handler: McpHandler;
  tasks: McpTasksPlugin;
}

/**
 * `withAsk` adds task_ask (kept out of the default surface, so tools/list answers what it did before);
 * `plugins` are installed before the tasks extension; `auth` protects /mcp.
 */
export function createBenchApp(taskOptions: McpTasksOptions = {}, opts: { withAsk?: boolean; plugins?: McpPlugin[]; auth?: McpAuth } = {}): BenchApp {
  const tasks = mcpTasks({ max: 2_000_000, ttlMs: null, ...taskOptions });
  const tools = [echoTool, taskEchoTool, taskHangTool, ...(opts.withAsk ? [taskAskTool] : [])];
  const handler = defineMcpHandler(
    { name: "h3-mcp-bench", version: "0.0.0", tools },
    { plugins: opts.plugins ?? [], extensionPlugins: [tasks], ...(opts.auth ? { auth: opts.auth } : {}) },
  );
  const app = new H3().all("/mcp", handler);
  return { app, handler, tasks };
}
