// JWT access tokens (RFC 9068), verified with jose against the issuer's published keys. Everything that
// can be checked without a signature is checked first, so a garbage token costs a parse, never a key
// fetch or a signature check: the shape, the algorithm, the key id, the issuer, the expiry.
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { FetchOptions } from "./discovery.ts";
import { createIssuerKeys } from "./issuer-keys.ts";
import { AuthorizationServerUnavailableError, InvalidTokenError } from "./refusals.ts";
import { scopesOfClaims } from "./scopes.ts";
import { AUDIENCE_NAMES, audiencesOf, type AudiencePolicy, type TokenVerifier, type VerifiedToken } from "./verifier.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

/** Asymmetric JWS algorithms: never `none`, never HMAC (whose key a verifier holding public keys would be handed). */
export const ASYMMETRIC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"] as const;

/** One issuer whose JWT access tokens are accepted. */
export interface JwtIssuer {
  /** The issuer identifier, exactly as the tokens' `iss` and its metadata's `issuer` say it. */
  issuer: string;
  /** Where its keys are (JWKS). Default: its metadata's `jwks_uri` (RFC 8414, then OpenID Connect Discovery). */
  jwksUri?: string;
  /** Algorithms accepted, a subset of the asymmetric ones. Default: all of `ASYMMETRIC_ALGORITHMS`. */
  algorithms?: readonly string[];
  /**
   * The `typ` header its access tokens must carry, e.g. `"at+jwt"` for an RFC 9068 issuer (which keeps its ID
   * tokens from being used as access tokens). Default: not checked, for issuers that send `JWT` or nothing.
   */
  typ?: string;
  /** For issuers that cannot put this server's URI in `aud`: see `AudiencePolicy`. */
  audience?: AudiencePolicy;
}

export interface JwtVerifierOptions extends FetchOptions {
  /** The issuers accepted, each with its own keys; a token names its issuer in `iss`. */
  issuers: readonly JwtIssuer[];
  /** Clock skew allowed on `exp` and `nbf`, in seconds. Default 10. */
  clockToleranceSeconds?: number;
  /** Least time between two fetches of an issuer's keys, in milliseconds. Default 30 000. */
  keysCooldownMs?: number;
  /** Age after which keys are fetched again in the background, in milliseconds. Default 600 000. */
  keysMaxAgeMs?: number;
}

const KID = /^[\x21-\x7E]{1,256}$/;

const OPTION_NAMES: OptionNames<JwtVerifierOptions> = { issuers: true, clockToleranceSeconds: true, keysCooldownMs: true, keysMaxAgeMs: true, fetch: true, timeoutMs: true };
const ISSUER_NAMES: OptionNames<JwtIssuer> = { issuer: true, jwksUri: true, algorithms: true, typ: true, audience: true };

