// The MCP authorization spec on the wire, against a real authorization server (oidc-provider): the
// protected resource metadata at both well-known URLs, the 401 and 403 challenges with their JSON-RPC
// bodies, and nothing run for a request that is not let in, in both eras.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authApp, bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "../helpers/authorization-server.ts";
import { initializeRequest, legacyClient, legacyRequest } from "../helpers/legacy.ts";
import { expectError, expectResult, S } from "../helpers/schemas.ts";
import { call, messages, modernRequest } from "../helpers/wire.ts";
import { mountOf } from "../../src/transport/handler.ts";

let as: AuthorizationServer;
let server: ReturnType<typeof authApp>;
let mcpToken: string;
let adminToken: string;
beforeAll(async () => {
  as = await startAuthorizationServer();
  server = authApp({ issuer: as.issuer });
  mcpToken = await as.token(RESOURCE, "mcp");
  adminToken = await as.token(RESOURCE, "mcp:admin");
});
afterAll(() => as.close());

const METADATA_URL = "http://localhost/.well-known/oauth-protected-resource/mcp";

/** The parameters of a `WWW-Authenticate: Bearer k="v", ...` challenge. */
function challenge(res: Response): Record<string, string> {
  const header = res.headers.get("www-authenticate");
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

describe("protected resource metadata (RFC 9728)", () => {
  it("is served at the path-aware and at the root well-known URL, the same document, readable cross-origin and cacheable", async () => {
    for (const url of [METADATA_URL, "http://localhost/.well-known/oauth-protected-resource"]) {
      const res = await server.app.fetch(new Request(url, { headers: { origin: "https://app.example" } }));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
      expect(await res.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp"],
        bearer_methods_supported: ["header"],
        resource_name: "h3-mcp auth tests",
      });
    }
  });

  it("answers a browser's preflight, and refuses to change", async () => {
    const preflight = await server.app.fetch(
      new Request(METADATA_URL, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "GET", "access-control-request-headers": "mcp-protocol-version" } }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("*");
    const post = await server.app.fetch(new Request(METADATA_URL, { method: "POST", body: "{}" }));
    expect(post.status).toBe(405);
  });

  it("is the same object that protects the route: its URL is the one every challenge names", async () => {
    expect(server.auth.metadataUrl).toBe(METADATA_URL);
    expect(server.auth.metadataPaths).toEqual(["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]);
    const res = await server.app.fetch(modernRequest("tools/list"));
    expect(challenge(res).resource_metadata).toBe(METADATA_URL);
  });
});

describe("401: no usable token", () => {
  it("without credentials: Bearer with resource_metadata and scope, and no error code (RFC 6750 section 3.1)", async () => {
    const res = await server.app.fetch(modernRequest("tools/call", { name: "counter" }));
    expect(res.status).toBe(401);
    expect(challenge(res)).toEqual({ resource_metadata: METADATA_URL, scope: "mcp" });
    expect(res.headers.get("www-authenticate")).not.toMatch(/error=/);
    const error = expectError(await res.json(), -32600);
    expect(error.message).toMatch(/^Unauthorized/);
    expect(server.runs.counter).toBe(0);
  });

  it("with a refused token: error=invalid_token and a description that names no detail of the token", async () => {
    const res = await server.app.fetch(modernRequest("tools/call", { name: "counter" }, { headers: bearer("not-a-jwt") }));
    expect(res.status).toBe(401);
    const params = challenge(res);
    expect(params).toMatchObject({ resource_metadata: METADATA_URL, scope: "mcp", error: "invalid_token" });
    expect(params.error_description).toBe("The access token is malformed");
    expectError(await res.json(), -32600);
    expect(server.runs.counter).toBe(0);
  });

  it("runs nothing: no tool, no task, no listen stream, no legacy session, no answer to a legacy GET", async () => {
    const before = server.tasks.stats;
    const task = await server.app.fetch(modernRequest("tools/call", { name: "slow_task" }, { caps: { extensions: { "io.modelcontextprotocol/tasks": {} } } }));
    expect(task.status).toBe(401);
    const listen = await server.app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }));
    expect(listen.status).toBe(401);
    expect(listen.headers.get("content-type")).toBe("application/json");
    const init = await server.app.fetch(initializeRequest());
    expect(init.status).toBe(401);
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect(mountOf(server.handler).sessions.size).toBe(0);
    const get = await server.app.fetch(new Request("http://localhost/mcp", { method: "GET", headers: { "mcp-session-id": "x" } }));
    expect(get.status).toBe(401);
    expect(server.tasks.stats).toEqual(before);
    expect(mountOf(server.handler).streams.size).toBe(0);
  });
});

