// The "h3-mcp/auth" entry: h3-mcp as an OAuth 2.1 protected resource (the MCP authorization spec).
//   mcp-auth.ts             mcpAuth(): the handler's `auth` (authenticate, scopes) and the metadata it serves
//   bearer.ts               the token of the Authorization header, and nowhere else
//   challenge.ts            401 / 403 / 503 answers with their WWW-Authenticate challenges
//   refusals.ts             why a token is refused, in fixed words; the authorization server being unreachable
//   resource-uri.ts         canonical resource URIs and the well-known metadata URLs
//   scopes.ts               scope hierarchies, scope claims
//   token-cache.ts          verified (and refused) tokens kept for reuse, never past their expiry
//   verifier.ts             the verifier contract
//   jwt-verifier.ts, issuer-keys.ts   JWT access tokens (RFC 9068) and their issuers' keys
//   introspection-verifier.ts         opaque tokens (RFC 7662)
//   discovery.ts            an authorization server's metadata (RFC 8414, OpenID Connect Discovery)
//   metadata.ts             the protected resource metadata handler (RFC 9728)
// Imports: features/ (the guard contract) and protocol/ only; loads jose. The core never imports this
// folder: the handler calls it through `McpAuthGuard`.
export { mcpAuth } from "./mcp-auth.ts";
export type { McpAuth, McpAuthOptions } from "./mcp-auth.ts";
export { jwtVerifier, ASYMMETRIC_ALGORITHMS } from "./jwt-verifier.ts";
export type { JwtIssuer, JwtVerifierOptions } from "./jwt-verifier.ts";
export { introspectionVerifier } from "./introspection-verifier.ts";
export type { IntrospectionVerifierOptions } from "./introspection-verifier.ts";
export { AuthorizationServerUnavailableError, InvalidTokenError } from "./refusals.ts";
export type { RefusalReason } from "./refusals.ts";
export type { AudiencePolicy, TokenVerifier, VerifiedToken, VerifyToken } from "./verifier.ts";
export type { ScopeHierarchy } from "./scopes.ts";
export type { ResourceMetadataFields } from "./metadata.ts";
export type { FetchOptions } from "./discovery.ts";
export { getMcpAuth } from "../features/authorization.ts";
export type { McpAuthInfo, McpAuthRefusal } from "../features/authorization.ts";
