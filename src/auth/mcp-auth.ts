// `mcpAuth()`: one object that protects an MCP route as an OAuth 2.1 resource server (the handler's
// `auth`) and serves the protected resource metadata that tells clients where to get a token.
import type { EventHandler } from "h3";
import type { McpAuthGuard, McpAuthInfo, McpAuthRefusal } from "../features/authorization.ts";
import { McpJsonRpcError } from "../protocol/errors.ts";
import { bearerCredentials, isB64Token, MALFORMED, NO_CREDENTIALS } from "./bearer.ts";
import { createChallenges } from "./challenge.ts";
import { createMetadataHandler, type ResourceMetadataFields } from "./metadata.ts";
import { AuthorizationServerUnavailableError, InvalidTokenError, type RefusalReason } from "./refusals.ts";
import { canonicalResource, metadataUrl, namesResource, rootMetadataUrl } from "./resource-uri.ts";
import { assertScopes, createScopeExpander, holdsAll, type ScopeHierarchy } from "./scopes.ts";
import { TokenCache } from "./token-cache.ts";
import type { TokenVerifier, VerifiedToken, VerifyToken } from "./verifier.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

export interface McpAuthOptions {
  /**
   * This server's canonical URI, as clients reach it (e.g. `https://mcp.example.com/mcp`): tokens must be
   * issued for it (RFC 8707), and the metadata is served for it. Configuration, not the request's URL,
   * which behind a proxy is not the public one.
   */
  resource: string;
  /** Checks tokens: `jwtVerifier(...)`, `introspectionVerifier(...)`, or a function of the token. */
  verifier: TokenVerifier | VerifyToken;
  /** Scopes every request on the route needs. Default none (any valid token for this resource). */
  scopes?: readonly string[];
  /**
   * `scopes_supported` in the metadata: the minimal set for basic use (never `offline_access`). Default
   * `scopes`.
   */
  scopesSupported?: readonly string[];
  /** Which scopes imply which others: `{ "files": ["files:read"] }` lets a `files` token do what `files:read` may. */
  scopeHierarchy?: ScopeHierarchy;
  /** `authorization_servers` in the metadata. Default: the verifier's issuers. */
  authorizationServers?: readonly string[];
  /** More fields for the metadata document (`resource_name`, `resource_documentation`, ...). */
  metadata?: ResourceMetadataFields;
  /** How long clients and proxies may keep the metadata, in seconds. Default 3600. */
  metadataMaxAgeSeconds?: number;
  /**
   * Verified tokens kept for reuse (per token, never past its expiry), and refused ones remembered for a
   * minute: `{ max }` entries each. Default `{ max: 10_000 }`; `false` verifies every request afresh.
   */
  cache?: { max?: number } | false;
  /** Longest token accepted, in characters; longer ones are refused unread. Default 8192. */
  maxTokenLength?: number;
  /** `Retry-After` of the 503 answered while the authorization server cannot be reached, in seconds. Default 5. */
  retryAfterSeconds?: number;
}

/** The handler's `auth`, and the metadata it announces. */
export interface McpAuth extends McpAuthGuard {
  /** The canonical resource URI. */
  readonly resource: string;
  /** The metadata document (RFC 9728). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The URL of the metadata named in every challenge (the path-aware well-known URL). */
  readonly metadataUrl: string;
  /** The paths the metadata is served at: the path-aware one, then the root one. */
  readonly metadataPaths: readonly string[];
  /** An h3 handler serving the metadata (GET, HEAD, OPTIONS), for routing it yourself. */
  readonly metadataHandler: EventHandler;
  /** Serves the metadata at `metadataPaths` on an h3 app. */
  serveMetadata<A extends { all(route: string, handler: EventHandler): unknown }>(app: A): A;
}

interface Admitted {
  auth: McpAuthInfo;
  granted: ReadonlySet<string>;
  /** Whether the token holds the route's scopes, decided once. */
  routeAllowed: boolean;
}

const REFUSED_FOR_MS = 60_000;

/** A refusal as remembered for a token: what the client is told, and why (for `authRefused`). */
type Refusal = Omit<McpAuthRefusal, "remembered">;

