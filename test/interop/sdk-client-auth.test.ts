// The official TypeScript SDK client (@modelcontextprotocol/client, 2026-07-28 era) with its own OAuth
// support, against a real authorization server (oidc-provider) and an h3-mcp server on real HTTP: from the
// first 401 alone it finds the protected resource metadata, the authorization server's metadata and a token
// for this resource (client_credentials, and authorization_code with PKCE through a browserless sign-in),
// calls tools, follows a task to its end, and steps up when a tool needs more scopes.
import {
  applyMiddlewares,
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  withOAuth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, resultFromTaskOutcome, type JsonRpcResponse, type RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";
import { afterEach, describe, expect, it } from "vitest";
import { recordExchanges, useServedAuthApp } from "../helpers/served-auth-app.ts";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";

const server = useServedAuthApp();
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function connectWith(provider: OAuthClientProvider) {
  const { wire, recordingFetch } = recordExchanges();
  const client = new Client({ name: "oauth-interop", version: "1.0.0" }, { capabilities: { extensions: { [TASKS]: {} } }, versionNegotiation: { mode: { pin: V } } });
  const transport = new StreamableHTTPClientTransport(server.url(), { authProvider: provider, fetch: recordingFetch });
  open.push(client);
  return { client, transport, wire };
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
const tokenOf = async (provider: OAuthClientProvider) => (await provider.tokens())!.access_token;
const credentials = () => new ClientCredentialsProvider({ clientId: server.as().client.id, clientSecret: server.as().client.secret, expectedIssuer: server.as().issuer });

describe("official SDK client with OAuth: client_credentials", () => {
  it("discovers everything from the 401 in order, gets a token for this resource with the challenged scope, and calls a tool", async () => {
    const provider = credentials();
    const { client, transport, wire } = connectWith(provider);
    await client.connect(transport);
    const steps = wire.map((x) => `${x.status} ${x.method} ${x.url.origin === server.as().issuer ? "AS" : "MCP"} ${x.url.pathname}`);
    const at = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step));
    // The 401 first, without a token; then the metadata it names; then the authorization server's metadata
    // (RFC 8414 or OpenID Connect discovery); then the token; then the same request again, with it.
    expect(steps[0]).toBe("401 POST MCP /mcp");
    expect(wire[0]!.authorization).toBeUndefined();
    expect(wire[0]!.mcpMethod).toBe("server/discover");
    const metadata = at(/^200 GET MCP \/\.well-known\/oauth-protected-resource\/mcp$/);
    const asMetadata = at(/^200 GET AS \/\.well-known\/(oauth-authorization-server|openid-configuration)$/);
    const token = at(/^200 POST AS \/token$/);
    expect(metadata).toBeGreaterThan(0);
    expect(asMetadata).toBeGreaterThan(metadata);
    expect(token).toBeGreaterThan(asMetadata);
    expect(steps.at(-1)).toBe("200 POST MCP /mcp");
    expect(wire.at(-1)!.authorization).toMatch(/^Bearer /);
    // RFC 8707: the token was asked for this server's canonical URI, with the scope the challenge named.
    expect(wire[token]!.form?.get("resource")).toBe(server.url().href);
    expect(wire[token]!.form?.get("scope")).toBe("mcp");

    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect(who.structuredContent).toEqual({ subject: server.as().client.id, clientId: server.as().client.id, scopes: ["mcp"] });
    const claims = claimsOf(await tokenOf(provider));
    expect(claims).toMatchObject({ aud: server.url().href, scope: "mcp", iss: server.as().issuer });
  });

  it("follows a task to its end with the official tasks client, each request authorized by the SDK's OAuth middleware", async () => {
    const provider = credentials();
    const { client, transport } = connectWith(provider);
    await client.connect(transport);
    const { wire, recordingFetch } = recordExchanges();
    const authorizedFetch = applyMiddlewares(withOAuth(provider, server.url()))(recordingFetch);
    const framing = { protocolVersion: V, clientInfo: { name: "oauth-interop", version: "1.0.0" }, clientCapabilities: { extensions: { [TASKS]: {} } } };
    let n = 0;
    const rawDispatch: RawClientDispatch = async (request, options) => {
      const req = request as { method: string; params?: { name?: string } };
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": req.method,
        ...(req.method === "tools/call" && req.params?.name ? { "mcp-name": req.params.name } : {}),
        ...options?.context?.headers,
      };
      const res = await authorizedFetch(server.url(), { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: `raw-${++n}`, ...(request as object) }) });
      const message = (await res.json()) as { result?: unknown; error?: unknown };
      return ("error" in message ? { kind: "error", error: message.error } : { kind: "result", result: message.result }) as JsonRpcResponse;
    };
    const session = createTaskSessionFromClient(client, { endpointId: "auth", rawDispatch, v2RequestFraming: framing });
    try {
      const execution = await session.callTool("slow_task", {});
      expect(execution.kind).toBe("task");
      if (execution.kind !== "task") return;
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe("completed");
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "done" }] });
    } finally {
      await session.close();
    }
    const methods = wire.map((x) => x.mcpMethod);
    expect(methods[0]).toBe("tools/call");
    expect(methods).toContain("tasks/get");
    expect(wire.every((x) => x.status === 200 && x.authorization === `Bearer ${wire[0]!.authorization!.slice(7)}`)).toBe(true);
  });

  it("steps up: a 403 insufficient_scope, a new token with the union of scopes, and the retry passes", async () => {
    const provider = credentials();
    const { client, transport, wire } = connectWith(provider);
    await client.connect(transport);
    const first = await tokenOf(provider);
    const before = wire.length;
    const echoed = await client.callTool({ name: "admin_echo", arguments: { text: "stepped up" } });
    expect(echoed.content).toEqual([{ type: "text", text: "stepped up" }]);
    const after = wire.slice(before);
    const calls = after.filter((x) => x.mcpMethod === "tools/call");
    expect(calls.map((x) => x.status)).toEqual([403, 200]);
    expect(calls[0]!.authorization).toBe(`Bearer ${first}`);
    expect(calls[0]!.challenge).toMatch(/^Bearer error="insufficient_scope", scope="mcp mcp:admin", resource_metadata=/);
    const second = await tokenOf(provider);
    expect(second).not.toBe(first);
    expect(calls[1]!.authorization).toBe(`Bearer ${second}`);
    // The new token was asked for every scope the challenge named: the route's and the tool's.
    const tokenRequest = after.find((x) => x.url.pathname === "/token");
    expect(tokenRequest!.form!.get("scope")!.split(" ").sort()).toEqual(["mcp", "mcp:admin"]);
    expect(String(claimsOf(second).scope).split(" ").sort()).toEqual(["mcp", "mcp:admin"]);
  });
});

