// The authorization server down, slow, rotating its keys, or asked about opaque tokens: a bounded 503
// (never a hang, never a 500) while it cannot be reached, keys already known keep working, a new key is
// picked up without a restart, and introspection answers are reused within their bounds.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { introspectionVerifier, jwtVerifier } from "h3-mcp/auth";
import { authApp, bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "../helpers/authorization-server.ts";
import { expectError } from "../helpers/schemas.ts";
import { call } from "../helpers/wire.ts";

let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterEach(() => {
  as.setDown(false);
  as.setDelay(0);
});
afterAll(() => as.close());

const whoami = (app: { fetch(r: Request): Response | Promise<Response> }, token: string) => call(app, "tools/call", { name: "whoami" }, { headers: bearer(token) });

describe("the authorization server down or slow", () => {
  it("answers 503 with a JSON-RPC error and Retry-After while no key can be had, tells onError why, and recovers", async () => {
    const reasons: unknown[] = [];
    const { app } = authApp({
      issuer: as.issuer,
      auth: { verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }], keysCooldownMs: 100 }) },
      config: { onError: (error) => reasons.push(error) },
    });
    const token = await as.token(RESOURCE, "mcp");
    as.setDown(true);
    const down = await whoami(app, token);
    expect(down.status).toBe(503);
    expect(down.res.headers.get("retry-after")).toBe("5");
    expect(expectError(down.body, -32603).message).toMatch(/authorization server/);
    expect(String(reasons[0])).toMatch(/AuthorizationServerUnavailableError/);
    expect(JSON.stringify(down.body)).not.toContain(token);
    as.setDown(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await whoami(app, token)).status).toBe(200);
  });

  it("answers a slow one within the fetch timeout, not when it finally answers", async () => {
    const { app } = authApp({ issuer: as.issuer, auth: { verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }], timeoutMs: 300 }) } });
    const token = await as.token(RESOURCE, "mcp");
    as.setDelay(5000);
    const started = Date.now();
    const slow = await whoami(app, token);
    expect(slow.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("keeps verifying new tokens signed with keys it already has while the server is down", async () => {
    const { app } = authApp({ issuer: as.issuer, auth: { verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }], keysMaxAgeMs: 1 }) } });
    expect((await whoami(app, await as.token(RESOURCE, "mcp"))).status).toBe(200);
    const next = await as.token(RESOURCE, "mcp");
    as.setDown(true);
    // Its keys are "old" (max age 1 ms): the background refresh fails, and the keys it has still serve.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await whoami(app, next)).status).toBe(200);
    expect((await whoami(app, next)).status).toBe(200);
  });
});

describe("key rotation", () => {
  it("picks up a new signing key without a restart, and still honours the old one while it is published", async () => {
    const { app } = authApp({ issuer: as.issuer, auth: { verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }], keysCooldownMs: 0 }) } });
    const before = await as.token(RESOURCE, "mcp");
    expect((await whoami(app, before)).status).toBe(200);
    await as.rotateKeys();
    const after = await as.token(RESOURCE, "mcp");
    expect(after.split(".")[0]).not.toBe(before.split(".")[0]);
    expect((await whoami(app, after)).status).toBe(200);
    expect((await whoami(app, before)).status).toBe(200);
  });
});

describe("a key the verifier has not seen yet", () => {
  it("is refused while the keys may not be fetched again, without asking, and accepted once they may", async () => {
    const cooldown = 400;
    const { app } = authApp({ issuer: as.issuer, auth: { verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }], keysCooldownMs: cooldown }) } });
    expect((await whoami(app, await as.token(RESOURCE, "mcp"))).status).toBe(200);
    const fetchedAt = Date.now();
    await as.rotateKeys();
    const rotated = await as.token(RESOURCE, "mcp");
    const jwks = as.jwksRequests;
    for (let i = 0; i < 5; i++) {
      const refused = await whoami(app, rotated);
      expect(refused.status).toBe(401);
      expect(refused.res.headers.get("www-authenticate")).toMatch(/error="invalid_token", error_description="The access token is invalid"/);
    }
    expect(as.jwksRequests).toBe(jwks);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, fetchedAt + cooldown + 20 - Date.now())));
    expect((await whoami(app, rotated)).status).toBe(200);
    expect(as.jwksRequests).toBe(jwks + 1);
  });
});

describe("opaque tokens by introspection (RFC 7662)", () => {
  const opaqueApp = (cacheTtlMs?: number) =>
    authApp({
      issuer: as.issuer,
      auth: {
        resource: as.opaqueResource,
        verifier: introspectionVerifier({ issuer: as.issuer, clientId: as.introspector.id, clientSecret: as.introspector.secret, cacheTtlMs }),
      },
    });

  it("accepts an active token for this resource, asking once and then reusing the answer", async () => {
    const { app } = opaqueApp();
    const token = await as.token(as.opaqueResource, "mcp");
    const before = as.introspections;
    const first = await whoami(app, token);
    expect(first.status).toBe(200);
    expect(first.body.result.structuredContent).toEqual({ subject: as.client.id, clientId: as.client.id, scopes: ["mcp"] });
    expect((await whoami(app, token)).status).toBe(200);
    expect(as.introspections - before).toBe(1);
  });

  it("refuses a revoked token on the next request when answers are not reused, and a JWT-only resource's token", async () => {
    const { app } = opaqueApp(0);
    const token = await as.token(as.opaqueResource, "mcp");
    expect((await whoami(app, token)).status).toBe(200);
    await as.revoke(token);
    const revoked = await whoami(app, token);
    expect(revoked.status).toBe(401);
    expect(revoked.res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    const other = await whoami(app, await as.token(RESOURCE, "mcp"));
    expect(other.status).toBe(401);
  });

  it("answers 503 when the introspection endpoint cannot be reached", async () => {
    const { app } = opaqueApp();
    const token = await as.token(as.opaqueResource, "mcp");
    as.setDown(true);
    expect((await whoami(app, token)).status).toBe(503);
  });
});
