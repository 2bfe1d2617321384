// An MCP endpoint traced with mcpOpenTelemetry(), the same on every runtime: what differs is the SDK each
// entry registers before serving it (otel-deno.ts, otel-bun.ts, otel-worker.ts). Its tools await timers
// before they make a span of their own, so the spans show whether the OpenTelemetry context follows an
// await on that runtime (a span made there should be the child of the request's span, or of the run's).
import { trace } from "@opentelemetry/api";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { mcpOpenTelemetry } from "h3-mcp/otel";
import { mcpTask, mcpTasks } from "h3-mcp/tasks";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The app's own spans, as a tool's own work (a fetch, a query) would make them. */
const tracer = trace.getTracer("h3-mcp-runtimes-app");

const echo = defineTool({
  name: "echo",
  description: "Answers with the text it was given, after a span of its own made past an await",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: async (_event, args) => {
    await sleep(5);
    tracer.startSpan("echo work").end();
    return `echo: ${(args as { text: string }).text}`;
  },
});

const countTask = defineTool({
  name: "count_task",
  description: "A task that makes a span of its own past a timer, then completes",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Counting",
      async run(task) {
        await sleep(100);
        tracer.startSpan("count work").end();
        task.update({ statusMessage: "Half way" });
        await sleep(100);
        return { content: [{ type: "text", text: "counted" }] };
      },
    }),
});

const tasks = mcpTasks({ pollIntervalMs: 100 });

export default defineMcpHandler(
  { name: "h3-mcp-runtimes-otel", version: "1.0.0", tools: [echo, countTask] },
  // First, so it wraps the tasks plugin too.
  { plugins: [mcpOpenTelemetry({ tasks })], extensionPlugins: [tasks] },
);
