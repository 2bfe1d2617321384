// What the demo takes from its environment. With REDIS_URL, tasks live in that Redis, so every demo started
// with the same REDIS_URL and MCP_REQUEST_STATE_SECRET is one server: put any number behind a round-robin
// balancer (docs/scale-out.md). Without REDIS_URL, nothing of Redis is loaded. With MCP_TASKS_EXECUTOR=bullmq
// too, the durable runs are executed by worker processes (`npm run worker`, worker.ts) instead. With
// MCP_TASKS_SQLITE=<file> instead, tasks live in that SQLite file, which every demo on this host started with
// it shares (sqlite-store.ts); nothing of SQLite is loaded otherwise. With DATABASE_URL=postgres://… instead,
// tasks live in that Postgres database (schema "h3_mcp_demo"), which every demo started with it shares, on
// any host; nothing of Postgres is loaded otherwise.
// With MCP_AUTH_ISSUER, /mcp takes only JWT access tokens of that issuer for MCP_AUTH_RESOURCE (default
// http://HOST:PORT/mcp) with scope `mcp` (docs/authorization.md). Without it, nothing of h3-mcp/auth is loaded.
import type { RequestStateOptions } from "h3-mcp";
import type { McpAuth } from "h3-mcp/auth";
import type { McpTasksOptions } from "h3-mcp/tasks";
import { durableRuns } from "./tools/durable.ts";

export interface DemoEnvironment {
  tasks: McpTasksOptions;
  requestState?: RequestStateOptions;
  /** The route's protection, when MCP_AUTH_ISSUER is set. */
  auth?: McpAuth;
  /** One line saying how tasks are kept, for the start-up banner. */
  describe: string;
  /** Releases what the environment opened (the Redis connections). */
  close(): Promise<void>;
}

/** Every demo sharing a Redis uses this prefix, so they are one server. */
export const DEMO_PREFIX = "h3-mcp-demo";
/** The Postgres schema of every demo sharing a DATABASE_URL, so they are one server. */
export const DEMO_SCHEMA = "h3_mcp_demo";
/** Short, so a stopped demo's tasks read `failed` (or go on elsewhere) within seconds; MCP_TASKS_LEASE_MS sets another. */
export const DEMO_LEASE_MS = 3_000;
/** The most a SIGTERM drain waits for running tasks before handing them off; MCP_DRAIN_MS sets another. */
export const DEMO_DRAIN_MS = 10_000;

const RUNS_WARNING = " (MCP_TASKS_SECRET is unset: durable_steps and durable_ask answer an error)";
const STATE_WARNING = " (MCP_REQUEST_STATE_SECRET is unset: an MRTR round started here only finishes here)";

/** A whole number of milliseconds from the environment, or `fallback` when unset; a bad value stops the demo with its name. */
export function envMs(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0) throw new TypeError(`${name} must be a whole number of milliseconds, got ${JSON.stringify(raw)}`);
  return ms;
}

