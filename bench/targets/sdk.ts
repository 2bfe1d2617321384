// (c) The official TypeScript SDK (@modelcontextprotocol/server 2.x) answering 2026-07-28
// stateless requests through its own entry (createMcpHandler, one McpServer per request, as the
// SDK prescribes) behind its Node adapter (@modelcontextprotocol/node) on node:http.
import { createServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const text = z.object({ text: z.string() });

// The same tool surface as the h3-mcp target, so tools/list answers are alike. The SDK has no
// tasks extension here: the task tools answer synchronously and are never called by the bench.
function factory(): McpServer {
  const server = new McpServer({ name: "sdk-bench", version: "0.0.0" });
  server.registerTool("echo", { description: "Echoes its text", inputSchema: text }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("task_echo", { description: "Echoes its text from a task that completes at once", inputSchema: text }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("task_hang", { description: "Starts a task that stays working" }, async () => ({ content: [] }));
  return server;
}

const handler = createMcpHandler(factory, { onerror: (error) => console.error(error) });
const server = createServer(toNodeHandler(handler));
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(targetPort(), HOST, resolve));
exitOnSignal(async () => {
  await handler.close();
  server.closeAllConnections();
  server.close();
});
announceReady({ target: "sdk" });
