// Cloudflare Workers: the module exports `{ fetch }`. h3's serve() in manual mode gives the worker
// fetch(request, env, ctx) that hands ctx.waitUntil to the request, which keeps task runs alive.
//   wrangler dev --config examples/runtimes/wrangler.jsonc
import { H3, serve } from "h3";
import mcp, { auth } from "./mcp.ts";

// With auth on, the protected resource metadata is served beside the route (both well-known URLs).
const app = new H3();
auth?.serveMetadata(app);
app.all("/mcp", mcp);
export default { fetch: serve(app, { manual: true }).fetch };
