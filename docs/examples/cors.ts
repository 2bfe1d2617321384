// docs/cors.md: an MCP route a browser app on another origin may call.
import { H3, handleCors } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";

const APP_ORIGIN = "https://app.example";

const echo = defineTool({
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: (_event, args) => `echo: ${(args as { text: string }).text}`,
});

export const mcp = defineMcpHandler(
  { name: "cors-demo", version: "1.0.0", tools: [echo] },
  // The MCP route's own DNS-rebinding check must admit the browser app's origin too.
  { allowedOrigins: ["localhost", "127.0.0.1", APP_ORIGIN] },
);

export const app: H3 = new H3()
  .use("/mcp", (event) => {
    // A preflight (OPTIONS) is answered here; any other request gets the CORS headers and goes on.
    const preflight = handleCors(event, {
      origin: [APP_ORIGIN],
      methods: ["GET", "POST", "DELETE"],
      allowHeaders: ["content-type", "accept", "authorization", "mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id", "last-event-id"],
      // A legacy client reads its session id from the initialize response.
      exposeHeaders: ["mcp-session-id"],
      maxAge: "600",
    });
    if (preflight !== false) return preflight;
  })
  .all("/mcp", mcp);
