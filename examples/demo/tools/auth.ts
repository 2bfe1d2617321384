// The tools a protected demo adds (MCP_AUTH_ISSUER set): who the access token speaks for, and an echo that
// needs more than the route's scope, to try step-up with.
import { defineTool, getMcpAuth } from "h3-mcp";
import { z } from "zod";

export const whoamiTool = defineTool({
  name: "whoami",
  title: "Who am I",
  description: "Tells who the access token speaks for: its subject, client id and scopes",
  outputSchema: z.object({ subject: z.string(), clientId: z.string().nullable(), scopes: z.array(z.string()) }),
  handler: (event) => {
    // The route is protected, so every call that reaches a tool carries a verified identity.
    const auth = getMcpAuth(event)!;
    const who = { subject: auth.subject, clientId: auth.clientId ?? null, scopes: [...auth.scopes] };
    return { content: [{ type: "text", text: JSON.stringify(who) }], structuredContent: who };
  },
});

export const adminEchoTool = defineTool({
  name: "admin_echo",
  title: "Admin echo",
  description: "Echoes its text; needs the mcp:admin scope (a token with only mcp gets 403 insufficient_scope)",
  scopes: ["mcp:admin"],
  inputSchema: z.object({ text: z.string() }),
  handler: (_event, { text }) => text,
});

export const authTools = [whoamiTool, adminEchoTool];
