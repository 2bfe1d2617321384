// The runs smokes' Worker as `{ fetch: app.fetch }`: no request carries a waitUntil; a closure's run lives
// on through the one of `cloudflare:workers` (the workerd build), a named run in the object regardless.
import { app } from "./runs-app.ts";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

export default { fetch: app.fetch };