type Refused = ((refusal: McpAuthRefusal) => void) | undefined;

const OPTION_NAMES: OptionNames<McpAuthOptions> = {
  resource: true, verifier: true, scopes: true, scopesSupported: true, scopeHierarchy: true, authorizationServers: true, metadata: true,
  metadataMaxAgeSeconds: true, cache: true, maxTokenLength: true, retryAfterSeconds: true,
};
const CACHE_NAMES: OptionNames<Exclude<McpAuthOptions["cache"], false | undefined>> = { max: true };

/**
 * Protects an MCP route as an OAuth 2.1 resource server, as the MCP authorization spec says.
 *
 * @example
 * const auth = mcpAuth({
 *   resource: "https://mcp.example.com/mcp",
 *   verifier: jwtVerifier({ issuers: [{ issuer: "https://auth.example.com" }] }),
 *   scopes: ["mcp"],
 * });
 * const app = auth.serveMetadata(new H3()).all("/mcp", defineMcpHandler(options, { auth }));
 */
export function mcpAuth(options: McpAuthOptions): McpAuth {
  checkOptions("mcpAuth()", options, OPTION_NAMES, { elsewhere: { issuers: "issuers are the verifier's: verifier: jwtVerifier({ issuers })" } });
  if (options?.cache !== false) checkOptions("mcpAuth()", options?.cache, CACHE_NAMES, { path: "cache" });
  const resource = canonicalResource(options.resource);
  const verifier: TokenVerifier = typeof options.verifier === "function" ? customVerifier(options.verifier) : options.verifier;
  if (!verifier || typeof verifier.verify !== "function") throw new TypeError("mcpAuth: verifier must be jwtVerifier(), introspectionVerifier() or a function");
  const routeScopes = [...(options.scopes ?? [])];
  assertScopes(routeScopes, "mcpAuth: scopes");
  const scopesSupported = [...(options.scopesSupported ?? routeScopes)];
  assertScopes(scopesSupported, "mcpAuth: scopesSupported");
  if (scopesSupported.includes("offline_access")) {
    throw new TypeError("mcpAuth: scopesSupported must not list offline_access (refresh tokens are not something this resource needs)");
  }
  const authorizationServers = [...(options.authorizationServers ?? verifier.issuers)];
  if (!authorizationServers.length) throw new TypeError("mcpAuth: name at least one authorization server (authorizationServers)");
  const expand = createScopeExpander(options.scopeHierarchy);
  const maxTokenLength = options.maxTokenLength ?? 8192;
  const max = options.cache === false ? 0 : (options.cache?.max ?? 10_000);
  const admitted = new TokenCache<Admitted>(max);
  const refused = new TokenCache<Refusal>(max);
  const grantedOf = new WeakMap<McpAuthInfo, ReadonlySet<string>>();

  const url = metadataUrl(resource);
  const document: Record<string, unknown> = {
    ...options.metadata,
    resource,
    authorization_servers: authorizationServers,
    scopes_supported: scopesSupported,
    bearer_methods_supported: ["header"],
  };
  const challenges = createChallenges(url, routeScopes, options.retryAfterSeconds ?? 5);
  const paths = [...new Set([new URL(url).pathname, new URL(rootMetadataUrl(resource)).pathname])];
  const metadataHandler = createMetadataHandler(document, options.metadataMaxAgeSeconds ?? 3600);

  const admit = (entry: Admitted): McpAuthInfo => {
    if (!entry.routeAllowed) throw challenges.insufficientScope(routeScopes);
    return entry.auth;
  };

  /** The 401 for a refused token, after telling the operator's hook why. */
  const refuse = (refusal: Refusal, remembered: boolean, tell: Refused) => {
    tell?.({ ...refusal, remembered });
    return challenges.invalidToken(refusal.reason);
  };

  const verify = async (token: string, now: number, tell: Refused): Promise<McpAuthInfo> => {
    let verified: VerifiedToken;
    try {
      verified = await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        const refusal: Refusal = { reason: error.reason, detail: error.detail, ...(error.issuer !== undefined && { issuer: error.issuer }) };
        if (error.final) refused.set(token, refusal, now + REFUSED_FOR_MS, now);
        else if (error.retryAt !== undefined) refused.set(token, refusal, Math.min(error.retryAt, now + REFUSED_FOR_MS), now);
        throw refuse(refusal, false, tell);
      }
      if (McpJsonRpcError.isError(error)) throw error;
      const unavailable = challenges.unavailable();
      // The client learns only that it may retry; the handler's onError learns why.
      Object.defineProperty(unavailable, "~cause", {
        value: error instanceof AuthorizationServerUnavailableError ? error : new AuthorizationServerUnavailableError("The verifier failed", { cause: error }),
      });
      throw unavailable;
    }
    const reason = refusalOf(verified, resource);
    if (reason) {
      const refusal: Refusal = { reason, detail: reason === "audience" ? "audience" : "no_subject", issuer: verified.issuer };
      refused.set(token, refusal, now + REFUSED_FOR_MS, now);
      throw refuse(refusal, false, tell);
    }
    const auth = identityOf(verified);
    const granted = expand(auth.scopes);
    grantedOf.set(auth, granted);
    const entry: Admitted = { auth, granted, routeAllowed: holdsAll(granted, routeScopes) };
    admitted.set(token, entry, Math.min(verified.expiresAt ?? Infinity, verified.reuseUntil ?? Infinity), Date.now());
    return admit(entry);
  };

  return {
    resource,
    metadata: document,
    metadataUrl: url,
    metadataPaths: paths,
    metadataHandler,
    serveMetadata(app) {
      for (const path of paths) app.all(path, metadataHandler);
      return app;
    },
    authenticate(request, tell) {
      const token = bearerCredentials(request.headers.get("authorization"));
      if (token === NO_CREDENTIALS) throw challenges.unauthenticated();
      if (token === MALFORMED) throw challenges.invalidRequest();
      const now = Date.now();
      const hit = admitted.get(token, now);
      if (hit) return admit(hit);
      if (token.length > maxTokenLength) throw refuse(TOO_LONG, false, tell);
      if (!isB64Token(token)) {
        // A space or comma is where two headers were joined ("Bearer a, Bearer b"): the request is wrong, not a token.
        throw /[ ,]/.test(token) ? challenges.invalidRequest() : refuse(NOT_B64TOKEN, false, tell);
      }
      const known = refused.get(token, now);
      if (known) throw refuse(known, true, tell);
      return verify(token, now, tell);
    },
    requireScopes(auth, scopes) {
      const granted = grantedOf.get(auth);
      if (granted && holdsAll(granted, scopes) && holdsAll(granted, routeScopes)) return;
      throw challenges.insufficientScope([...new Set([...routeScopes, ...scopes])]);
    },
  };
}

