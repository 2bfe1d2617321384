// Every kind of bad token and bad Authorization header the issue lists, against a real authorization
// server: each answered with the right status, challenge and JSON-RPC error, never a crash, and the
// token itself never repeated to anyone.
import { createHmac } from "node:crypto";
import { exportSPKI, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jwtVerifier } from "h3-mcp/auth";
import { authApp, bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "../helpers/authorization-server.ts";
import { expectError } from "../helpers/schemas.ts";
import { call, modernRequest } from "../helpers/wire.ts";

let as: AuthorizationServer;
let otherAs: AuthorizationServer;
let server: ReturnType<typeof authApp>;
let good: string;
const errors: unknown[] = [];
beforeAll(async () => {
  [as, otherAs] = await Promise.all([startAuthorizationServer(), startAuthorizationServer()]);
  server = authApp({
    issuer: as.issuer,
    auth: { verifier: jwtVerifier({ issuers: [{ issuer: as.issuer, typ: "at+jwt" }], clockToleranceSeconds: 0, timeoutMs: 1000 }) },
    config: { onError: (error) => errors.push(error) },
  });
  good = await as.token(RESOURCE, "mcp");
});
afterAll(() => Promise.all([as.close(), otherAs.close()]));

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const parts = (token: string) => token.split(".");
const headerOf = (token: string) => JSON.parse(Buffer.from(parts(token)[0]!, "base64url").toString());

async function send(headers: Record<string, string>, url?: string) {
  const request = modernRequest("tools/call", { name: "whoami" }, { headers });
  const res = await server.app.fetch(url ? new Request(url, request) : request);
  const text = await res.text();
  const params = Object.fromEntries([...(res.headers.get("www-authenticate") ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  return { status: res.status, params, body: text ? JSON.parse(text) : undefined, text, headers: res.headers };
}

/** A refused token: 401, invalid_token with the given description, a -32600 body, and the token nowhere in the answer. */
async function expectRefused(token: string, description: string) {
  const answer = await send(bearer(token));
  expect(answer.status).toBe(401);
  expect(answer.params).toMatchObject({ error: "invalid_token", error_description: description, scope: "mcp" });
  expectError(answer.body, -32600);
  if (token.length > 8) expect(answer.text + answer.headers.get("www-authenticate")).not.toContain(token.slice(0, 40));
  return answer;
}

describe("tokens refused with 401 invalid_token", () => {
  it("a valid token passes (the baseline the others differ from)", async () => {
    const answer = await send(bearer(good));
    expect(answer.status).toBe(200);
    expect(answer.body.result.structuredContent).toEqual({ subject: as.client.id, clientId: as.client.id, scopes: ["mcp"] });
  });

  it("malformed and truncated", async () => {
    await expectRefused("abc", "The access token is malformed");
    await expectRefused("a.b.c", "The access token is malformed");
    await expectRefused(good.slice(0, good.lastIndexOf(".")), "The access token is malformed");
    await expectRefused(good.slice(0, -12), "The access token is invalid");
  });

  it("alg none, and HS256 signed with the issuer's public key", async () => {
    const [h, p] = parts(good);
    const none = `${b64({ ...headerOf(good), alg: "none" })}.${p}.`;
    await expectRefused(none, "The access token is invalid");
    const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    const pem = await exportSPKI((await importJWK(jwks.keys[0]!, "ES256")) as CryptoKey);
    for (const secret of [pem, JSON.stringify(jwks.keys[0])]) {
      const input = `${b64({ ...headerOf(good), alg: "HS256" })}.${p}`;
      const forged = `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
      await expectRefused(forged, "The access token is invalid");
    }
    expect(h).toBeDefined();
  });

  it("expired, and not valid yet (nbf ahead, as the authorization server issued it)", async () => {
    const shortLived = await as.token(RESOURCE, "mcp", as.shortLivedClient);
    expect((await send(bearer(shortLived))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await expectRefused(shortLived, "The access token expired");
    await expectRefused(await as.token(RESOURCE, "mcp", as.futureClient), "The access token is not valid yet");
  });

  it("from another issuer, and for another audience from the right issuer (no token passthrough)", async () => {
    await expectRefused(await otherAs.token(RESOURCE, "mcp"), "The access token is invalid");
    await expectRefused(await as.token("http://localhost/other-mcp", "mcp"), "The access token was not issued for this resource");
    await expectRefused(await as.token("http://localhost", "mcp"), "The access token was not issued for this resource");
  });

  it("signed with a key the issuer never published (unknown kid): one JWKS fetch at most, whatever the flood", async () => {
    const before = as.jwksRequests;
    const [, p, s] = parts(good);
    for (let i = 0; i < 30; i++) {
      await expectRefused(`${b64({ ...headerOf(good), kid: `made-up-${i}` })}.${p}.${s}`, "The access token is invalid");
    }
    expect(as.jwksRequests - before).toBeLessThanOrEqual(1);
  });

  it("huge (8 KiB and more) is refused unread", async () => {
    await expectRefused("a".repeat(8193), "The access token is malformed");
    await expectRefused(`${good}.${"A".repeat(9000)}`, "The access token is malformed");
  });

  it("an ID-token-like typ is refused where the issuer uses at+jwt", async () => {
    const [, p, s] = parts(good);
    await expectRefused(`${b64({ ...headerOf(good), typ: "JWT" })}.${p}.${s}`, "The access token is invalid");
  });
});

describe("the Authorization header", () => {
  it("reads Bearer in any case, with several spaces", async () => {
    for (const header of [`bearer ${good}`, `BEARER ${good}`, `Bearer    ${good}`]) {
      expect((await send({ authorization: header })).status).toBe(200);
    }
  });

  it("answers 400 invalid_request for several Authorization headers, a tab, or Bearer without a token", async () => {
    const twice = modernRequest("tools/call", { name: "whoami" });
    const headers = new Headers(twice.headers);
    headers.append("authorization", `Bearer ${good}`);
    headers.append("authorization", `Bearer ${good}`);
    const res = await server.app.fetch(new Request(twice, { headers }));
    expect(res.status).toBe(400);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_request"/);
    expectError(await res.json(), -32600);
    for (const header of [`Bearer\t${good}`, "Bearer", "Bearer    "]) {
      const answer = await send({ authorization: header });
      expect(answer.status).toBe(400);
      expect(answer.params.error).toBe("invalid_request");
    }
  });

  it("treats another scheme as no credentials: 401 without an error code", async () => {
    const answer = await send({ authorization: "Basic dXNlcjpwYXNz" });
    expect(answer.status).toBe(401);
    expect(answer.params.error).toBeUndefined();
  });

  it("never reads a token from the query string or the body", async () => {
    const query = await send({}, `http://localhost/mcp?access_token=${good}`);
    expect(query.status).toBe(401);
    expect(query.params.error).toBeUndefined();
    const inBody = await server.app.fetch(modernRequest("tools/call", { name: "whoami", access_token: good }, { meta: { access_token: good } }));
    expect(inBody.status).toBe(401);
    expect(inBody.headers.get("www-authenticate")).not.toMatch(/error=/);
  });
});

describe("the token stays with the guard", () => {
  it("reaches no tool, no error hook and no answer: the identity carries claims, never the token", async () => {
    const before = server.runs.seen.length;
    expect((await call(server.app, "tools/call", { name: "counter" }, { headers: bearer(good) })).status).toBe(200);
    const seen = server.runs.seen.slice(before);
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(seen)).not.toContain(parts(good)[2]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(errors.map(String).join("\n")).not.toContain(parts(good)[1]!);
  });
});
