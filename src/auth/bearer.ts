// The bearer token of a request, read from its Authorization header and nowhere else (RFC 6750 section
// 2.1): never the query string, never the body.

/** The request carries no bearer credentials (no Authorization header, or another scheme). */
export const NO_CREDENTIALS = 0;
/** The Authorization header says Bearer but holds no single well-formed token (several headers, say). */
export const MALFORMED = 1;

/** What a request's Authorization header holds. */
export type BearerCredentials = string | typeof NO_CREDENTIALS | typeof MALFORMED;

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is matched in any case and may be
 * followed by several spaces (`1*SP`); the token is returned as sent, its shape left to `isB64Token`
 * (checked only when it is not already known, so a client reusing its token pays no scan).
 */
export function bearerCredentials(header: string | null): BearerCredentials {
  if (header === null) return NO_CREDENTIALS;
  const scheme = header.slice(0, 6);
  if (scheme !== "Bearer" && scheme.toLowerCase() !== "bearer") return NO_CREDENTIALS;
  const after = header.charCodeAt(6);
  // "Bearerfoo" is another scheme; "Bearer<TAB>token" is Bearer written wrong.
  if (header.length > 6 && after !== 32) return after === 9 ? MALFORMED : NO_CREDENTIALS;
  let start = 7;
  while (header.charCodeAt(start) === 32) start++;
  return start >= header.length ? MALFORMED : header.slice(start);
}

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** RFC 6750's `b64token`: what a single bearer token may be made of (no space, comma or quote). */
export function isB64Token(token: string): boolean {
  return B64TOKEN.test(token);
}
