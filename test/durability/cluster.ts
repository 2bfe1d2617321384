// Real demo processes (examples/demo/server.ts) sharing one real store: the cluster the durability tests
// kill, stop, continue and drain. The store is a real redis-server unless `backend` names another (the
// SQLite suites give a file, test/sqlite/demo-cluster.ts). Each instance is a child process ended by its
// pid; its client speaks MCP over real HTTP. Call `demoCluster()` at the top of a test file: it registers
// the file's hooks.
import { afterAll, beforeAll, vi } from "vitest";
import { createTestClient, type TestClient } from "../../src/tasks/testing/index.ts";
import { overHttp, startDemo, type DemoProcess } from "../helpers/demo-process.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

/** The `_meta` key that carries a named run's attempt on tasks/get and notifications. */
export const ATTEMPT = "io.github.h3-mcp/attempt";

export interface Instance extends DemoProcess {
  readonly name: string;
  readonly client: TestClient;
}

export interface ClusterOptions {
  /** MCP_TASKS_LEASE_MS of every instance. */
  leaseMs: number;
  /** MCP_DRAIN_MS of every instance. */
  drainMs: number;
  /** More environment for every instance (MCP_TASK_TTL_MS, say). */
  env?: Record<string, string>;
  /** The store every instance shares; default a throwaway redis-server (REDIS_URL). */
  backend?: ClusterBackend;
}

/** A store the demos share, by the environment that selects it. */
export interface ClusterBackend {
  /** Starts the store (before the file's tests). */
  open(): Promise<void>;
  /** The demo's environment that selects it (REDIS_URL=…, MCP_TASKS_SQLITE=…). */
  env(): Record<string, string>;
  /** Stops and removes it (after the file's tests, every demo killed). */
  close(): Promise<void>;
}

/** A throwaway redis-server for the cluster. */
function redisBackend(): ClusterBackend & { readonly server: RedisServer | undefined } {
  let server: RedisServer | undefined;
  return {
    get server() {
      return server;
    },
    async open() {
      server = await startRedis();
    },
    env: () => ({ REDIS_URL: server!.url }),
    close: async () => server?.stop(),
  };
}

export interface Cluster {
  /** The cluster's redis-server (with the default backend). */
  readonly redis: RedisServer;
  readonly leaseMs: number;
  /** Starts one more demo process on the cluster's Redis. */
  start(name: string, env?: Record<string, string>): Promise<Instance>;
  /** Every instance started, live or not. */
  readonly instances: readonly Instance[];
  /** What every instance printed: a run's next attempt may start on any live one. */
  logs(): string;
  /** The attempts at a demo task of a run found by name, as the instances printed them (examples/demo/tools/durable.ts). */
  attempts(taskId: string): Attempts;
}

/** Where each attempt at a task started (and from which step), and where each stopped early. */
export interface Attempts {
  started: { instance: string; attempt: number; from: number | undefined }[];
  stopped: { instance: string; attempt: number; after: number; reason: string }[];
}