// --- Internal ---

const TOO_LONG: Refusal = { reason: "malformed", detail: "too_long" };
const NOT_B64TOKEN: Refusal = { reason: "malformed", detail: "not_b64token" };

/** Why a verified token is still refused here: it names another resource, or nobody. */
function refusalOf(verified: VerifiedToken, resource: string): RefusalReason | undefined {
  const policy = verified.audiencePolicy;
  const audience = verified.audience;
  const named =
    audience.some((aud) => namesResource(resource, aud) || policy?.accept?.includes(aud)) ||
    (audience.length === 0 && policy?.allowMissing === true);
  if (!named) return "audience";
  if (verified.subject === undefined && verified.clientId === undefined) return "invalid";
  return undefined;
}

function identityOf(verified: VerifiedToken): McpAuthInfo {
  const auth: McpAuthInfo = {
    issuer: verified.issuer,
    subject: verified.subject ?? verified.clientId!,
    clientId: verified.clientId,
    scopes: Object.freeze([...verified.scopes]),
    expiresAt: verified.expiresAt,
    claims: Object.freeze({ ...verified.claims }),
  };
  // Shared by every request that brings the same token: no tool may change what the next one sees.
  return Object.freeze(auth);
}

function customVerifier(verify: VerifyToken): TokenVerifier {
  return {
    issuers: [],
    async verify(token) {
      const verified = await verify(token);
      if (!verified) throw new InvalidTokenError("invalid", { detail: "refused" });
      return verified;
    },
  };
}
