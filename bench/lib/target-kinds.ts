// The kinds of target a scenario's rows compare, and how the report names them.

/**
 * What serves a row. `bare` (h3) and `node` (plain node:http) are the ceilings of the stateless and
 * in-memory scenarios, `bare-redis` (bare h3 plus one Redis round trip) of the Redis ones; `actor`
 * (bare h3 plus one task actor's whole life per request) is what the task chart alone costs a task
 * creation; in a `redis-` scenario `h3-mcp` is h3-mcp on the Redis store and `memory` the same app
 * on the in-memory store; in the two-instance scenarios `h3-mcp` is one instance behind the proxy
 * and `two` two instances sharing one Redis behind it. `traced` is the h3-mcp app with mcpOpenTelemetry() and
 * the OpenTelemetry SDK recording every span (and its metrics), `unsampled` the same with no span sampled;
 * `traced-noctx` and `unsampled-noctx` are the same two with no context manager registered (the API's no-op
 * one instead of AsyncLocalStorage), to tell what AsyncLocalStorage costs from what the rest costs; `again` is
 * a second process of the untraced app, whose ratio to the first is the noise between identical targets;
 * `unsampled-nometrics` is `unsampled` with a no-op meter (no duration histogram). `floor` and `floor-unsampled`
 * are the same app traced by the bench's floor tracer instead (the least the MCP conventions ask of any tracer:
 * its span, its context, its duration record), recording every span or none: what any tracer on this SDK pays.
 * `jwt` is the h3-mcp app protected by mcpAuth() with one JWT reused by every request (`jwt-header`: the app
 * without auth sent the same header, what carrying the token over HTTP costs by itself), `jwt-bad` the same
 * app sent bad tokens of every kind (refused with 401), `jwt-first` and `jwt-bad-first` each token used once.
 */
export type TargetKind =
  | "bare"
  | "node"
  | "h3-mcp"
  | "sdk"
  | "bare-redis"
  | "memory"
  | "two"
  | "actor"
  | "traced"
  | "unsampled"
  | "jwt"
  | "jwt-header"
  | "jwt-bad"
  | "jwt-first"
  | "jwt-bad-first"
  | "traced-noctx"
  | "unsampled-noctx"
  | "again"
  | "unsampled-nometrics"
  | "floor"
  | "floor-unsampled";

/** The ceilings: they answer the echo result whatever they are asked. */
export const CEILINGS = new Set<TargetKind>(["bare", "node", "bare-redis"]);

/** References answer a fixed-shape result and consume nothing: a consuming scenario runs them for the duration. */
export const isReference = (kind: TargetKind) => CEILINGS.has(kind) || kind === "actor";

const NAMES: Record<TargetKind, string> = {
  bare: "(a) bare h3",
  node: "(a') plain node:http",
  "h3-mcp": "(b) h3-mcp",
  sdk: "(c) official SDK",
  "bare-redis": "(r) bare h3 + 1 Redis round trip",
  memory: "(m) h3-mcp, in-memory store",
  two: "(2) two h3-mcp instances",
  actor: "(f) bare h3 + one task actor (its whole life)",
  traced: "(o) h3-mcp, OpenTelemetry recording every span",
  unsampled: "(o') h3-mcp, OpenTelemetry installed, no span sampled",
  jwt: "(j) h3-mcp + JWT bearer, token reused",
  "jwt-header": "(h) h3-mcp without auth, sent the same Authorization header",
  "jwt-bad": "(j') h3-mcp + JWT bearer, bad tokens (401)",
  "jwt-first": "(j) h3-mcp + JWT bearer, each token's first use",
  "jwt-bad-first": "(j') h3-mcp + JWT bearer, each bad signature's first use (401)",
  "traced-noctx": "(o) without AsyncLocalStorage (no context manager)",
  "unsampled-noctx": "(o') without AsyncLocalStorage (no context manager)",
  again: "(b) h3-mcp again (a second process: the noise)",
  "unsampled-nometrics": "(o') without metrics (a no-op meter)",
  floor: "(t) the floor tracer (the conventions' least), recording every span",
  "floor-unsampled": "(t') the floor tracer, no span sampled",
};

/** The row's name in the report: h3-mcp's depends on the scenario it serves. */
export function targetName(scenarioId: string, kind: TargetKind): string {
  if (kind === "h3-mcp" && scenarioId.startsWith("redis-")) return "(b) h3-mcp, Redis store";
  if (kind === "h3-mcp" && scenarioId.startsWith("two-")) return "(1) one h3-mcp instance";
  return NAMES[kind];
}
