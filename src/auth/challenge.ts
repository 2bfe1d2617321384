// The answers that refuse a request (RFC 6750 section 3, RFC 9728 section 5.1): 401 with a
// `WWW-Authenticate: Bearer` challenge naming the metadata URL and the scopes to ask for, 403
// `insufficient_scope` naming every scope the operation needs, 503 when the authorization server
// cannot be reached. Each is a McpJsonRpcError, so the body is a JSON-RPC error like every other refusal.
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import { describeRefusal, type RefusalReason } from "./refusals.ts";

/** Builds the refusals of one protected resource; the headers that never change are built once. */
export function createChallenges(resourceMetadata: string, routeScopes: readonly string[], retryAfterSeconds: number) {
  const base = `Bearer resource_metadata="${resourceMetadata}"`;
  const scopeParam = (scopes: readonly string[]) => (scopes.length ? `, scope="${scopes.join(" ")}"` : "");
  const unauthenticated = base + scopeParam(routeScopes);
  const invalid = new Map<RefusalReason, string>();
  const refuse = (status: number, message: string, header: string) =>
    new McpJsonRpcError(ErrorCode.InvalidRequest, message, undefined, status, { "www-authenticate": header });

  return {
    /** No bearer credentials: no `error` code (RFC 6750 section 3.1), only where to find out more. */
    unauthenticated: () => refuse(401, "Unauthorized: this server needs an OAuth bearer access token", unauthenticated),
    /** A token was sent and refused. */
    invalidToken(reason: RefusalReason) {
      const description = describeRefusal(reason);
      let header = invalid.get(reason);
      if (header === undefined) {
        header = `${unauthenticated}, error="invalid_token", error_description="${description}"`;
        invalid.set(reason, header);
      }
      return refuse(401, `Unauthorized: ${description}`, header);
    },
    /** An Authorization header that is not one well-formed bearer token (several, or empty). */
    invalidRequest: () =>
      refuse(
        400,
        "Bad request: the Authorization header must be one bearer token",
        `${unauthenticated}, error="invalid_request", error_description="The Authorization header must hold one bearer token"`,
      ),
    /** A valid token without every scope the operation needs: all of them, in one challenge. */
    insufficientScope(scopes: readonly string[]) {
      const header = `Bearer error="insufficient_scope"${scopeParam(scopes)}, resource_metadata="${resourceMetadata}", error_description="This operation needs more scopes"`;
      return refuse(403, `Forbidden: this operation needs scope ${scopes.join(" ")}`, header);
    },
    /** The authorization server cannot be reached: bounded, and retryable. */
    unavailable: () =>
      new McpJsonRpcError(ErrorCode.InternalError, "The authorization server cannot be reached; try again later", undefined, 503, {
        "retry-after": String(retryAfterSeconds),
      }),
  };
}

export type Challenges = ReturnType<typeof createChallenges>;
