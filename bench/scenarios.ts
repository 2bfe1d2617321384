// The scenarios of `npm run bench`, in the order they run and print: which targets each one
// compares, how each target is prepared, and what a correct answer is.
import { fmtCount } from "./lib/format.ts";
import type { BenchConfig } from "./lib/options.ts";
import type { ProcessKey } from "./lib/processes.ts";
import { answering, bearerEcho, cancelling, fillStore, firstUseEcho, fixed, isAck, isText, isWorkingHandle, sameAsH3Mcp, type Scenario } from "./lib/scenario.ts";
import { requests } from "./lib/wire.ts";

const ALL = { bare: "bare", "h3-mcp": "mcp", sdk: "sdk" } as const;
const REDIS = { "bare-redis": "bare-redis", "h3-mcp": "mcp-redis", memory: "mcp-memory" } as const;
const storeKey = (n: number): ProcessKey => `mcp-store-${n}`;

export function benchScenarios(config: BenchConfig, quick: boolean): Scenario[] {
  const storeSizes = [1, ...config.fills];
  const redisFill = quick ? 100 : 1_000;
  return [
    {
      id: "echo",
      title: "tools/call echo (synchronous)",
      processes: { ...ALL, node: "node" },
      prepare: fixed(requests.echo()),
      check: isText,
    },
    {
      id: "otel",
      title: "tools/call echo (synchronous), OpenTelemetry on and off, and the floor any tracer pays",
      processes: { "h3-mcp": "mcp", traced: "mcp-otel", unsampled: "mcp-otel-unsampled", floor: "mcp-otel-floor", "floor-unsampled": "mcp-otel-floor-unsampled" },
      base: "h3-mcp",
      prepare: fixed(requests.echo()),
      check: isText,
      release: ["mcp-otel", "mcp-otel-unsampled", "mcp-otel-floor", "mcp-otel-floor-unsampled"],
    },
    // Authorization: the same echo call through mcpAuth() with JWT access tokens, against the same app
    // without it. A client reusing its token is answered from the cache of verified tokens; each token's
    // first use pays a signature check; bad tokens must cost no more than good ones.
    {
      id: "auth-reused",
      title: "tools/call echo (synchronous), JWT bearer reused, and bad tokens",
      processes: { "h3-mcp": "mcp", "jwt-header": "mcp", jwt: "mcp-auth", "jwt-bad": "mcp-auth" },
      base: "h3-mcp",
      prepare: bearerEcho,
      check: isText,
      refusedWith: { "jwt-bad": 401 },
    },
    {
      id: "auth-first",
      title: "tools/call echo (synchronous), each JWT's first use",
      processes: { "h3-mcp": "mcp", "jwt-first": "mcp-auth", "jwt-bad-first": "mcp-auth" },
      base: "h3-mcp",
      prepare: fixed(requests.echo()),
      perRun: firstUseEcho,
      check: isText,
      refusedWith: { "jwt-bad-first": 401 },
      release: ["mcp-auth"],
    },
    // Row `otel` again, each traced app also without a context manager (what AsyncLocalStorage costs), the
    // unsampled one without metrics, and a second untraced process (the noise between identical targets).
    // Only with `--only tracing-context`.
    {
      id: "tracing-context",
      title: "tools/call echo (synchronous), OpenTelemetry with and without AsyncLocalStorage",
      processes: {
        "h3-mcp": "mcp",
        traced: "mcp-otel",
        "traced-noctx": "mcp-otel-noctx",
        unsampled: "mcp-otel-unsampled",
        "unsampled-noctx": "mcp-otel-unsampled-noctx",
        "unsampled-nometrics": "mcp-otel-unsampled-nometrics",
        again: "mcp-again",
      },
      base: "h3-mcp",
      prepare: fixed(requests.echo()),
      check: isText,
      release: ["mcp-otel", "mcp-otel-unsampled", "mcp-otel-noctx", "mcp-otel-unsampled-noctx", "mcp-otel-unsampled-nometrics", "mcp-again"],
      optIn: true,
    },
    {
      id: "task-create",
      title: "tools/call creating a task",
      processes: { bare: "bare", "h3-mcp": "mcp-create", actor: "bare-actor" },
      prepare: fixed(requests.createTask()),
      check: isWorkingHandle,
      release: ["mcp-create", "bare-actor"],
    },
    // One process per store size, filled first, then all sizes' rounds alternate: a drift of the
    // machine over the minutes this takes lands on every size alike.
    {
      id: "task-get",
      title: "tasks/get, completed task (1 retained)",
      processes: { bare: "bare", "h3-mcp": storeKey(1) },
      prepare: (t, kind, prepared) => (kind === "h3-mcp" ? fillStore(t, 1) : Promise.resolve(sameAsH3Mcp(prepared))),
      check: (r) => r.status === "completed" && isText(r.result as Record<string, unknown>),
      group: "task-get",
    },
    ...config.fills.map(
      (n, i): Scenario => ({
        id: `task-get-${fmtCount(n)}`,
        title: `tasks/get, ${fmtCount(n)} retained`,
        processes: { bare: "bare", "h3-mcp": storeKey(n) },
        prepare: (t, kind, prepared) => (kind === "h3-mcp" ? fillStore(t, n) : Promise.resolve(sameAsH3Mcp(prepared))),
        check: (r) => r.status === "completed",
        group: "task-get",
        release: i === config.fills.length - 1 ? storeSizes.map(storeKey) : undefined,
      }),
    ),
    {
      id: "task-update",
      title: "tasks/update answering a parked task",
      processes: { bare: "bare", "h3-mcp": "mcp-tasks" },
      prepare: fixed(requests.echo()),
      perRun: answering,
      check: isAck,
    },
    {
      id: "task-cancel",
      title: "tasks/cancel of a working task",
      processes: { bare: "bare", "h3-mcp": "mcp-tasks" },
      prepare: fixed(requests.echo()),
      perRun: cancelling,
      check: isAck,
      release: ["mcp-tasks"],
    },
    {
      id: "discover",
      title: "server/discover",
      processes: ALL,
      prepare: fixed(requests.discover()),
      check: (r) => Array.isArray(r.supportedVersions),
    },
    {
      id: "tools-list",
      title: "tools/list",
      processes: ALL,
      prepare: fixed(requests.toolsList()),
      check: (r) => Array.isArray(r.tools) && (r.tools as unknown[]).length === 3,
    },
    // The Redis store against bare h3 plus one Redis round trip, and the same app on the in-memory store.
    {
      id: "redis-task-get",
      title: `tasks/get, completed task (Redis store, ${fmtCount(redisFill)} retained)`,
      processes: REDIS,
      base: "bare-redis",
      prepare: (t, kind, prepared) => (kind === "bare-redis" ? Promise.resolve(sameAsH3Mcp(prepared)) : fillStore(t, redisFill)),
      check: (r) => r.status === "completed" && isText(r.result as Record<string, unknown>),
    },
    {
      id: "redis-task-create",
      title: "tools/call creating a task (Redis store)",
      processes: REDIS,
      base: "bare-redis",
      prepare: fixed(requests.createTask()),
      check: isWorkingHandle,
    },
    {
      id: "redis-task-update",
      title: "tasks/update answering a parked task (Redis store)",
      processes: REDIS,
      base: "bare-redis",
      prepare: fixed(requests.echo()),
      perRun: answering,
      check: isAck,
    },
    {
      id: "redis-task-cancel",
      title: "tasks/cancel of a working task (Redis store)",
      processes: REDIS,
      base: "bare-redis",
      prepare: fixed(requests.echo()),
      perRun: cancelling,
      check: isAck,
      release: ["mcp-redis", "mcp-memory"],
    },
    // Two instances on one Redis behind a round-robin proxy, against one instance behind the same proxy.
    {
      id: "two-task-get",
      title: `tasks/get through the proxy (Redis store, ${fmtCount(redisFill)} retained)`,
      processes: { "h3-mcp": "proxy-one", two: "proxy-two" },
      base: "h3-mcp",
      prepare: (t) => fillStore(t, redisFill),
      check: (r) => r.status === "completed",
      group: "two",
    },
    {
      id: "two-task-create",
      title: "tools/call creating a task through the proxy (Redis store)",
      processes: { "h3-mcp": "proxy-one", two: "proxy-two" },
      base: "h3-mcp",
      prepare: fixed(requests.createTask()),
      check: isWorkingHandle,
      group: "two",
      release: ["proxy-one", "proxy-two"],
    },
  ];
}

/** The Redis rows need a redis-server. */
export const needsRedis = (s: Scenario) => s.id.startsWith("redis-") || s.id.startsWith("two-");