/** A public client for authorization_code with PKCE whose "browser" is the test. */
class BrowserlessProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  #tokens?: StoredOAuthTokens;
  #verifier?: string;
  #discovery?: OAuthDiscoveryState;
  constructor(private readonly client: { id: string; redirectUri: string }) {}
  get redirectUrl() {
    return this.client.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "oauth-interop", redirect_uris: [this.client.redirectUri], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return { client_id: this.client.id };
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier!;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
}

describe("official SDK client with OAuth: authorization_code with PKCE", () => {
  it("sends the user to authorize with S256 and this resource, exchanges the code, and calls tools as that user", async () => {
    const provider = new BrowserlessProvider(server.as().publicClient);
    const first = connectWith(provider);
    await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${server.as().issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: server.as().publicClient.id,
      code_challenge_method: "S256",
      resource: server.url().href,
      scope: "mcp",
    });
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const callback = await server.as().authorizeAs(url, "alice");
    expect(callback.get("code")).toBeTruthy();
    await first.transport.finishAuth(callback);
    const exchange = first.wire.find((x) => x.url.pathname === "/token")!;
    expect(exchange.form?.get("grant_type")).toBe("authorization_code");
    expect(exchange.form?.get("code_verifier")).toBe(provider.codeVerifier());
    expect(exchange.form?.get("resource")).toBe(server.url().href);

    const second = connectWith(provider);
    await second.client.connect(second.transport);
    const who = await second.client.callTool({ name: "whoami", arguments: {} });
    expect(who.structuredContent).toEqual({ subject: "alice", clientId: server.as().publicClient.id, scopes: ["mcp"] });
    expect(claimsOf(await tokenOf(provider))).toMatchObject({ aud: server.url().href, sub: "alice", client_id: server.as().publicClient.id });
  });
});
