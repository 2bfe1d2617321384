// The demo server: the tasks page's examples plus every fixture the conformance suite names.
import { H3 } from "h3";
import { defineMcpHandler } from "h3-mcp";
import { mcpTasks } from "h3-mcp/tasks";
import { basicTools } from "./tools/basics.ts";
import { taskTools } from "./tools/tasks.ts";

export const mcp = defineMcpHandler(
  {
    name: "h3-mcp-demo",
    version: "0.1.0",
    instructions: "A demo of h3-mcp: try the render tool with a tasks-capable client.",
    tools: [...basicTools, ...taskTools],
  },
  { extensionPlugins: [mcpTasks()] },
);

export const app: H3 = new H3().all("/mcp", mcp);