export function demoCluster(options: ClusterOptions): Cluster {
  const instances: Instance[] = [];
  const redis = options.backend ? undefined : redisBackend();
  const backend = options.backend ?? redis!;
  beforeAll(() => backend.open(), 30_000);
  afterAll(async () => {
    for (const i of instances) i.signal("SIGCONT");
    await Promise.all(instances.map((i) => i.stop("SIGKILL")));
    await backend.close();
  });
  return {
    get redis() {
      if (!redis?.server) throw new Error("this cluster's store is not Redis");
      return redis.server;
    },
    leaseMs: options.leaseMs,
    instances,
    logs: () => instances.map((i) => i.output()).join("\n"),
    attempts(taskId) {
      const found: Attempts = { started: [], stopped: [] };
      for (const i of instances) {
        for (const line of i.output().split("\n")) {
          const start = new RegExp(`^durable_(?:steps|ask) ${taskId}: attempt (\\d+)(?: from step (\\d+))?$`).exec(line);
          if (start) found.started.push({ instance: i.name, attempt: Number(start[1]), from: start[2] === undefined ? undefined : Number(start[2]) });
          const stop = new RegExp(`^durable_steps ${taskId}: attempt (\\d+) stopped after step (\\d+): (.*)$`).exec(line);
          if (stop) found.stopped.push({ instance: i.name, attempt: Number(stop[1]), after: Number(stop[2]), reason: stop[3]! });
        }
      }
      found.started.sort((x, y) => x.attempt - y.attempt);
      found.stopped.sort((x, y) => x.attempt - y.attempt);
      return found;
    },
    async start(name, env = {}) {
      const demo = await startDemo({
        ...backend.env(),
        MCP_TASKS_SECRET: "durability-test-secret",
        MCP_REQUEST_STATE_SECRET: "durability-test-state",
        MCP_TASKS_LEASE_MS: String(options.leaseMs),
        MCP_DRAIN_MS: String(options.drainMs),
        ...options.env,
        ...env,
      });
      const instance: Instance = Object.assign(demo, { name, client: createTestClient(overHttp(demo.url), { timeoutMs: 30_000, pollMs: 20 }) });
      instances.push(instance);
      return instance;
    },
  };
}

/** A task as tasks/get answers it, result fields included, and the attempt its `_meta` tells. */
export async function taskWithMeta(client: TestClient, taskId: string): Promise<{ status: string; attempt: number | undefined; task: any }> {
  const task = await client.send("tasks/get", { taskId });
  return { status: task.status, attempt: task._meta?.[ATTEMPT], task };
}

/** Retries `check` until it passes, for waits that span leases and process starts. */
export const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 20_000) => vi.waitFor(check, { timeout: timeoutMs, interval: 25 });

/** Creates a task with `tool` and returns its id. */
export async function createTask(client: TestClient, tool: string, args?: Record<string, unknown>): Promise<string> {
  const handle = await client.callTool(tool, args as never);
  if (handle.resultType !== "task") throw new Error(`${tool} answered ${JSON.stringify(handle)}, not a task`);
  return handle.taskId;
}

/** The last step durable_steps reported in its status message (0 before the first). */
export async function stepShown(client: TestClient, taskId: string): Promise<number> {
  const { statusMessage } = await client.getTask(taskId);
  return Number(/^Step (\d+)\//.exec(statusMessage ?? "")?.[1] ?? 0);
}

/** An accepted elicitation form with `{ value }`. */
export const accept = (value: string) => ({ action: "accept", content: { value } });

/** What `follow` saw of a task, each list without repeats in a row. */
export interface Followed {
  statuses: string[];
  attempts: number[];
  /** Status messages, with the attempt that showed them. */
  messages: { attempt: number | undefined; message: string }[];
  /** The open input requests' keys, joined by commas, each time they changed. */
  asked: string[];
  /** The final task. */
  task: any;
}

/**
 * Follows a task by polling `client` until it is final, recording every status seen: a task carried from
 * one instance to the next must read `working` or `input_required` all along, never anything in between.
 */
export async function follow(client: TestClient, taskId: string, timeoutMs = 30_000): Promise<Followed> {
  const statuses: string[] = [];
  const attempts: number[] = [];
  const messages: Followed["messages"] = [];
  const asked: string[] = [];
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { status, attempt, task } = await taskWithMeta(client, taskId);
    if (statuses.at(-1) !== status) statuses.push(status);
    if (attempt !== undefined && attempts.at(-1) !== attempt) attempts.push(attempt);
    if (task.statusMessage !== undefined && messages.at(-1)?.message !== task.statusMessage) messages.push({ attempt, message: task.statusMessage });
    const keys = Object.keys(task.inputRequests ?? {}).join(",");
    if (keys && asked.at(-1) !== keys) asked.push(keys);
    if (status === "completed" || status === "failed" || status === "cancelled") return { statuses, attempts, messages, asked, task };
    if (Date.now() > end) throw new Error(`task ${taskId} is still ${status} after ${timeoutMs} ms (seen ${statuses.join(" → ")})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
