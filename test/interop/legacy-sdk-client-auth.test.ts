// The 1.x official SDK client (@modelcontextprotocol/sdk, 2025-11-25 era: initialize and a session) with its
// own OAuth support, against a real authorization server and an h3-mcp server on real HTTP: the same route
// protects legacy sessions as it does 2026-07-28 requests, and the older client finds its token the same way.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { recordExchanges, useServedAuthApp } from "../helpers/served-auth-app.ts";

const server = useServedAuthApp();
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

// The 1.x client_credentials provider asks for the scope it was configured with, not the one a challenge
// names: it is given the route's scope, as a deployment would.
function connect(scope = "mcp") {
  const { wire, recordingFetch } = recordExchanges();
  const provider = new ClientCredentialsProvider({ clientId: server.as().otherClient.id, clientSecret: server.as().otherClient.secret, expectedIssuer: server.as().issuer, scope });
  const client = new Client({ name: "legacy-oauth-interop", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(server.url(), { authProvider: provider, fetch: recordingFetch });
  open.push(client);
  return { client, transport, provider, wire };
}

describe("1.x SDK client with OAuth, 2025-11-25 era", () => {
  it("gets a token from the 401 on initialize, opens a session with it, and calls tools as its client", async () => {
    const { client, transport, wire, provider } = connect();
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: "auth-test" });
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(wire[0]).toMatchObject({ method: "POST", status: 401 });
    expect(wire[0]!.url.pathname).toBe("/mcp");
    expect(wire[0]!.authorization).toBeUndefined();
    expect(wire.map((x) => x.url.pathname)).toContain("/.well-known/oauth-protected-resource/mcp");
    const tokenRequest = wire.find((x) => x.url.pathname === "/token")!;
    expect(Object.fromEntries(tokenRequest.form!)).toMatchObject({ grant_type: "client_credentials", resource: server.url().href, scope: "mcp" });
    // Every MCP request after the token carries it, the session's included.
    const token = provider.tokens()!.access_token;
    const after = wire.slice(wire.indexOf(tokenRequest) + 1).filter((x) => x.url.pathname === "/mcp");
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((x) => x.authorization === `Bearer ${token}` && x.status < 300)).toBe(true);

    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect(who.structuredContent).toEqual({ subject: server.as().otherClient.id, clientId: server.as().otherClient.id, scopes: ["mcp"] });
    expect(wire.filter((x) => x.url.pathname === "/mcp" && x.method === "POST").at(-1)!.session).toBe(transport.sessionId);
  });

  it("is refused a tool its token lacks the scope for with 403 insufficient_scope naming every scope it needs; a token with them passes", async () => {
    const { client, transport, wire } = connect();
    await client.connect(transport);
    const before = wire.length;
    await expect(client.callTool({ name: "admin_echo", arguments: { text: "x" } })).rejects.toThrow(/403/);
    const refused = wire.slice(before).filter((x) => x.url.pathname === "/mcp" && x.method === "POST");
    expect(refused.length).toBeGreaterThan(0);
    for (const x of refused) {
      expect(x.status).toBe(403);
      expect(x.challenge).toMatch(/^Bearer error="insufficient_scope", scope="mcp mcp:admin", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
    }

    const admin = connect("mcp:admin");
    await admin.client.connect(admin.transport);
    const echoed = await admin.client.callTool({ name: "admin_echo", arguments: { text: "legacy admin" } });
    expect(echoed.content).toEqual([{ type: "text", text: "legacy admin" }]);
  });
});
