// Resources that need scopes, against a real authorization server: a read under scopes is never offered to
// a shared cache, and following a resource (a listen's resourceSubscriptions, a legacy resources/subscribe)
// needs the scopes a read needs, since the notifications tell when it changes.
import { H3 } from "h3";
import { defineMcpHandler, defineResource, defineResourceTemplate } from "h3-mcp";
import { jwtVerifier, mcpAuth } from "h3-mcp/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "../helpers/authorization-server.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, type Fetcher } from "../helpers/wire.ts";

let as: AuthorizationServer;
let mcpToken: string;
let otherToken: string;
beforeAll(async () => {
  as = await startAuthorizationServer();
  mcpToken = await as.token(RESOURCE, "mcp");
  otherToken = await as.token(RESOURCE, "mcp mcp:other");
});
afterAll(() => as.close());

function resourcesApp() {
  const auth = mcpAuth({ resource: RESOURCE, verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }] }), scopes: ["mcp"] });
  const handler = defineMcpHandler(
    {
      name: "resources",
      version: "1.0.0",
      resources: [
        defineResource({ uri: "files://plan", name: "plan", scopes: ["mcp:other"], read: () => "the plan" }),
        defineResource({ uri: "files://open", name: "open", read: () => "open to all" }),
      ],
      resourceTemplates: [defineResourceTemplate({ uriTemplate: "files://private/{name}", name: "private", scopes: ["mcp:other"], read: (_e, uri) => `contents of ${uri}` })],
    },
    { auth },
  );
  return new H3().all("/mcp", handler);
}

/** `app` as seen by a client that sends `token` on every request. */
const withToken = (app: Fetcher, token: string): Fetcher => ({
  fetch(request) {
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${token}`);
    return app.fetch(new Request(request, { headers }));
  },
});

describe("resources under scopes", () => {
  it("reads a resource that needs scopes with a private cache scope, an open one with the server's", async () => {
    const app = resourcesApp();
    const plan = await call(app, "resources/read", { uri: "files://plan" }, { headers: bearer(otherToken) });
    expect(plan.body.result.contents[0].text).toBe("the plan");
    expect(plan.body.result.cacheScope).toBe("private");
    const page = await call(app, "resources/read", { uri: "files://private/a" }, { headers: bearer(otherToken) });
    expect(page.body.result.cacheScope).toBe("private");
    const open = await call(app, "resources/read", { uri: "files://open" }, { headers: bearer(mcpToken) });
    expect(open.body.result.cacheScope).toBe("public");
  });

  it("leaves out of a listen's agreement the resources the caller may not read", async () => {
    const app = resourcesApp();
    const uris = ["files://plan", "files://open", "files://private/a"];
    const mine = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }, { headers: bearer(mcpToken) })));
    expect((await mine.next()).params.notifications).toEqual({ resourceSubscriptions: ["files://open"] });
    await mine.close();
    const theirs = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }, { headers: bearer(otherToken) })));
    expect((await theirs.next()).params.notifications).toEqual({ resourceSubscriptions: uris });
    await theirs.close();
  });

  it("refuses a 2025-11-25 resources/subscribe without the resource's scopes with the 403 challenge", async () => {
    const app = resourcesApp();
    const legacy = await legacyClient(withToken(app, mcpToken));
    const denied = await legacy.post({ id: 7, method: "resources/subscribe", params: { uri: "files://private/a" } });
    expect(denied.status).toBe(403);
    expect(denied.headers.get("www-authenticate")).toMatch(/error="insufficient_scope", scope="mcp mcp:other"/);
    expectError((await denied.json()), -32600);
    expect((await legacy.request("resources/subscribe", { uri: "files://open" })).body.result).toEqual({});
    const allowed = await legacyClient(withToken(app, otherToken));
    expect((await allowed.request("resources/subscribe", { uri: "files://plan" })).body.result).toEqual({});
  });
});
