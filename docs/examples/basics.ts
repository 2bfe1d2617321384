// Run with: npx tsx docs/examples/basics.ts   (serves http://127.0.0.1:3002/mcp)
import { H3, serve } from "h3";
import { defineMcpHandler, defineTool, getMcpContext, mcpLog, mcpProgress, McpJsonRpcError } from "h3-mcp";
import { z } from "zod";

const weather = defineTool({
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: z.object({
    city: z.string(),
    // Mirrored in the Mcp-Param-Region header so proxies can route on it.
    region: z.string().meta({ "x-mcp-header": "Region" }).optional(),
  }),
  outputSchema: z.object({ tempC: z.number() }),
  annotations: { readOnlyHint: true },
  handler: async (event, { city }) => {
    if (city === "Atlantis") throw new McpJsonRpcError(-32602, "Unknown city", { city }); // a protocol error
    if (city === "Nowhere") throw new Error("The weather service is down"); // a tool error: isError
    mcpProgress(event, 0, 1, "Asking the service"); // only sent when the client gave a progressToken
    mcpLog(event, "info", { city }); // only sent when the client asked for logs at this level
    const { signal } = getMcpContext(event); // aborted if the client goes away
    await new Promise((r) => setTimeout(r, 50));
    if (signal.aborted) return "cancelled";
    mcpProgress(event, 1, 1);
    return { content: [{ type: "text", text: `${city}: 21°C` }], structuredContent: { tempC: 21 } };
  },
});

export const mcp = defineMcpHandler(
  { name: "weather", version: "1.0.0", instructions: "Ask for the weather.", tools: [weather] },
  { allowedHosts: ["localhost", "127.0.0.1"], maxBodySize: 1024 * 1024 },
);

const app = new H3().all("/mcp", mcp);
if (import.meta.url === `file://${process.argv[1]}`) serve(app, { port: 3002, hostname: "127.0.0.1" });
