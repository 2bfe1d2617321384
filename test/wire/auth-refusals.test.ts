// Why a token was refused, for the operator, against a real authorization server: every refusal reaches the
// plugins' authRefused with a reason and a finer detail (never the token), the OpenTelemetry plugin counts it
// and puts an event on the span around the request, onError hears nothing, and the client's answer is byte
// for byte what a server without any of this answers.
import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { introspectionVerifier, jwtVerifier } from "h3-mcp/auth";
import { defineMcpPlugin, type McpAuthRefusal } from "../../src/index.ts";
import { mcpOpenTelemetry } from "../../src/otel/index.ts";
import { authApp, bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "../helpers/authorization-server.ts";
import { testSdk } from "../helpers/otel-sdk.ts";
import { modernRequest } from "../helpers/wire.ts";

let as: AuthorizationServer;
let otherAs: AuthorizationServer;
const sdk = testSdk();
const refusals: McpAuthRefusal[] = [];
const errors: unknown[] = [];
const listener = defineMcpPlugin({ name: "refusal-log", authRefused: (refusal) => void refusals.push(refusal) });
const jwt = () => jwtVerifier({ issuers: [{ issuer: as.issuer, typ: "at+jwt" }], clockToleranceSeconds: 0, timeoutMs: 1000 });
let watched: ReturnType<typeof authApp>;
let plain: ReturnType<typeof authApp>;
let good: string;

beforeAll(async () => {
  [as, otherAs] = await Promise.all([startAuthorizationServer(), startAuthorizationServer()]);
  const otel = mcpOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
  watched = authApp({ issuer: as.issuer, auth: { verifier: jwt() }, config: { plugins: [otel, listener], onError: (e) => void errors.push(e) } });
  plain = authApp({ issuer: as.issuer, auth: { verifier: jwt() } });
  good = await as.token(RESOURCE, "mcp");
});
afterAll(() => Promise.all([as.close(), otherAs.close()]));
beforeEach(() => {
  refusals.length = 0;
  errors.length = 0;
  sdk.reset();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const parts = (token: string) => token.split(".");
const headerOf = (token: string) => JSON.parse(Buffer.from(parts(token)[0]!, "base64url").toString());

/** The answer to a tools/call with `token`, as text: status, headers and body. */
async function answer(app: ReturnType<typeof authApp>["app"], token: string): Promise<string> {
  const res = await app.fetch(modernRequest("tools/call", { name: "whoami" }, { headers: bearer(token) }));
  return JSON.stringify({ status: res.status, headers: [...res.headers], body: await res.text() });
}

/** Sends `token` to both servers: the same answer (a 401), and the one refusal the watched server's plugin heard. */
async function refusalOf(token: string): Promise<McpAuthRefusal> {
  const seen = await answer(watched.app, token);
  expect(seen).toBe(await answer(plain.app, token));
  expect(JSON.parse(seen).status).toBe(401);
  expect(refusals).toHaveLength(1);
  const refusal = refusals.pop()!;
  // Fixed words and configuration only: no part of the token.
  for (const part of parts(token).filter((p) => p.length > 8)) expect(JSON.stringify(refusal)).not.toContain(part.slice(0, 40));
  return refusal;
}

describe("authRefused tells the operator why, the client learns nothing more", () => {
  it("a valid token is not a refusal", async () => {
    expect(JSON.parse(await answer(watched.app, good)).status).toBe(200);
    expect(refusals).toEqual([]);
  });

  it("malformed: not a JWT, not a bearer token's characters, too long", async () => {
    expect(await refusalOf("abc")).toEqual({ reason: "malformed", detail: "not_a_jwt", remembered: false });
    expect(await refusalOf("a{b}c")).toEqual({ reason: "malformed", detail: "not_b64token", remembered: false });
    expect(await refusalOf("a".repeat(8193))).toEqual({ reason: "malformed", detail: "too_long", remembered: false });
  });

  it("bad signature, unknown key, alg none, another issuer: each its own detail", async () => {
    const [h, p, s] = parts(good);
    const issuer = as.issuer;
    expect(await refusalOf(`${h}.${p}.${s!.slice(0, -12)}AAAAAAAAAAAA`)).toEqual({ reason: "invalid", detail: "bad_signature", issuer, remembered: false });
    expect(await refusalOf(`${b64({ ...headerOf(good), kid: "never-published" })}.${p}.${s}`)).toEqual({
      reason: "invalid",
      detail: "unknown_key",
      issuer,
      remembered: false,
    });
    expect(await refusalOf(`${b64({ ...headerOf(good), alg: "none" })}.${p}.`)).toEqual({ reason: "invalid", detail: "algorithm", issuer, remembered: false });
    // The issuer a token names is the client's word: only a configured one is ever named.
    expect(await refusalOf(await otherAs.token(RESOURCE, "mcp"))).toEqual({ reason: "invalid", detail: "unknown_issuer", remembered: false });
  });

  it("another audience, and not valid yet, both from the right issuer", async () => {
    const issuer = as.issuer;
    expect(await refusalOf(await as.token("http://localhost/other-mcp", "mcp"))).toEqual({ reason: "audience", detail: "audience", issuer, remembered: false });
    expect(await refusalOf(await as.token(RESOURCE, "mcp", as.futureClient))).toEqual({ reason: "not_yet_valid", detail: "not_yet_valid", issuer, remembered: false });
  });

  it("expired", async () => {
    const shortLived = await as.token(RESOURCE, "mcp", as.shortLivedClient);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await refusalOf(shortLived)).toEqual({ reason: "expired", detail: "expired", issuer: as.issuer, remembered: false });
  });

  it("the same token again is answered from memory, and says so", async () => {
    const elsewhere = await as.token("http://localhost/mcp-elsewhere", "mcp");
    expect((await refusalOf(elsewhere)).remembered).toBe(false);
    expect(await refusalOf(elsewhere)).toEqual({ reason: "audience", detail: "audience", issuer: as.issuer, remembered: true });
  });

  it("never reaches onError: a refused token is the client's doing", async () => {
    await refusalOf("abc");
    await refusalOf(await otherAs.token(RESOURCE, "mcp"));
    expect(errors).toEqual([]);
  });

  it("an introspected token the authorization server calls inactive (revoked)", async () => {
    const opaque = (plugins: [] | [typeof listener]) =>
      authApp({
        issuer: as.issuer,
        auth: {
          resource: as.opaqueResource,
          verifier: introspectionVerifier({ issuer: as.issuer, clientId: as.introspector.id, clientSecret: as.introspector.secret, cacheTtlMs: 0 }),
          cache: false,
        },
        config: { plugins },
      });
    const [withHook, without] = [opaque([listener]), opaque([])];
    const token = await as.token(as.opaqueResource, "mcp");
    await as.revoke(token);
    const seen = await answer(withHook.app, token);
    expect(seen).toBe(await answer(without.app, token));
    expect(refusals).toEqual([{ reason: "invalid", detail: "inactive", issuer: as.issuer, remembered: false }]);
  });
});

describe("the OpenTelemetry plugin", () => {
  it("counts refusals by reason and detail, and puts an event on the span around the request", async () => {
    const own = testSdk();
    const otel = mcpOpenTelemetry({ tracerProvider: own.tracerProvider, meterProvider: own.meterProvider });
    const { app } = authApp({ issuer: as.issuer, auth: { verifier: jwt() }, config: { plugins: [otel] } });
    const tracer = own.tracerProvider.getTracer("http");
    // What an HTTP instrumentation does: the request runs inside its server span.
    await tracer.startActiveSpan("POST /mcp", async (span) => {
      await answer(app, "abc");
      span.end();
    });
    await answer(app, "abc");
    const http = own.spans().find((s) => s.name === "POST /mcp")!;
    expect(http.events.map((e) => [e.name, e.attributes])).toEqual([
      ["mcp.auth.refused", { "mcp.auth.refusal.reason": "malformed", "mcp.auth.refusal.detail": "not_a_jwt" }],
    ]);
    // Refused before any MCP request exists: no MCP span.
    expect(own.spans().map((s) => s.name)).toEqual(["POST /mcp"]);
    const counter = (await own.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === "mcp.server.auth.refusals")!;
    expect(counter.dataPoints.map((d) => [d.attributes, d.value])).toEqual([
      [{ "mcp.auth.refusal.reason": "malformed", "mcp.auth.refusal.detail": "not_a_jwt" }, 2],
    ]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
