// The processes that serve the targets: what each one runs, started on first use and kept until
// released, so that the rounds of a scenario's targets can alternate on live processes.
import { startRedis, type RedisServer } from "../../test/helpers/redis-server.ts";
import { startTarget, type Target } from "./proc.ts";

/**
 * h3-mcp runs as several processes so that the store one scenario grows never weighs on another;
 * each retained-store size has its own process, all alive together, so their rounds can alternate.
 */
export type ProcessKey =
  | "bare"
  | "node"
  | "sdk"
  | "bare-actor"
  | "mcp"
  | "mcp-create"
  | "mcp-otel"
  | "mcp-otel-unsampled"
  | "mcp-auth"
  | "mcp-otel-noctx"
  | "mcp-otel-unsampled-noctx"
  | "mcp-again"
  | "mcp-otel-unsampled-nometrics"
  | "mcp-otel-floor"
  | "mcp-otel-floor-unsampled"
  | "mcp-tasks"
  | `mcp-store-${number}`
  | "bare-redis"
  | "mcp-redis"
  | "mcp-memory"
  | "proxy-one"
  | "proxy-two";

interface ProcessSpec {
  file: string;
  nodeFlags?: string[];
  env?: Record<string, string>;
}

/** A target of several processes (instances behind a proxy) says where its first h3-mcp is. */
type MultiTarget = Target & { fillOrigin?: string };

/** Where the bench-only routes of a target's (first) h3-mcp process are. */
export const benchOrigin = (t: Target) => (t as MultiTarget).fillOrigin ?? t.origin;

export class Processes {
  #running = new Map<ProcessKey, Target>();
  #redis: RedisServer | undefined;

  /** The process for `key`, started if it is not running. */
  async target(key: ProcessKey): Promise<Target> {
    let t = this.#running.get(key);
    if (!t) {
      t = key === "proxy-one" || key === "proxy-two" ? await this.#instances(key === "proxy-one" ? 1 : 2) : await this.#startOne(key);
      this.#running.set(key, t);
    }
    return t;
  }

  async stop(key: ProcessKey): Promise<void> {
    const t = this.#running.get(key);
    this.#running.delete(key);
    await t?.stop();
  }

  /** Every process still running, and the redis-server if one was started. */
  async stopAll(): Promise<void> {
    for (const key of [...this.#running.keys()]) await this.stop(key);
    await this.#redis?.stop();
  }

  async #redisUrl(): Promise<string> {
    this.#redis ??= await startRedis();
    return this.#redis.url;
  }

  async #spec(key: ProcessKey): Promise<ProcessSpec> {
    switch (key) {
      case "bare":
        return { file: "bare-h3.ts" };
      case "node":
        return { file: "node-http.ts" };
      case "sdk":
        return { file: "sdk.ts" };
      case "bare-actor":
        return { file: "bare-actor.ts" };
      case "bare-redis":
        return { file: "bare-redis.ts", env: { REDIS_URL: await this.#redisUrl() } };
      case "mcp-redis":
        return { file: "h3-mcp.ts", env: { BENCH_STORE: "redis", REDIS_URL: await this.#redisUrl(), BENCH_REDIS_PREFIX: "bench-one", BENCH_ASK: "1" } };
      case "mcp-otel":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "all" } };
      case "mcp-otel-unsampled":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "none" } };
      case "mcp-auth":
        return { file: "h3-mcp.ts", env: { BENCH_AUTH: "1" } };
      case "mcp-otel-noctx":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "all", BENCH_OTEL_CONTEXT: "none" } };
      case "mcp-otel-unsampled-noctx":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "none", BENCH_OTEL_CONTEXT: "none" } };
      case "mcp-otel-unsampled-nometrics":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "none", BENCH_OTEL_METRICS: "none" } };
      case "mcp-otel-floor":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "all", BENCH_OTEL_TRACER: "floor" } };
      case "mcp-otel-floor-unsampled":
        return { file: "h3-mcp.ts", env: { BENCH_OTEL: "none", BENCH_OTEL_TRACER: "floor" } };
      case "mcp-memory":
      case "mcp-tasks":
        return { file: "h3-mcp.ts", env: { BENCH_ASK: "1" } };
      case "proxy-one":
      case "proxy-two":
        throw new Error("proxies are started by instances()");
      default:
        // Up to 1M retained tasks: give the heap room.
        if (key.startsWith("mcp-store-")) return { file: "h3-mcp.ts", nodeFlags: ["--max-old-space-size=8192"] };
        return { file: "h3-mcp.ts" };
    }
  }

  async #startOne(key: ProcessKey): Promise<Target> {
    const spec = await this.#spec(key);
    return startTarget(key, spec.file, { nodeFlags: spec.nodeFlags, env: spec.env });
  }

  /** `count` h3-mcp instances on one Redis key prefix behind a round-robin proxy, as one target whose CPU is all of theirs. */
  async #instances(count: number): Promise<Target> {
    const env = { BENCH_STORE: "redis", REDIS_URL: await this.#redisUrl(), BENCH_REDIS_PREFIX: `bench-${count}x` };
    const upstreams = await Promise.all(Array.from({ length: count }, (_, i) => startTarget(`mcp-redis-${count}x-${i}`, "h3-mcp.ts", { env })));
    const proxy = await startTarget(`proxy-${count}x`, "proxy.ts", { env: { UPSTREAMS: upstreams.map((u) => u.origin).join(",") } });
    const target: MultiTarget = {
      ...proxy,
      pids: [proxy.pid, ...upstreams.map((u) => u.pid)],
      // The fill route of the first instance: every instance sees every task in the shared store.
      fillOrigin: upstreams[0]!.origin,
      async stop() {
        await proxy.stop();
        await Promise.all(upstreams.map((u) => u.stop()));
      },
    };
    return target;
  }
}
