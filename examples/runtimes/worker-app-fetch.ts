// Cloudflare Workers, the plain way: the module exports the app's own fetch. The request then carries
// no waitUntil; h3-mcp's workerd build (wrangler bundles with the `workerd` condition) keeps task runs
// alive with the `waitUntil` that `cloudflare:workers` exports instead.
//   wrangler dev worker-app-fetch.ts     in a project that installs h3-mcp, as the runtime smoke does. From this
// repository's sources (tsconfig `paths`) the bundle gets the build for other runtimes, and tasks are refused
// with an error that says so; worker.ts works from both.
import { H3 } from "h3";
import mcp, { auth } from "./mcp.ts";

// With auth on, the protected resource metadata is served beside the route (both well-known URLs).
const app = new H3();
auth?.serveMetadata(app);
app.all("/mcp", mcp);
export default { fetch: app.fetch };
