// What the demo takes from its environment. With REDIS_URL, tasks live in that Redis, so every demo started
// with the same REDIS_URL and MCP_REQUEST_STATE_SECRET is one server: put any number behind a round-robin
// balancer (docs/scale-out.md). Without REDIS_URL, nothing of Redis is loaded.
import type { RequestStateOptions } from "h3-mcp";
import type { McpTasksOptions } from "h3-mcp/tasks";

export interface DemoEnvironment {
  tasks: McpTasksOptions;
  requestState?: RequestStateOptions;
  /** One line saying how tasks are kept, for the start-up banner. */
  describe: string;
  /** Releases what the environment opened (the Redis connections). */
  close(): Promise<void>;
}

/** Every demo sharing a Redis uses this prefix, so they are one server. */
export const DEMO_PREFIX = "h3-mcp-demo";
/** Short, so a stopped demo's tasks read `failed` on the others within seconds. */
export const DEMO_LEASE_MS = 3_000;

export async function demoEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<DemoEnvironment> {
  const secret = env.MCP_REQUEST_STATE_SECRET || undefined;
  const requestState = secret ? { secret } : undefined;
  const url = env.REDIS_URL || undefined;
  // A short task lifetime, to watch tasks expire.
  const ttl = env.MCP_TASK_TTL_MS ? { ttlMs: Number(env.MCP_TASK_TTL_MS) } : {};
  if (!url) return { tasks: ttl, requestState, describe: "tasks in memory (this process only)", close: async () => {} };

  const { redisTaskStore } = await import("h3-mcp/tasks/redis");
  // The key owners are hashed under in Redis: required as soon as tasks are bound to callers (the same on
  // every instance, like the requestState secret).
  const store = redisTaskStore({ url, prefix: DEMO_PREFIX, leaseMs: DEMO_LEASE_MS, secret: env.MCP_TASKS_SECRET || undefined });
  const warning = secret ? "" : " (MCP_REQUEST_STATE_SECRET is unset: an MRTR round started here only finishes here)";
  return {
    tasks: { store, ...ttl },
    requestState,
    describe: `tasks in Redis at ${url}, prefix "${DEMO_PREFIX}", lease ${DEMO_LEASE_MS} ms${warning}`,
    close: () => store.close(),
  };
}