export async function demoEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<DemoEnvironment> {
  const secret = env.MCP_REQUEST_STATE_SECRET || undefined;
  const requestState = secret ? { secret } : undefined;
  const auth = await demoAuth(env);
  const protection = auth ? `; /mcp needs a token of ${env.MCP_AUTH_ISSUER} for ${auth.resource} with scope mcp` : "; open (MCP_AUTH_ISSUER unset)";
  const url = env.REDIS_URL || undefined;
  // A short task lifetime, to watch tasks expire.
  const ttl = env.MCP_TASK_TTL_MS ? { ttlMs: Number(env.MCP_TASK_TTL_MS) } : {};
  if (env.MCP_TASKS_EXECUTOR && !url) throw new TypeError("MCP_TASKS_EXECUTOR needs REDIS_URL: the workers reach the tasks through Redis");
  const sqliteFile = env.MCP_TASKS_SQLITE || undefined;
  const databaseUrl = env.DATABASE_URL || undefined;
  const stores = [url && "REDIS_URL", sqliteFile && "MCP_TASKS_SQLITE", databaseUrl && "DATABASE_URL"].filter(Boolean);
  if (stores.length > 1) throw new TypeError(`${stores.join(" and ")} are all set: tasks live in one store, so set one of them`);
  if (databaseUrl) {
    const leaseMs = envMs(env, "MCP_TASKS_LEASE_MS", DEMO_LEASE_MS);
    const tasksSecret = env.MCP_TASKS_SECRET || undefined;
    const { postgresTaskStore } = await import("h3-mcp/tasks/postgres");
    const store = postgresTaskStore({ connectionString: databaseUrl, schema: DEMO_SCHEMA, leaseMs, secret: tasksSecret });
    return {
      tasks: { store, runs: tasksSecret ? durableRuns : [], ...ttl },
      requestState,
      auth,
      describe: `tasks in Postgres at ${redacted(databaseUrl)}, schema "${DEMO_SCHEMA}", lease ${leaseMs} ms${secret ? "" : STATE_WARNING}${tasksSecret ? "" : RUNS_WARNING}${protection}`,
      close: () => store.close(),
    };
  }
  if (sqliteFile) {
    const leaseMs = envMs(env, "MCP_TASKS_LEASE_MS", DEMO_LEASE_MS);
    const tasksSecret = env.MCP_TASKS_SECRET || undefined;
    const { openSqliteStore } = await import("./sqlite-store.ts");
    const sqlite = openSqliteStore(sqliteFile, leaseMs, tasksSecret);
    return {
      tasks: { store: sqlite.store, runs: tasksSecret ? durableRuns : [], ...ttl },
      requestState,
      auth,
      describe: `tasks in the SQLite file ${sqliteFile}, lease ${leaseMs} ms${secret ? "" : STATE_WARNING}${tasksSecret ? "" : RUNS_WARNING}${protection}`,
      close: async () => sqlite.close(),
    };
  }
  if (!url) return { tasks: { runs: durableRuns, ...ttl }, requestState, auth, describe: `tasks in memory (this process only)${protection}`, close: async () => {} };

  const { redisTaskStore } = await import("h3-mcp/tasks/redis");
  // The key owners are hashed under in Redis: required as soon as tasks are bound to callers (the same on
  // every instance, like the requestState secret).
  const leaseMs = envMs(env, "MCP_TASKS_LEASE_MS", DEMO_LEASE_MS);
  const tasksSecret = env.MCP_TASKS_SECRET || undefined;
  const store = redisTaskStore({ url, prefix: DEMO_PREFIX, leaseMs, secret: tasksSecret });
  const warning = secret ? "" : STATE_WARNING;
  // A run's record (input, checkpoint, answers) is sealed under the store's secret: without it the durable
  // tools are listed but answer why they cannot run.
  const runsNote = tasksSecret ? "" : RUNS_WARNING;
  const executor = await demoExecutor(env, url);
  const executorNote = executor ? "; durable runs executed by worker processes (npm run worker) through BullMQ" : "";
  return {
    tasks: { store, runs: tasksSecret ? durableRuns : [], ...ttl, ...(executor && { executor }) },
    requestState,
    auth,
    describe: `tasks in Redis at ${url}, prefix "${DEMO_PREFIX}", lease ${leaseMs} ms${warning}${runsNote}${executorNote}${protection}`,
    async close() {
      await executor?.close();
      await store.close();
    },
  };
}

/**
 * With MCP_TASKS_EXECUTOR=bullmq, the runs found by name go to a BullMQ queue in the same Redis, for
 * `npm run worker` processes to run (docs/executors.md); unset, they run in the instance that created them.
 */
async function demoExecutor(env: NodeJS.ProcessEnv, url: string) {
  const kind = env.MCP_TASKS_EXECUTOR || undefined;
  if (kind === undefined) return undefined;
  if (kind !== "bullmq") throw new TypeError(`MCP_TASKS_EXECUTOR must be bullmq or unset, got ${JSON.stringify(kind)}`);
  const { bullmqExecutor } = await import("h3-mcp/tasks/bullmq");
  return bullmqExecutor({ url });
}

/**
 * The demo's protection: JWT access tokens (RFC 9068) of MCP_AUTH_ISSUER, issued for this server, with scope
 * `mcp` on every request; `mcp:admin` implies `mcp`, so an admin token does everything.
 */
async function demoAuth(env: NodeJS.ProcessEnv): Promise<McpAuth | undefined> {
  const issuer = env.MCP_AUTH_ISSUER || undefined;
  if (!issuer) return undefined;
  const { jwtVerifier, mcpAuth } = await import("h3-mcp/auth");
  return mcpAuth({
    resource: env.MCP_AUTH_RESOURCE || `http://${env.HOST ?? "127.0.0.1"}:${env.PORT ?? 3000}/mcp`,
    verifier: jwtVerifier({ issuers: [{ issuer }] }),
    scopes: ["mcp"],
    scopeHierarchy: { "mcp:admin": ["mcp"] },
    metadata: { resource_name: "h3-mcp demo" },
  });
}

/** A database address without its password, for the banner. */
function redacted(address: string): string {
  try {
    const parsed = new URL(address);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(DATABASE_URL)";
  }
}
