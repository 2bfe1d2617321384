// The bench's authorization server, inside the h3-mcp target process (BENCH_AUTH=1): it publishes its
// metadata and keys at the target's own origin, as an issuer would, and mints RFC 9068 JWT access tokens
// (ES256, `typ: at+jwt`) for the target's /mcp, so the verifier does the work it does against a real
// issuer (one key fetch, then a signature check per new token) without a third process sharing the CPU.
// Bad tokens come in the kinds a flood would bring.
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { H3 } from "h3";

export type BenchTokenKind = "good" | "bad-signature" | "bad-mixed";

export async function createBenchIssuer(issuer: string, resource: string) {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const kid = "bench-key";
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }] };
  const sign = ({ exp, ...claims }: Record<string, unknown> = {}) =>
    new SignJWT({ scope: "mcp", client_id: "bench-client", jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid })
      .setIssuer(issuer)
      .setSubject(`bench-user-${randomUUID().slice(0, 8)}`)
      .setAudience(resource)
      .setIssuedAt()
      .setExpirationTime((exp as number | undefined) ?? "1h")
      .sign(privateKey);

  /** A well-formed token whose signature does not verify: the costliest kind to refuse. */
  const badSignature = async () => {
    const token = await sign();
    const [h, p, s] = token.split(".");
    return `${h}.${p}.${s!.startsWith("A") ? "B" : "A"}${s!.slice(1)}`;
  };
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  /** What a flood of garbage holds: not a JWT, alg none, an unknown key, expired, a bad signature. */
  const badMixed = async (i: number) => {
    const token = await sign();
    const [h, p, s] = token.split(".") as [string, string, string];
    switch (i % 5) {
      case 0:
        return `garbage-${randomUUID()}`;
      case 1:
        return `${b64({ alg: "none", typ: "at+jwt" })}.${p}.`;
      case 2:
        return `${b64({ alg: "ES256", typ: "at+jwt", kid: `unknown-${i}` })}.${p}.${s}`;
      case 3:
        return sign({ exp: Math.floor(Date.now() / 1000) - 3600 });
      default:
        return `${h}.${p}.${s.startsWith("A") ? "B" : "A"}${s.slice(1)}`;
    }
  };

  async function tokens(kind: BenchTokenKind, n: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(await (kind === "good" ? sign() : kind === "bad-signature" ? badSignature() : badMixed(i)));
    return out;
  }

  return {
    /** Serves the issuer's metadata and keys, and POST /bench/tokens {kind, n}. */
    serve(app: H3) {
      app.get("/.well-known/oauth-authorization-server", () => ({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }));
      app.get("/jwks", () => jwks);
      app.post("/bench/tokens", async (event) => {
        const { kind, n } = (await event.req.json()) as { kind: BenchTokenKind; n: number };
        return { tokens: await tokens(kind, n) };
      });
    },
  };
}
