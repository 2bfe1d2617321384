// Run with: npx tsx docs/examples/tasks.ts   (serves http://127.0.0.1:3001/mcp)
import { H3, serve } from "h3";
import { defineMcpHandler, defineTool, mcpElicit, McpJsonRpcError } from "h3-mcp";
import { canCreateTask, mcpTask, mcpTasks } from "h3-mcp/tasks";
import { z } from "zod";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A tool that answers with a task when it can, and synchronously otherwise.
const report = defineTool({
  name: "report",
  inputSchema: z.object({ pages: z.number().int().min(1).max(50) }),
  execution: { taskSupport: "optional" },
  handler: (event, { pages }) => {
    if (!canCreateTask(event)) return `Report of ${pages} pages (built synchronously).`;
    return mcpTask(event, {
      statusMessage: "Queued",
      async run(task) {
        for (let page = 1; page <= pages; page++) {
          if (task.signal.aborted) throw new Error("cancelled");
          await sleep(100);
          task.update({ statusMessage: `Page ${page}/${pages}` });
        }
        return { content: [{ type: "text", text: `Report of ${pages} pages.` }] };
      },
    });
  },
});

// A tool that cannot run without a task, asks mid-flight, and shows both failure kinds.
const confirmPurge = mcpElicit({
  message: "Purge the cache?",
  requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
});

const purge = defineTool({
  name: "purge",
  execution: { taskSupport: "required" },
  inputSchema: z.object({ mode: z.enum(["normal", "tool-error", "protocol-error"]).default("normal") }),
  handler: (event, { mode }) =>
    mcpTask(event, {
      async run(task) {
        if (mode === "tool-error") throw new Error("cache server refused"); // → completed, isError
        if (mode === "protocol-error") throw new McpJsonRpcError(-32603, "quota exhausted"); // → failed
        const answers = await task.requestInput({ confirm: confirmPurge });
        // Answers are client input: check them before acting.
        const ok = answers.confirm?.action === "accept" && answers.confirm.content?.confirm === true;
        return { content: [{ type: "text", text: ok ? "Purged." : "Left alone." }] };
      },
    }),
});

export const mcp = defineMcpHandler(
  { name: "tasks-example", version: "1.0.0", tools: [report, purge] },
  { extensionPlugins: [mcpTasks({ ttlMs: 10 * 60_000, pollIntervalMs: 500, max: 500 })] },
);

if (import.meta.url === `file://${process.argv[1]}`) {
  serve(new H3().all("/mcp", mcp), { port: 3001, hostname: "127.0.0.1" });
}
