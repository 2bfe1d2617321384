// The runs smokes' Worker with h3's serve() in manual mode: each request carries the Worker's ctx.waitUntil.
import { serve } from "h3";
import { app } from "./runs-app.ts";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

export default { fetch: serve(app, { manual: true }).fetch };
