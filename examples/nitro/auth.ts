// The route's guard, shared by the MCP route and its protected resource metadata route. On when
// MCP_AUTH_ISSUER names an authorization server (the runtime smoke sets it): every request then needs a
// JWT access token from it for MCP_AUTH_RESOURCE with scope `mcp`.
import { jwtVerifier, mcpAuth } from "h3-mcp/auth";

const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
const issuer = env.MCP_AUTH_ISSUER;

export const auth = issuer
  ? mcpAuth({
      resource: env.MCP_AUTH_RESOURCE ?? "http://127.0.0.1:3000/mcp",
      verifier: jwtVerifier({ issuers: [{ issuer, typ: "at+jwt" }] }),
      scopes: ["mcp"],
    })
  : undefined;