/**
 * Verifies JWT access tokens (RFC 9068) of one or more issuers with their published keys.
 *
 * @example
 * mcpAuth({ resource: "https://mcp.example.com/mcp", verifier: jwtVerifier({ issuers: [{ issuer: "https://auth.example.com" }] }) });
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  checkOptions("jwtVerifier()", options, OPTION_NAMES, { elsewhere: { issuer: "give issuers: [{ issuer }]" } });
  for (const [i, config] of (Array.isArray(options.issuers) ? options.issuers : []).entries()) {
    checkOptions("jwtVerifier()", config, ISSUER_NAMES, { path: `issuers[${i}]` });
    checkOptions("jwtVerifier()", config?.audience, AUDIENCE_NAMES, { path: `issuers[${i}].audience` });
  }
  if (!options.issuers?.length) throw new TypeError("jwtVerifier: give at least one issuer");
  const tolerance = options.clockToleranceSeconds ?? 10;
  const byIssuer = new Map<string, { config: JwtIssuer; algorithms: string[]; keys: JWTVerifyGetKey }>();
  for (const config of options.issuers) {
    if (typeof config.issuer !== "string" || !URL.canParse(config.issuer)) throw new TypeError(`jwtVerifier: issuer must be a URL, not ${String(config.issuer)}`);
    if (byIssuer.has(config.issuer)) throw new TypeError(`jwtVerifier: issuer ${config.issuer} is given twice`);
    const algorithms = [...(config.algorithms ?? ASYMMETRIC_ALGORITHMS)];
    for (const alg of algorithms) {
      if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) throw new TypeError(`jwtVerifier: ${alg} is not an asymmetric JWS algorithm`);
    }
    const keys = createIssuerKeys({
      issuer: config.issuer,
      jwksUri: config.jwksUri,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      cooldownMs: options.keysCooldownMs,
      maxAgeMs: options.keysMaxAgeMs,
    });
    byIssuer.set(config.issuer, { config, algorithms, keys });
  }

  return {
    issuers: [...byIssuer.keys()],
    async verify(token) {
      // Before any signature work: a well-formed header with an accepted algorithm, a known issuer, and times that hold.
      let header: ReturnType<typeof decodeProtectedHeader>;
      let unverified: JWTPayload;
      try {
        header = decodeProtectedHeader(token);
        unverified = decodeJwt(token);
      } catch {
        throw new InvalidTokenError("malformed", { detail: "not_a_jwt" });
      }
      const issuer = typeof unverified.iss === "string" ? byIssuer.get(unverified.iss) : undefined;
      if (!issuer) throw new InvalidTokenError("invalid", { detail: "unknown_issuer" });
      // Only an issuer of the configuration is named to the operator: `iss` itself is whatever the client sent.
      const named = { issuer: issuer.config.issuer };
      if (typeof header.alg !== "string" || !issuer.algorithms.includes(header.alg)) throw new InvalidTokenError("invalid", { detail: "algorithm", ...named });
      if (header.kid !== undefined && (typeof header.kid !== "string" || !KID.test(header.kid))) throw new InvalidTokenError("invalid", { detail: "unknown_key", ...named });
      const now = Date.now() / 1000;
      if (typeof unverified.exp !== "number") throw new InvalidTokenError("invalid", { detail: "claims", ...named });
      if (unverified.exp + tolerance <= now) throw new InvalidTokenError("expired", named);
      if (typeof unverified.nbf === "number" && unverified.nbf - tolerance > now) throw new InvalidTokenError("not_yet_valid", named);

      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, issuer.keys, {
          issuer: issuer.config.issuer,
          algorithms: issuer.algorithms,
          clockTolerance: tolerance,
          typ: issuer.config.typ,
          requiredClaims: ["exp"],
        }));
      } catch (error) {
        throw refusalOf(error, named.issuer);
      }
      return verifiedOf(payload, issuer.config);
    },
  };
}

/** jose's verdict as a refusal, with the detail the operator sees. */
function refusalOf(error: unknown, issuer: string): Error {
  if (error instanceof AuthorizationServerUnavailableError) return error;
  if (error instanceof InvalidTokenError) {
    // The issuer's keys refuse without knowing whose they are.
    return error.issuer === undefined ? new InvalidTokenError(error.reason, { final: error.final, retryAt: error.retryAt, detail: error.detail, issuer }) : error;
  }
  if (error instanceof errors.JWTExpired) return new InvalidTokenError("expired", { issuer });
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === "nbf") return new InvalidTokenError("not_yet_valid", { issuer });
  return new InvalidTokenError("invalid", { detail: joseDetail(error), issuer });
}

function joseDetail(error: unknown): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return "bad_signature";
  if (error instanceof errors.JOSEAlgNotAllowed) return "algorithm";
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return "unknown_key";
  if (error instanceof errors.JWTClaimValidationFailed) return "claims";
  return "invalid";
}

function verifiedOf(payload: JWTPayload, config: JwtIssuer): VerifiedToken {
  const clientId = typeof payload.client_id === "string" ? payload.client_id : typeof payload.azp === "string" ? payload.azp : undefined;
  return {
    issuer: config.issuer,
    subject: typeof payload.sub === "string" ? payload.sub : undefined,
    clientId,
    scopes: scopesOfClaims(payload),
    expiresAt: payload.exp! * 1000,
    audience: audiencesOf(payload.aud),
    claims: payload as Record<string, unknown>,
    audiencePolicy: config.audience,
  };
}
