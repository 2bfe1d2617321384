// Cloudflare Workers with tasks every isolate shares: the endpoint of mcp.ts, its tasks kept in a Durable
// Object (McpTasksObject, on its SQLite storage) instead of the isolate's memory, so a tasks/get, a
// tasks/update or a listen stream served by any isolate (or after a restart) finds the task. The class must
// be exported from the main module, bound and migrated: wrangler-durable-object.jsonc.
//   wrangler dev --config wrangler-durable-object.jsonc     (MCP_TASKS_SECRET from .dev.vars or --var)
import { env } from "cloudflare:workers";
import { H3, serve } from "h3";
import { durableObjectTaskStore, type TasksObjectNamespace } from "h3-mcp/tasks/durable-object";
import { auth, runtimeMcp } from "./mcp.ts";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

declare global {
  namespace Cloudflare {
    interface Env {
      /** The `durable_objects` binding of class McpTasksObject. */
      MCP_TASKS: TasksObjectNamespace;
      /** Key of the hash task owners are stored under (a Worker secret: `wrangler secret put MCP_TASKS_SECRET`). */
      MCP_TASKS_SECRET: string;
    }
  }
}

// Made at module scope: the store does no I/O and takes no randomness until a request uses it.
const store = durableObjectTaskStore(env.MCP_TASKS, { secret: env.MCP_TASKS_SECRET });

const app = new H3();
auth?.serveMetadata(app);
app.all("/mcp", runtimeMcp({ store }));
export default { fetch: serve(app, { manual: true }).fetch };
