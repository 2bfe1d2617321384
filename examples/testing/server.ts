// A small server to test: `add` answers at once, `deploy` makes a task that asks for a confirmation and then
// deploys, or calls it off, or fails when the target refuses. `beforeStep` is where a test holds the
// deployment (the real server passes nothing and never waits there).
import { H3 } from "h3";
import { defineMcpHandler, defineTool, mcpElicit, McpJsonRpcError } from "h3-mcp";
import { mcpTask, mcpTasks } from "h3-mcp/tasks";

export interface ServerOptions {
  /** Awaited before each step of a deployment: asking, and finishing. */
  beforeStep?: (signal: AbortSignal) => Promise<void>;
}

const confirm = mcpElicit({
  message: "Deploy now?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
});

export function createServer(options: ServerOptions = {}): H3 {
  const beforeStep = options.beforeStep ?? (async () => {});
  const add = defineTool({
    name: "add",
    description: "Adds two numbers",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    handler: (_event, args) => String((args.a as number) + (args.b as number)),
  });
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys the current release to an environment, once confirmed",
    inputSchema: { type: "object", properties: { env: { type: "string" } }, required: ["env"] },
    handler: (event, args) =>
      mcpTask(event, {
        statusMessage: `Deploying to ${args.env}`,
        run: async (task) => {
          await beforeStep(task.signal);
          const answers = await task.requestInput({ confirm });
          await beforeStep(task.signal);
          const answer = answers.confirm;
          if (answer?.action !== "accept" || !(answer.content as { ok?: boolean } | undefined)?.ok) return "Deployment called off.";
          if (args.env === "broken") throw new McpJsonRpcError(-32603, "The target refused the release");
          return `Deployed to ${args.env}.`;
        },
      }),
  });
  return new H3().all("/mcp", defineMcpHandler({ name: "example", version: "1.0.0", tools: [add, deploy] }, { extensionPlugins: [mcpTasks()] }));
}
