// The answers that refuse a request (RFC 6750 section 3, RFC 9728 section 5.1): 401 with a
// `WWW-Authenticate: Bearer` challenge naming the metadata URL and the scopes to ask for, 403
// `insufficient_scope` naming every scope the operation needs, 503 when the authorization server
// cannot be reached. Each is a McpJsonRpcError, so the body is a JSON-RPC error like every other refusal.
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import { describeRefusal, type RefusalReason } from "./refusals.ts";

/**
 * Builds the refusals of one protected resource. Each refusal but the 503 is built once and thrown again
 * for every request it answers (none is ever changed): a flood of bad tokens costs no error construction.
 */
export function createChallenges(resourceMetadata: string, routeScopes: readonly string[], retryAfterSeconds: number) {
  const base = `Bearer resource_metadata="${resourceMetadata}"`;
  const scopeParam = (scopes: readonly string[]) => (scopes.length ? `, scope="${scopes.join(" ")}"` : "");
  const unauthenticatedHeader = base + scopeParam(routeScopes);
  const refuse = (status: number, message: string, header: string) =>
    Object.freeze(new McpJsonRpcError(ErrorCode.InvalidRequest, message, undefined, status, Object.freeze({ "www-authenticate": header })));
  const unauthenticated = refuse(401, "Unauthorized: this server needs an OAuth bearer access token", unauthenticatedHeader);
  const invalidRequest = refuse(
    400,
    "Bad request: the Authorization header must be one bearer token",
    `${unauthenticatedHeader}, error="invalid_request", error_description="The Authorization header must hold one bearer token"`,
  );
  const invalid = new Map<RefusalReason, McpJsonRpcError>();
  // Keyed by the scopes an operation needs: as many entries as the configuration has distinct scope lists.
  const insufficient = new Map<string, McpJsonRpcError>();

  return {
    /** No bearer credentials: no `error` code (RFC 6750 section 3.1), only where to find out more. */
    unauthenticated: () => unauthenticated,
    /** A token was sent and refused. */
    invalidToken(reason: RefusalReason) {
      let error = invalid.get(reason);
      if (error === undefined) {
        const description = describeRefusal(reason);
        error = refuse(401, `Unauthorized: ${description}`, `${unauthenticatedHeader}, error="invalid_token", error_description="${description}"`);
        invalid.set(reason, error);
      }
      return error;
    },
    /** An Authorization header that is not one well-formed bearer token (several, or empty). */
    invalidRequest: () => invalidRequest,
    /** A valid token without every scope the operation needs: all of them, in one challenge. */
    insufficientScope(scopes: readonly string[]) {
      const key = scopes.join(" ");
      let error = insufficient.get(key);
      if (error === undefined) {
        const header = `Bearer error="insufficient_scope"${scopeParam(scopes)}, resource_metadata="${resourceMetadata}", error_description="This operation needs more scopes"`;
        error = refuse(403, `Forbidden: this operation needs scope ${key}`, header);
        insufficient.set(key, error);
      }
      return error;
    },
    /** The authorization server cannot be reached: bounded, and retryable (built per request: it carries its cause). */
    unavailable: () =>
      new McpJsonRpcError(ErrorCode.InternalError, "The authorization server cannot be reached; try again later", undefined, 503, {
        "retry-after": String(retryAfterSeconds),
      }),
  };
}

export type Challenges = ReturnType<typeof createChallenges>;