describe("403: a valid token without the scopes an operation needs", () => {
  it("names every scope the call needs in one insufficient_scope challenge (the route's and the tool's)", async () => {
    const res = await server.app.fetch(modernRequest("tools/call", { name: "admin_echo", arguments: { text: "hi" } }, { headers: bearer(mcpToken) }));
    expect(res.status).toBe(403);
    expect(challenge(res)).toEqual({
      error: "insufficient_scope",
      scope: "mcp mcp:admin",
      resource_metadata: METADATA_URL,
      error_description: "This operation needs more scopes",
    });
    expectError(await res.json(), -32600);
  });

  it("lets a broader scope satisfy a narrower one (mcp:admin implies mcp): the step-up token does both", async () => {
    const admin = await call(server.app, "tools/call", { name: "admin_echo", arguments: { text: "hi" } }, { headers: bearer(adminToken) });
    expect(admin.status).toBe(200);
    expect(expectResult(admin.body, S.callTool).content).toEqual([{ type: "text", text: "hi" }]);
    const plain = await call(server.app, "tools/call", { name: "whoami" }, { headers: bearer(adminToken) });
    expect(plain.status).toBe(200);
  });

  it("lists the tool to a caller lacking its scopes, so the client can step up", async () => {
    const list = await call(server.app, "tools/list", {}, { headers: bearer(mcpToken) });
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toContain("admin_echo");
    expect(JSON.stringify(list.body.result)).not.toContain("mcp:admin");
  });

  it("refuses a token lacking the route's scope with 403 naming it", async () => {
    const other = await as.token(RESOURCE, "mcp:other");
    const res = await server.app.fetch(modernRequest("tools/list", {}, { headers: bearer(other) }));
    expect(res.status).toBe(403);
    expect(challenge(res)).toMatchObject({ error: "insufficient_scope", scope: "mcp" });
  });

  it("decides from the body's tool name, after the Mcp-Name header was checked against it (a header alone is never trusted)", async () => {
    const res = await server.app.fetch(
      modernRequest("tools/call", { name: "admin_echo", arguments: { text: "hi" } }, { headers: { ...bearer(mcpToken), "mcp-name": "whoami" } }),
    );
    expect(res.status).toBe(400);
    expectError(await res.json(), -32020);
  });
});

describe("the legacy era on the same route", () => {
  it("authenticates initialize, every later POST and the GET stream, and checks a tool's scopes from the body", async () => {
    const legacy = await legacyClientWith(mcpToken);
    expect(legacy.initStatus).toBe(200);
    const listed = await legacy.request("tools/list");
    expect(listed.status).toBe(200);
    const admin = await legacy.request("tools/call", { name: "admin_echo", arguments: { text: "x" } });
    expect(admin.status).toBe(403);
    expect(challenge(admin.res)).toMatchObject({ error: "insufficient_scope", scope: "mcp mcp:admin" });
    // The same session without a token is a stranger.
    const bare = await server.app.fetch(legacyRequest({ id: 9, method: "tools/list" }, { "mcp-session-id": legacy.sessionId }));
    expect(bare.status).toBe(401);
  });

  it("keeps a session to whoever opened it: another subject's token gets 404 as for an unknown session", async () => {
    const legacy = await legacyClientWith(mcpToken);
    const other = await as.token(RESOURCE, "mcp", as.shortLivedClient);
    const res = await server.app.fetch(legacyRequest({ id: 9, method: "tools/list" }, { "mcp-session-id": legacy.sessionId, ...bearer(other) }));
    expect(res.status).toBe(404);
    expect((await messages(res))[0].error.message).toBe("Session not found");
  });
});

/** A legacy client whose every request carries the token. */
async function legacyClientWith(token: string) {
  const app = { fetch: (request: Request) => server.app.fetch(withHeader(request, "authorization", `Bearer ${token}`)) };
  return legacyClient(app as never);
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request, { headers });
}
