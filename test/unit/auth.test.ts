// The pure parts of "h3-mcp/auth": the Authorization header, canonical resource URIs and their metadata
// URLs, scope hierarchies, the verified-token cache, discovery URLs, and the JWT verifier on tokens the
// test signs itself (served from a JWKS over real HTTP).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidTokenError, jwtVerifier } from "h3-mcp/auth";
import { bearerCredentials, MALFORMED, NO_CREDENTIALS } from "../../src/auth/bearer.ts";
import { metadataUrls } from "../../src/auth/discovery.ts";
import { canonicalResource, metadataUrl, namesResource, rootMetadataUrl } from "../../src/auth/resource-uri.ts";
import { createScopeExpander, holdsAll, scopesOfClaims } from "../../src/auth/scopes.ts";
import { TokenCache } from "../../src/auth/token-cache.ts";

describe("bearerCredentials", () => {
  it("reads the token after Bearer in any case and any number of spaces", () => {
    expect(bearerCredentials("Bearer abc")).toBe("abc");
    expect(bearerCredentials("bEaReR   abc")).toBe("abc");
  });
  it("tells no credentials from malformed ones", () => {
    expect(bearerCredentials(null)).toBe(NO_CREDENTIALS);
    expect(bearerCredentials("Basic abc")).toBe(NO_CREDENTIALS);
    expect(bearerCredentials("Bearerabc")).toBe(NO_CREDENTIALS);
    expect(bearerCredentials("Bearer")).toBe(MALFORMED);
    expect(bearerCredentials("Bearer\tabc")).toBe(MALFORMED);
  });
});

describe("canonical resource URIs", () => {
  it("lowercases scheme and host, drops a default port and a trailing slash", () => {
    expect(canonicalResource("HTTPS://MCP.Example.com:443/mcp/")).toBe("https://mcp.example.com/mcp");
    expect(canonicalResource("https://mcp.example.com/")).toBe("https://mcp.example.com");
    expect(canonicalResource("https://mcp.example.com/Mcp")).toBe("https://mcp.example.com/Mcp");
  });
  it("refuses what is not an absolute http(s) URI without a fragment", () => {
    for (const bad of ["mcp.example.com", "https://mcp.example.com#x", "ftp://x/y"]) expect(() => canonicalResource(bad)).toThrow(TypeError);
  });
  it("matches an audience written in another case or with a trailing slash, and nothing else", () => {
    const canonical = canonicalResource("https://mcp.example.com/mcp");
    expect(namesResource(canonical, "https://MCP.example.com/mcp/")).toBe(true);
    expect(namesResource(canonical, "https://mcp.example.com/mcp2")).toBe(false);
    expect(namesResource(canonical, "https://mcp.example.com")).toBe(false);
    expect(namesResource(canonical, "not a url")).toBe(false);
  });
  it("derives the path-aware and root metadata URLs (RFC 9728 section 3.1)", () => {
    expect(metadataUrl("https://h.example/public/mcp")).toBe("https://h.example/.well-known/oauth-protected-resource/public/mcp");
    expect(metadataUrl("https://h.example")).toBe("https://h.example/.well-known/oauth-protected-resource");
    expect(rootMetadataUrl("https://h.example/public/mcp")).toBe("https://h.example/.well-known/oauth-protected-resource");
  });
});

describe("authorization server metadata URLs", () => {
  it("tries RFC 8414 then OpenID Connect, path inserted then appended", () => {
    expect(metadataUrls("https://as.example/tenant1")).toEqual([
      "https://as.example/.well-known/oauth-authorization-server/tenant1",
      "https://as.example/.well-known/openid-configuration/tenant1",
      "https://as.example/tenant1/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://as.example")).toEqual(["https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"]);
  });
});

describe("scopes", () => {
  it("closes a hierarchy under implication, cycles included", () => {
    const expand = createScopeExpander({ admin: ["write"], write: ["read"], a: ["b"], b: ["a"] });
    expect([...expand(["admin"])].sort()).toEqual(["admin", "read", "write"]);
    expect(holdsAll(expand(["admin"]), ["read"])).toBe(true);
    expect(holdsAll(expand(["read"]), ["write"])).toBe(false);
    expect([...expand(["a"])].sort()).toEqual(["a", "b"]);
  });
  it("reads scope strings and scp lists", () => {
    expect(scopesOfClaims({ scope: "a  b" })).toEqual(["a", "b"]);
    expect(scopesOfClaims({ scp: ["a", 1, "b"] })).toEqual(["a", "b"]);
    expect(scopesOfClaims({})).toEqual([]);
  });
  it("refuses scope names a challenge could not carry", () => {
    expect(() => createScopeExpander({ 'bad"scope': [] })).toThrow(TypeError);
  });
});

