// An authorization server's metadata, found the way MCP clients find it: RFC 8414 first, then OpenID
// Connect Discovery, each with the path-insertion and path-appending forms; the document must name the
// issuer it was fetched for, exactly.
import { AuthorizationServerUnavailableError } from "./refusals.ts";

/** How verifiers reach an authorization server. */
export interface FetchOptions {
  /** The fetch to use (a proxy's, say). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Longest wait for one answer, in milliseconds. Default 5000. */
  timeoutMs?: number;
}

/** The URLs an issuer's metadata may live at, in the order the MCP spec tries them. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  if (!path) return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The issuer's metadata document; `AuthorizationServerUnavailableError` when none can be had. */
export async function fetchIssuerMetadata(issuer: string, options: FetchOptions = {}): Promise<Record<string, unknown>> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let response: Response;
    try {
      response = await fetchBounded(url, { headers: { accept: "application/json" } }, options);
    } catch (error) {
      throw new AuthorizationServerUnavailableError(`${url}: ${describe(error)}`);
    }
    if (response.status === 404 || response.status === 405) {
      failures.push(`${url}: ${response.status}`);
      continue;
    }
    const doc = await readJson(response, url);
    if (doc.issuer !== issuer) {
      throw new AuthorizationServerUnavailableError(`${url} names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
    }
    return doc;
  }
  throw new AuthorizationServerUnavailableError(`No metadata for issuer ${issuer} (${failures.join(", ")})`);
}

/** One request with a time bound; rejects on timeout or network failure. */
export async function fetchBounded(url: string, init: RequestInit, options: FetchOptions): Promise<Response> {
  const doFetch = options.fetch ?? fetch;
  return doFetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
}

/** A 200 answer's JSON object; `AuthorizationServerUnavailableError` for anything else. */
export async function readJson(response: Response, url: string): Promise<Record<string, unknown>> {
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new AuthorizationServerUnavailableError(`${url} answered ${response.status}`);
  }
  let value: unknown;
  try {
    value = await response.json();
  } catch (error) {
    throw new AuthorizationServerUnavailableError(`${url} answered no JSON: ${describe(error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AuthorizationServerUnavailableError(`${url} answered JSON that is not an object`);
  }
  return value as Record<string, unknown>;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
