// The demo server: the docs' examples plus every fixture the conformance suite names
// (conformance/fixtures.md). `npm start` serves it; `npm run conformance` tests it.
import { H3 } from "h3";
import { defineMcpHandler, type McpPlugin, type RequestStateOptions } from "h3-mcp";
import type { McpAuth } from "h3-mcp/auth";
import { mcpTasks, type McpTasksOptions, type McpTasksPlugin } from "h3-mcp/tasks";
import { prompts } from "./prompts.ts";
import { resources, resourceTemplates } from "./resources.ts";
import { basicTools } from "./tools/basics.ts";
import { conformanceTools } from "./tools/conformance.ts";
import { legacyTools } from "./tools/legacy.ts";
import { mrtrTools } from "./tools/mrtr.ts";
import { taskFixtureTools } from "./tools/task-fixtures.ts";
import { taskTools } from "./tools/tasks.ts";
import { authTools } from "./tools/auth.ts";
import { durableRuns, durableTools } from "./tools/durable.ts";

/**
 * Builds the demo; `tasks` options reach the tasks plugin (e.g. an inspector, a shared store), `requestState`
 * the MRTR signer (instances behind one balancer share its secret), `plugins` are installed before the
 * tasks extension (e.g. OpenTelemetry, which then wraps everything). With `auth`, /mcp needs its tokens, the
 * protected resource metadata is served beside it, and the tools `whoami` and `admin_echo` are added.
 * `tasks.runs` defaults to the durable runs with the in-memory store and to none with a given store (which
 * may not keep them: Redis needs its secret); the durable tools of runs left out answer why they cannot run.
 */
export function createDemo(
  tasks: McpTasksOptions = {},
  requestState?: RequestStateOptions,
  plugins: McpPlugin[] | ((tasks: McpTasksPlugin) => McpPlugin[]) = [],
  auth?: McpAuth,
) {
  // Polling every 200 ms keeps the suite's task scenarios quick.
  const runs = tasks.runs ?? (tasks.store ? [] : durableRuns);
  const tasksPlugin = mcpTasks({ pollIntervalMs: 200, ...tasks, runs });
  const mcp = defineMcpHandler(
    {
      name: "h3-mcp-demo",
      version: "0.1.0",
      instructions: "A demo of h3-mcp: try the render tool with a tasks-capable client.",
      // Listing order is part of the contract: conformanceTools starts with test_simple_text, which the
      // suite calls as "the first tool", and holds the only x-mcp-header tool.
      tools: [...conformanceTools, ...mrtrTools, ...taskFixtureTools, ...legacyTools, ...basicTools, ...taskTools, ...durableTools(runs), ...(auth ? authTools : [])],
      prompts,
      resources,
      resourceTemplates,
    },
    {
      plugins: typeof plugins === "function" ? plugins(tasksPlugin) : plugins,
      extensionPlugins: [tasksPlugin],
      ...(requestState ? { requestState } : {}),
      ...(auth ? { auth } : {}),
    },
  );
  const app: H3 = (auth ? auth.serveMetadata(new H3()) : new H3()).all("/mcp", mcp);
  return { mcp, app, tasks: tasksPlugin };
}

export const { mcp, app } = createDemo();