describe("TokenCache", () => {
  it("never answers past an entry's deadline, and drops the oldest when full", () => {
    const cache = new TokenCache<number>(2);
    cache.set("a", 1, 100, 0);
    expect(cache.get("a", 99)).toBe(1);
    expect(cache.get("a", 100)).toBeUndefined();
    cache.set("b", 2, 100, 0);
    cache.set("c", 3, 100, 0);
    cache.set("d", 4, 100, 0);
    expect(cache.get("b", 1)).toBeUndefined();
    expect(cache.get("d", 1)).toBe(4);
    cache.set("e", 5, 0, 10);
    expect(cache.get("e", 1)).toBeUndefined();
  });
});

describe("jwtVerifier on tokens signed here", () => {
  const issuer = "https://issuer.test";
  let jwksUri: string;
  let privateKey: CryptoKey;
  let close: () => void;
  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
    const server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    close = () => server.close();
  });
  afterAll(() => close());

  const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT({ scope: "mcp", ...claims }).setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt", ...header }).sign(privateKey);
  const now = () => Math.floor(Date.now() / 1000);
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => "accepted",
      (e) => (e instanceof InvalidTokenError ? e.reason : String(e)),
    );

  it("accepts a good token and reports what it proves", async () => {
    const verifier = jwtVerifier({ issuers: [{ issuer, jwksUri, typ: "at+jwt" }] });
    const token = await sign({ iss: issuer, sub: "u1", aud: "https://r", exp: now() + 60, client_id: "c1" });
    expect(await verifier.verify(token)).toMatchObject({ issuer, subject: "u1", clientId: "c1", scopes: ["mcp"], audience: ["https://r"] });
  });

  it("allows the clock tolerance on exp and nbf, and no more", async () => {
    const verifier = jwtVerifier({ issuers: [{ issuer, jwksUri }], clockToleranceSeconds: 30 });
    expect(await refusal(Promise.resolve(verifier.verify(await sign({ iss: issuer, sub: "u", exp: now() - 10 }))))).toBe("accepted");
    expect(await refusal(Promise.resolve(verifier.verify(await sign({ iss: issuer, sub: "u", exp: now() - 60 }))))).toBe("expired");
    expect(await refusal(Promise.resolve(verifier.verify(await sign({ iss: issuer, sub: "u", exp: now() + 60, nbf: now() + 10 }))))).toBe("accepted");
    expect(await refusal(Promise.resolve(verifier.verify(await sign({ iss: issuer, sub: "u", exp: now() + 600, nbf: now() + 120 }))))).toBe("not_yet_valid");
  });

  it("refuses a token without exp, another typ where at+jwt is required, and an algorithm left off the list", async () => {
    const strict = jwtVerifier({ issuers: [{ issuer, jwksUri, typ: "at+jwt", algorithms: ["RS256"] }] });
    const lax = jwtVerifier({ issuers: [{ issuer, jwksUri, typ: "at+jwt" }] });
    expect(await refusal(Promise.resolve(lax.verify(await sign({ iss: issuer, sub: "u" }))))).toBe("invalid");
    expect(await refusal(Promise.resolve(lax.verify(await sign({ iss: issuer, sub: "u", exp: now() + 60 }, { typ: "JWT" }))))).toBe("invalid");
    expect(await refusal(Promise.resolve(strict.verify(await sign({ iss: issuer, sub: "u", exp: now() + 60 }))))).toBe("invalid");
  });

  it("refuses HMAC and unknown algorithms at setup", () => {
    expect(() => jwtVerifier({ issuers: [{ issuer, algorithms: ["HS256"] }] })).toThrow(TypeError);
    expect(() => jwtVerifier({ issuers: [{ issuer, algorithms: ["none"] }] })).toThrow(TypeError);
    expect(() => jwtVerifier({ issuers: [] })).toThrow(TypeError);
  });
});
