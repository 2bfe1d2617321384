// The contract between the handler and an authorization guard (made by `mcpAuth()` from "h3-mcp/auth"):
// what the handler calls to authenticate a request and to check the scopes an operation needs, and the
// identity it then puts on the request. The core never imports the guard; it only calls this.
import type { H3Event } from "h3";

/** Who made a request, as the handler's authorization verified it from the bearer token. */
export interface McpAuthInfo {
  /** The authorization server that issued the token (`iss`). */
  readonly issuer: string;
  /** Whom the token speaks for (`sub`; the client id when the token names no subject). */
  readonly subject: string;
  /** The client the token was issued to (`client_id`, or `azp`), when the token says. */
  readonly clientId?: string;
  /** The scopes the token grants, as it lists them (those they imply are not added). */
  readonly scopes: readonly string[];
  /** When the token expires, in milliseconds since the epoch; undefined when it does not say. */
  readonly expiresAt?: number;
  /** The token's claims (a JWT's payload, or the introspection answer), never the token itself. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * What `defineMcpHandler` calls when it has `auth`. Both methods refuse by throwing the `McpJsonRpcError`
 * to answer with (401 or 403 with its `WWW-Authenticate` challenge, 503 when the authorization server
 * cannot be reached).
 */
export interface McpAuthGuard {
  /**
   * The identity of the request's bearer token, which also holds the scopes the whole route needs. A token it
   * refuses (401) is also told to `refused`, with why, when the handler's plugins listen (`authRefused`).
   */
  authenticate(request: Request, refused?: (refusal: McpAuthRefusal) => void): McpAuthInfo | Promise<McpAuthInfo>;
  /** Refuses with the 403 `insufficient_scope` challenge unless `auth` holds each of `scopes` (or a scope implying it). */
  requireScopes(auth: McpAuthInfo, scopes: readonly string[]): void;
}

/** Why a bearer token was refused, as the client is told it (`error_description`). */
export type McpTokenRefusalReason = "malformed" | "invalid" | "expired" | "not_yet_valid" | "audience";

/**
 * A refused bearer token, for the operator (`authRefused`): what the client was told and, finer, why. Built
 * from fixed words and the server's own configuration: never the token, nor anything else the client sent.
 */
export interface McpAuthRefusal {
  /** What the client was told (its `error_description`). */
  readonly reason: McpTokenRefusalReason;
  /**
   * Why, in a fixed word the client never sees: `expired`, `not_yet_valid`, `audience` (issued for another
   * resource), `unknown_issuer`, `unknown_key` (no published key has its `kid`), `bad_signature`,
   * `algorithm`, `claims` (`typ`, `iss` or a required claim), `no_subject`, `too_long`, `not_b64token`,
   * `not_a_jwt`, `inactive` (introspection said so), `refresh_token`, `unsupported_token_type`, `refused`
   * (an app's verifier returned nothing); or what an app's verifier put in `InvalidTokenError`'s `detail`.
   */
  readonly detail: string;
  /** The issuer, when the token names one the verifier is configured for. */
  readonly issuer?: string;
  /** True when the same token was refused moments ago and is answered again without asking the verifier. */
  readonly remembered: boolean;
}

declare module "h3" {
  interface H3EventContext {
    /** The identity `defineMcpHandler`'s `auth` verified for this request (read it with `getMcpAuth`). */
    mcpAuth?: McpAuthInfo;
  }
}

/**
 * The verified identity of the request being served, or undefined when the handler has no `auth`. It is
 * there from the start of the request: in options given as a function of the event, in plugins'
 * `enabled`, in tools, prompts, resources and `bind`.
 *
 * @example
 * const whoami = defineTool({ name: "whoami", handler: (event) => getMcpAuth(event)?.subject ?? "anonymous" });
 */
export function getMcpAuth(event: H3Event): McpAuthInfo | undefined {
  return event.context.mcpAuth;
}

/** Refuses unless the request's identity holds `scopes`; nothing to check without auth or scopes. */
export function requireOperationScopes(guard: McpAuthGuard | undefined, auth: McpAuthInfo | undefined, scopes: readonly string[] | undefined): void {
  if (guard && auth && scopes?.length) guard.requireScopes(auth, scopes);
}

/** Whether the request's identity holds `scopes` (always, without auth or scopes): `requireOperationScopes` as a yes or no. */
export function holdsOperationScopes(guard: McpAuthGuard | undefined, auth: McpAuthInfo | undefined, scopes: readonly string[] | undefined): boolean {
  try {
    requireOperationScopes(guard, auth, scopes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses, at mount, options whose tools, prompts or resources name `scopes` when the handler has no
 * `auth`: nothing would check them, and the app would believe them protected.
 */
export function assertScopesGuarded(options: {
  tools?: readonly { name: string; scopes?: readonly string[] }[];
  prompts?: readonly { name: string; scopes?: readonly string[] }[];
  resources?: readonly { uri: string; scopes?: readonly string[] }[];
  resourceTemplates?: readonly { uriTemplate: string; scopes?: readonly string[] }[];
}): void {
  const scoped = [
    ...(options.tools ?? []).filter((t) => t.scopes?.length).map((t) => `tool ${t.name}`),
    ...(options.prompts ?? []).filter((p) => p.scopes?.length).map((p) => `prompt ${p.name}`),
    ...(options.resources ?? []).filter((r) => r.scopes?.length).map((r) => `resource ${r.uri}`),
    ...(options.resourceTemplates ?? []).filter((r) => r.scopes?.length).map((r) => `resource template ${r.uriTemplate}`),
  ];
  if (scoped.length) {
    throw new TypeError(`${scoped.join(", ")} ${scoped.length === 1 ? "needs" : "need"} scopes, but the handler has no auth to check them: give defineMcpHandler an auth (mcpAuth from "h3-mcp/auth")`);
  }
}
