// A per-caller rate limit as a plugin of hooks: a token bucket per caller, refilled over time; a request
// past it is refused before its method runs, with HTTP 429 and a Retry-After header.
import type { H3Event } from "h3";
import { defineMcpPlugin, getMcpContext, McpJsonRpcError, type McpPlugin } from "h3-mcp";

export interface RateLimitOptions {
  /** Requests a caller may make at once (the bucket's size). */
  burst: number;
  /** Requests a caller regains per second. */
  perSecond: number;
  /** Which requests count. Default: every one but `tasks/get` (a client polls it at the interval the server advertised). */
  counts?: (method: string) => boolean;
  /** The clock, in ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * Who is calling: the verified identity when the handler has `auth` (its issuer and subject), otherwise
 * the legacy session, otherwise the client's address.
 */
export function callerOf(event: H3Event): string {
  const ctx = getMcpContext(event);
  if (ctx.auth) return `sub:${ctx.auth.issuer} ${ctx.auth.subject}`;
  if (ctx.sessionId) return `session:${ctx.sessionId}`;
  // X-Forwarded-For names the client only behind a proxy that sets it and drops the client's own: without
  // such a proxy a client could pick its own key, so read the socket's address (`event.req.ip`) alone.
  const forwarded = event.req.headers.get("x-forwarded-for");
  return `ip:${forwarded?.split(",")[0]?.trim() || (event.req as { ip?: string }).ip || "unknown"}`;
}

/** Refuses a caller's requests past `burst` until the bucket refills at `perSecond`. */
export function rateLimit(options: RateLimitOptions): McpPlugin {
  const now = options.now ?? Date.now;
  const counts = options.counts ?? ((method: string) => method !== "tasks/get");
  const buckets = new Map<string, { tokens: number; at: number }>();
  return defineMcpPlugin({
    name: "rate-limit",
    wrapRequest(event, next) {
      if (!counts(getMcpContext(event).method)) return next();
      const caller = callerOf(event);
      const t = now();
      const bucket = buckets.get(caller) ?? { tokens: options.burst, at: t };
      bucket.tokens = Math.min(options.burst, bucket.tokens + ((t - bucket.at) / 1000) * options.perSecond);
      bucket.at = t;
      // Re-inserted, so the Map stays in least-recently-seen order and the oldest go first.
      buckets.delete(caller);
      buckets.set(caller, bucket);
      if (buckets.size > 10_000) buckets.delete(buckets.keys().next().value!);
      if (bucket.tokens < 1) {
        const retryAfterMs = Math.ceil(((1 - bucket.tokens) / options.perSecond) * 1000);
        throw new McpJsonRpcError(-32000, "Rate limit exceeded", { retryAfterMs }, 429, { "retry-after": String(Math.ceil(retryAfterMs / 1000)) });
      }
      bucket.tokens -= 1;
      return next();
    },
  });
}
