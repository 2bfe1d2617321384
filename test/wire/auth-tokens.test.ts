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
import { initializeRequest } from "../helpers/legacy.ts";
import { call, modernRequest } from "../helpers/wire.ts";
import { mountOf } from "../../src/transport/handler.ts";

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

describe("every bad input of the list, answered in full in both eras", () => {
  const METADATA_URL = "http://localhost/.well-known/oauth-protected-resource/mcp";
  const NO_TOKEN = "this server needs an OAuth bearer access token";
  const ONE_TOKEN = "The Authorization header must hold one bearer token";
  type Expected = { status: 401; description?: string } | { status: 400 };
  interface BadInput {
    name: string;
    /** The request's Authorization headers (several, or none), its URL, and what its body adds. */
    authorization: string[];
    url?: string;
    body?: Record<string, unknown>;
    expected: Expected;
  }
  let inputs: BadInput[];
  beforeAll(async () => {
    const [, p, s] = parts(good);
    const hs256 = `${b64({ ...headerOf(good), alg: "HS256" })}.${p}`;
    const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    const pem = await exportSPKI((await importJWK(jwks.keys[0]!, "ES256")) as CryptoKey);
    const [shortLived, future, foreign, elsewhere] = await Promise.all([
      as.token(RESOURCE, "mcp", as.shortLivedClient),
      as.token(RESOURCE, "mcp", as.futureClient),
      otherAs.token(RESOURCE, "mcp"),
      as.token("http://localhost/other-mcp", "mcp"),
    ]);
    // The short-lived token's lifetime runs out while the others are built.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const refused = (description: string): Expected => ({ status: 401, description });
    const token = (name: string, value: string, description: string): BadInput => ({ name, authorization: [`Bearer ${value}`], expected: refused(description) });
    inputs = [
      token("malformed", "not-a-jwt", "The access token is malformed"),
      token("truncated", good.slice(0, good.lastIndexOf(".")), "The access token is malformed"),
      token("alg none", `${b64({ ...headerOf(good), alg: "none" })}.${p}.`, "The access token is invalid"),
      token("HS256 signed with the public key", `${hs256}.${createHmac("sha256", pem).update(hs256).digest("base64url")}`, "The access token is invalid"),
      token("expired", shortLived, "The access token expired"),
      token("nbf in the future", future, "The access token is not valid yet"),
      token("another issuer", foreign, "The access token is invalid"),
      token("another audience", elsewhere, "The access token was not issued for this resource"),
      token("unknown kid", `${b64({ ...headerOf(good), kid: "never-published" })}.${p}.${s}`, "The access token is invalid"),
      token("huge (8 KiB+)", `${good}${"A".repeat(8 * 1024)}`, "The access token is malformed"),
      { name: "several Authorization headers", authorization: [`Bearer ${good}`, `Bearer ${good}`], expected: { status: 400 } },
      { name: "several, only one of them good", authorization: [`Bearer ${good}`, "Bearer not-a-jwt"], expected: { status: 400 } },
      { name: "Bearer with a tab", authorization: [`Bearer\t${good}`], expected: { status: 400 } },
      { name: "Bearer and spaces, no token", authorization: ["Bearer   "], expected: { status: 400 } },
      { name: "odd case, spacing, a refused token", authorization: [`bEaReR   ${elsewhere}`], expected: refused("The access token was not issued for this resource") },
      { name: "another scheme", authorization: [`Basic ${Buffer.from("a:b").toString("base64")}`], expected: { status: 401 } },
      { name: "a token in the query string", authorization: [], url: `http://localhost/mcp?access_token=${good}`, expected: { status: 401 } },
      { name: "a token only in the body", authorization: [], body: { access_token: good }, expected: { status: 401 } },
    ];
  });

  function challengeOf(expected: Expected): Record<string, string> {
    const base = { resource_metadata: METADATA_URL, scope: "mcp" };
    if (expected.status === 400) return { ...base, error: "invalid_request", error_description: ONE_TOKEN };
    return expected.description ? { ...base, error: "invalid_token", error_description: expected.description } : base;
  }
  function messageOf(expected: Expected): string {
    if (expected.status === 400) return "Bad request: the Authorization header must be one bearer token";
    return `Unauthorized: ${expected.description ?? NO_TOKEN}`;
  }
  function withInput(request: Request, input: BadInput): Request {
    const headers = new Headers(request.headers);
    for (const value of input.authorization) headers.append("authorization", value);
    return new Request(input.url ?? request.url, { method: "POST", headers, body: request.body, duplex: "half" } as RequestInit);
  }
  async function expectAnswered(res: Response, input: BadInput) {
    expect(res.status, input.name).toBe(input.expected.status);
    const header = res.headers.get("www-authenticate")!;
    expect(header, input.name).toMatch(/^Bearer /);
    const params = Object.fromEntries([...header.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    expect(params, input.name).toEqual(challengeOf(input.expected));
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = await res.json();
    expectError(body, -32600);
    expect(body, input.name).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: messageOf(input.expected) } });
  }

  it("2026-07-28: a tools/call with each is answered with its status, challenge and JSON-RPC error, and runs nothing", async () => {
    const before = server.runs.counter;
    for (const input of inputs) {
      const request = modernRequest("tools/call", { name: "counter", ...input.body }, input.body ? { meta: input.body } : {});
      await expectAnswered(await server.app.fetch(withInput(request, input)), input);
    }
    expect(server.runs.counter).toBe(before);
  });

  it("2025-11-25: an initialize with each is answered the same, and opens no session", async () => {
    const sessions = mountOf(server.handler).sessions.size;
    for (const input of inputs) {
      const request = initializeRequest(input.body);
      const res = await server.app.fetch(withInput(request, input));
      expect(res.headers.get("mcp-session-id"), input.name).toBeNull();
      await expectAnswered(res, input);
    }
    expect(mountOf(server.handler).sessions.size).toBe(sessions);
  });
});
