// The canonical URI of an MCP server (RFC 8707 section 2, as the MCP authorization spec uses it): an
// absolute http(s) URI without a fragment. Scheme and host compare in any case, and a trailing slash
// makes no difference, so `HTTPS://MCP.example.com/mcp/` names the same resource as `https://mcp.example.com/mcp`.

/** The canonical form of a resource URI: lowercase scheme and host, no default port, no trailing slash. */
export function canonicalResource(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new TypeError(`mcpAuth: resource must be an absolute URI, not ${JSON.stringify(uri)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError(`mcpAuth: resource must be an http(s) URI, not ${uri}`);
  if (url.hash || uri.includes("#")) throw new TypeError(`mcpAuth: resource must not have a fragment: ${uri}`);
  return withoutTrailingSlash(url.href);
}

/** Whether `candidate` (an `aud` value, say) names the resource whose canonical form is `canonical`. */
export function namesResource(canonical: string, candidate: string): boolean {
  if (candidate === canonical) return true;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  return !url.hash && withoutTrailingSlash(url.href) === canonical;
}

/**
 * The RFC 9728 well-known URL of a resource's metadata: the well-known segment goes between the host and
 * the path (`https://host/mcp` → `https://host/.well-known/oauth-protected-resource/mcp`).
 */
export function metadataUrl(canonical: string): string {
  const url = new URL(canonical);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}${url.search}`;
}

/** The root form of the same metadata URL, which clients try last. */
export function rootMetadataUrl(canonical: string): string {
  return `${new URL(canonical).origin}/.well-known/oauth-protected-resource`;
}

function withoutTrailingSlash(href: string): string {
  // `new URL("https://host").href` is "https://host/": the canonical form has no slash there either.
  if (href.endsWith("/")) return href.slice(0, -1);
  const query = href.indexOf("?");
  return query > 0 && href[query - 1] === "/" ? href.slice(0, query - 1) + href.slice(query) : href;
}
