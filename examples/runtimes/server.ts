// Node, Bun and Deno: h3's serve() picks the runtime's own server.
//   node --import tsx examples/runtimes/server.ts    bun examples/runtimes/server.ts    deno run -A examples/runtimes/server.ts
import { H3, serve } from "h3";
import mcp, { auth } from "./mcp.ts";

// With auth on, the protected resource metadata is served beside the route (both well-known URLs).
const app = new H3();
auth?.serveMetadata(app);
app.all("/mcp", mcp);
const server = serve(app, { port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? "127.0.0.1", silent: true });
await server.ready();
console.log(`h3-mcp listening on ${new URL("/mcp", server.url!)}`);
