// DNS-rebinding protection: a browser page on another origin must not reach a local server.

export interface OriginPolicy {
  /** Host names (without port) accepted in the Host header. `false` turns the check off. */
  allowedHosts?: string[] | false;
  /** Origins (scheme://host[:port], or host names matching any scheme and port) accepted when an Origin header is present. `false` turns the check off. */
  allowedOrigins?: string[] | false;
}

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** Returns a reason to refuse the request with 403, or undefined when it may proceed. */
export function createOriginCheck(policy: OriginPolicy = {}): (request: Request) => string | undefined {
  const hosts = policy.allowedHosts === false ? undefined : new Set((policy.allowedHosts ?? LOCAL_HOSTS).map((h) => h.toLowerCase()));
  const origins =
    policy.allowedOrigins === false ? undefined : (policy.allowedOrigins ?? LOCAL_HOSTS).map((o) => o.toLowerCase());
  // Clients send the same Host on every request: the last accepted value skips the parsing.
  let lastAllowedHost: string | undefined;
  return (request) => {
    if (hosts) {
      const host = request.headers.get("host") ?? new URL(request.url).host;
      if (host !== lastAllowedHost) {
        if (!hosts.has(stripPort(host.toLowerCase()))) return "Host not allowed";
        lastAllowedHost = host;
      }
    }
    const origin = request.headers.get("origin");
    if (origin !== null && origins && !originAllowed(origin.toLowerCase(), origins)) return "Origin not allowed";
    return undefined;
  };
}

// --- Internal ---

function stripPort(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

function originAllowed(origin: string, allowed: string[]): boolean {
  if (allowed.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const host = url.hostname;
  return allowed.includes(host) || (host.startsWith("[") && allowed.includes(host.slice(1, -1)));
}
