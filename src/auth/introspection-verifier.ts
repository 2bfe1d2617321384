// Opaque access tokens, asked about at the authorization server's introspection endpoint (RFC 7662) with
// this server's own client credentials. An answer is reused for a bounded time, never past the token's
// expiry; several requests with the same new token share one question.
import { fetchBounded, fetchIssuerMetadata, readJson, type FetchOptions } from "./discovery.ts";
import { AuthorizationServerUnavailableError, InvalidTokenError } from "./refusals.ts";
import { scopesOfClaims } from "./scopes.ts";
import { AUDIENCE_NAMES, audiencesOf, type AudiencePolicy, type TokenVerifier, type VerifiedToken } from "./verifier.ts";
import { checkOneOf, checkOptions, type OptionNames } from "../utils/options.ts";

export interface IntrospectionVerifierOptions extends FetchOptions {
  /** The authorization server's issuer identifier: the identity's issuer, and where the endpoint is found. */
  issuer: string;
  /** The introspection endpoint. Default: the issuer metadata's `introspection_endpoint`. */
  endpoint?: string;
  /** This server's client id at the authorization server. */
  clientId: string;
  /** Its client secret. */
  clientSecret: string;
  /** How the credentials are sent (RFC 6749 section 2.3.1). Default `"client_secret_basic"`. */
  clientAuthMethod?: "client_secret_basic" | "client_secret_post";
  /**
   * How long an answer is reused, in milliseconds; never past the token's `exp`, and `0` asks on every
   * request. A revoked token is noticed within this time. Default 60 000.
   */
  cacheTtlMs?: number;
  /** Clock skew allowed on `exp` and `nbf`, in seconds. Default 10. */
  clockToleranceSeconds?: number;
  /** For issuers that cannot put this server's URI in `aud`: see `AudiencePolicy`. */
  audience?: AudiencePolicy;
}

const OPTION_NAMES: OptionNames<IntrospectionVerifierOptions> = {
  issuer: true, endpoint: true, clientId: true, clientSecret: true, clientAuthMethod: true, cacheTtlMs: true, clockToleranceSeconds: true,
  audience: true, fetch: true, timeoutMs: true,
};
const CLIENT_AUTH_METHODS: readonly NonNullable<IntrospectionVerifierOptions["clientAuthMethod"]>[] = ["client_secret_basic", "client_secret_post"];

/**
 * Verifies opaque tokens by asking the authorization server (RFC 7662 introspection).
 *
 * @example
 * introspectionVerifier({ issuer: "https://auth.example.com", clientId: "mcp-server", clientSecret: process.env.INTROSPECTION_SECRET! });
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  checkOptions("introspectionVerifier()", options, OPTION_NAMES);
  checkOptions("introspectionVerifier()", options.audience, AUDIENCE_NAMES, { path: "audience" });
  checkOneOf("introspectionVerifier()", "clientAuthMethod", options.clientAuthMethod, CLIENT_AUTH_METHODS);
  if (!options.clientId || !options.clientSecret) throw new TypeError("introspectionVerifier: clientId and clientSecret are required");
  const ttl = options.cacheTtlMs ?? 60_000;
  if (!(ttl >= 0)) throw new TypeError("introspectionVerifier: cacheTtlMs must be a number of milliseconds >= 0");
  const tolerance = options.clockToleranceSeconds ?? 10;
  const method = options.clientAuthMethod ?? "client_secret_basic";
  let endpoint = options.endpoint;
  const inFlight = new Map<string, Promise<VerifiedToken>>();

  const ask = async (token: string): Promise<VerifiedToken> => {
    endpoint ??= endpointOf(await fetchIssuerMetadata(options.issuer, options), options.issuer);
    const form = new URLSearchParams({ token, token_type_hint: "access_token" });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    if (method === "client_secret_basic") {
      headers.authorization = `Basic ${btoa(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`)}`;
    } else {
      form.set("client_id", options.clientId);
      form.set("client_secret", options.clientSecret);
    }
    let response: Response;
    try {
      response = await fetchBounded(endpoint, { method: "POST", headers, body: form.toString() }, options);
    } catch (error) {
      throw new AuthorizationServerUnavailableError(`${endpoint}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.status === 400) {
      // A token the server will not even look at (oidc-provider's answer for its own JWTs) is not one of its
      // active opaque tokens; any other 400 (our credentials refused, say) is the setup's fault.
      const answer = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
      if (answer?.error === "unsupported_token_type") throw new InvalidTokenError("invalid", { detail: "unsupported_token_type", issuer: options.issuer });
      throw new AuthorizationServerUnavailableError(`${endpoint} answered 400 ${JSON.stringify(answer?.error ?? null)}`);
    }
    return verifiedOf(await readJson(response, endpoint));
  };

  const verifiedOf = (answer: Record<string, unknown>): VerifiedToken => {
    const issuer = options.issuer;
    if (answer.active !== true) throw new InvalidTokenError("invalid", { detail: "inactive", issuer });
    if (answer.iss !== undefined && answer.iss !== issuer) throw new InvalidTokenError("invalid", { detail: "claims", issuer });
    if (answer.token_type !== undefined && typeof answer.token_type === "string" && /^refresh_token$/i.test(answer.token_type)) {
      throw new InvalidTokenError("invalid", { detail: "refresh_token", issuer });
    }
    const now = Date.now();
    const exp = typeof answer.exp === "number" ? answer.exp * 1000 : undefined;
    if (exp !== undefined && exp + tolerance * 1000 <= now) throw new InvalidTokenError("expired", { issuer });
    if (typeof answer.nbf === "number" && answer.nbf * 1000 - tolerance * 1000 > now) throw new InvalidTokenError("not_yet_valid", { issuer });
    const reuseUntil = Math.min(now + ttl, exp ?? Infinity);
    return {
      issuer: options.issuer,
      subject: typeof answer.sub === "string" ? answer.sub : undefined,
      clientId: typeof answer.client_id === "string" ? answer.client_id : undefined,
      scopes: scopesOfClaims(answer),
      expiresAt: exp,
      audience: [...audiencesOf(answer.aud), ...audiencesOf(answer.resource)],
      claims: answer,
      audiencePolicy: options.audience,
      reuseUntil,
    };
  };

  return {
    issuers: [options.issuer],
    verify(token) {
      let answer = inFlight.get(token);
      if (!answer) {
        answer = ask(token).finally(() => inFlight.delete(token));
        inFlight.set(token, answer);
      }
      return answer;
    },
  };
}

function endpointOf(metadata: Record<string, unknown>, issuer: string): string {
  const endpoint = metadata.introspection_endpoint;
  if (typeof endpoint !== "string") throw new AuthorizationServerUnavailableError(`The metadata of ${issuer} has no introspection_endpoint`);
  return endpoint;
}

/** `application/x-www-form-urlencoded` of a credential, as RFC 6749 section 2.3.1 asks before Basic encoding. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}
