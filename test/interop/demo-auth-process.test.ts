// `MCP_AUTH_ISSUER=… npm start`: the demo as a real process protected by a real authorization server
// (oidc-provider), reached by the official SDK client and by raw requests; open when the variable is unset;
// MCP_AUTH_RESOURCE names the canonical URI behind a proxy.
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthorizationServer, type AuthorizationServer } from "../helpers/authorization-server.ts";
import { overHttp, startDemo, type DemoProcess } from "../helpers/demo-process.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { call, TASKS } from "../helpers/wire.ts";

const PUBLIC = "https://mcp.example.com/mcp";
let as: AuthorizationServer;
let open: DemoProcess;
let guarded: DemoProcess;
let proxied: DemoProcess;
beforeAll(async () => {
  as = await startAuthorizationServer();
  [open, guarded, proxied] = await Promise.all([
    startDemo({ MCP_AUTH_ISSUER: "" }),
    startDemo({ MCP_AUTH_ISSUER: as.issuer }),
    startDemo({ MCP_AUTH_ISSUER: as.issuer, MCP_AUTH_RESOURCE: PUBLIC }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([open, guarded, proxied].map((demo) => demo?.stop("SIGKILL")));
  await as?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const metadataUrlOf = (resource: string) => `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`;

function challenge(res: Response): Record<string, string> {
  const header = res.headers.get("www-authenticate")!;
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

async function post(demo: DemoProcess, method: string, params: Record<string, unknown>, token?: string) {
  return call(overHttp(demo.url) as never, method, params, { headers: token ? bearer(token) : {}, caps: { extensions: { [TASKS]: {} } } });
}

describe("the demo without MCP_AUTH_ISSUER", () => {
  it("is open, says so, serves no metadata and lists no identity tools", async () => {
    expect(open.output()).toContain("open (MCP_AUTH_ISSUER unset)");
    const list = await post(open, "tools/list", {});
    expect(list.status).toBe(200);
    const names = list.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("render");
    expect(names).not.toContain("whoami");
    const metadata = await fetch(metadataUrlOf(open.url));
    expect(metadata.status).toBe(404);
  });
});

describe("the demo with MCP_AUTH_ISSUER", () => {
  it("says how it is protected, and answers a request without a token with the 401 challenge", async () => {
    expect(guarded.output()).toContain(`/mcp needs a token of ${as.issuer} for ${guarded.url} with scope mcp`);
    const res = await fetch(guarded.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(401);
    expect(challenge(res)).toEqual({ resource_metadata: metadataUrlOf(guarded.url), scope: "mcp" });
    expectError(await res.json(), -32600);
  });

  it("serves its metadata at both well-known URLs: this resource (HOST:PORT by default), this issuer, scopes_supported [mcp]", async () => {
    for (const url of [metadataUrlOf(guarded.url), `${new URL(guarded.url).origin}/.well-known/oauth-protected-resource`]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: guarded.url,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp"],
        bearer_methods_supported: ["header"],
        resource_name: "h3-mcp demo",
      });
    }
  });

  it("lets the official SDK client in from the 401 alone: whoami names its client, admin_echo steps up to mcp:admin", async () => {
    const provider = new ClientCredentialsProvider({ clientId: as.client.id, clientSecret: as.client.secret, expectedIssuer: as.issuer });
    const client = new Client({ name: "demo-oauth", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(guarded.url), { authProvider: provider }));
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["whoami", "admin_echo", "render"]));
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect(who.structuredContent).toEqual({ subject: as.client.id, clientId: as.client.id, scopes: ["mcp"] });
      const echoed = await client.callTool({ name: "admin_echo", arguments: { text: "hello admin" } });
      expect(echoed.content).toEqual([{ type: "text", text: "hello admin" }]);
      const after = await client.callTool({ name: "whoami", arguments: {} });
      expect((after.structuredContent as { scopes: string[] }).scopes.sort()).toEqual(["mcp", "mcp:admin"]);
    } finally {
      await client.close();
    }
  });

  it("needs mcp on the whole route and mcp:admin for admin_echo, mcp:admin implying mcp", async () => {
    const [mcp, admin, other] = await Promise.all([
      as.token(guarded.url, "mcp"),
      as.token(guarded.url, "mcp:admin"),
      as.token(guarded.url, "mcp:other"),
    ]);
    const refused = await post(guarded, "tools/call", { name: "admin_echo", arguments: { text: "x" } }, mcp);
    expect(refused.status).toBe(403);
    expect(challenge(refused.res)).toMatchObject({ error: "insufficient_scope", scope: "mcp mcp:admin", resource_metadata: metadataUrlOf(guarded.url) });
    const echoed = await post(guarded, "tools/call", { name: "admin_echo", arguments: { text: "x" } }, admin);
    expectShape(S.callTool, echoed.body.result);
    expect(echoed.body.result.content).toEqual([{ type: "text", text: "x" }]);
    const who = await post(guarded, "tools/call", { name: "whoami", arguments: {} }, admin);
    expect(who.body.result.structuredContent).toEqual({ subject: as.client.id, clientId: as.client.id, scopes: ["mcp:admin"] });
    const outside = await post(guarded, "tools/list", {}, other);
    expect(outside.status).toBe(403);
    expect(challenge(outside.res)).toMatchObject({ error: "insufficient_scope", scope: "mcp" });
  });

  it("keeps each caller's tasks to them", async () => {
    const [alice, bob] = await Promise.all([as.token(guarded.url, "mcp"), as.token(guarded.url, "mcp", as.otherClient)]);
    const created = await post(guarded, "tools/call", { name: "render", arguments: { frames: 1, msPerFrame: 10 } }, alice);
    expectShape(S.createTask, created.body.result);
    const taskId = created.body.result.taskId;
    expect((await post(guarded, "tasks/get", { taskId }, alice)).status).toBe(200);
    expect(expectError((await post(guarded, "tasks/get", { taskId }, bob)).body, -32602).message).toBe("Unknown task");
  });
});

describe("the demo with MCP_AUTH_RESOURCE", () => {
  it("announces that URI, names its metadata in challenges, and takes only tokens issued for it", async () => {
    const metadata = await (await fetch(metadataUrlOf(proxied.url))).json();
    expect(metadata).toMatchObject({ resource: PUBLIC, authorization_servers: [as.issuer] });
    const bare = await post(proxied, "tools/list", {});
    expect(challenge(bare.res)).toEqual({ resource_metadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope: "mcp" });
    const local = await post(proxied, "tools/list", {}, await as.token(proxied.url, "mcp"));
    expect(local.status).toBe(401);
    expect(challenge(local.res)).toMatchObject({ error: "invalid_token", error_description: "The access token was not issued for this resource" });
    expect((await post(proxied, "tools/list", {}, await as.token(PUBLIC, "mcp"))).status).toBe(200);
  });
});
