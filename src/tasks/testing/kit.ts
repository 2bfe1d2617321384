// What every case of the kit works with: the store's kit options, a fresh logical server per call (its
// stores opened through the kit and closed after the case), shape checks, and small client helpers.
import type { McpTasksOptions } from "../plugin.ts";
import type { MaybePromise, TaskStore } from "../store.ts";
import { equal, eventually, ok } from "./assert.ts";
import { call, TASKS, type CallOptions, type Fetcher } from "./client.ts";

/** A message the kit reads, by what it must be (for `checkShape`). */
export type TaskShape = "createTask" | "getTask" | "updateTask" | "cancelTask" | "taskNotification" | "errorResponse";

/** The test runner's two functions, as vitest, node:test, mocha or jasmine name them. */
export interface KitRunner {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
}

/** What the kit needs to know of a store. */
export interface TaskStoreKitOptions {
  /** Names the store in the tests' titles. */
  name: string;
  /**
   * The stores of one fresh logical server (an empty keyspace, for example a new key prefix), one per
   * instance. Called at least once per test. With two or more, each test's requests alternate between the
   * instances, as behind a round-robin balancer.
   */
  open(): MaybePromise<TaskStore[]>;
  /**
   * Whether the store is shared by several instances (its `shared`): it decides which cases apply and how
   * long the kit waits for an effect. The kit checks it against the stores `open` gives.
   */
  shared: boolean;
  /** Releases what one `open` gave (closes connections), after the test. */
  close?(stores: TaskStore[]): MaybePromise<void>;
  /**
   * Makes one store's instance as good as gone (its process killed: its lease left to lapse, nothing more
   * renewed or heard). Give it to run the lost-instance case on a shared store.
   */
  loseInstance?(store: TaskStore): MaybePromise<void>;
  /**
   * Whether the store keeps runs found by name (`claim`, `release`, `claimable`, `loadRun`, `saveRun`, and
   * `NewTask.run`). With it the kit checks claims, fencing, hand-offs and kept records; without it, that
   * the store has none of those methods (it serves closures only). Default false.
   */
  runs?: boolean;
  /** How long a change may take to reach every instance, in ms. Default: 3000 for a shared store, 500 otherwise. */
  settleMs?: number;
  /** `describe` and `it` of your test runner. */
  runner: KitRunner;
  /**
   * Further checks of every message the kit reads, by kind (for example against the official schemas):
   * throw to fail the test.
   */
  checkShape?(kind: TaskShape, value: unknown): void;
}

/** Client capabilities of a tasks client that can answer elicitations. */
export const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

/** The `_meta` key every 2026-07-28 result carries, which results are compared without. */
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** A case's view of the kit. */
export interface KitCase {
  /** The stores of each instance of a fresh logical server. */
  stores(): Promise<TaskStore[]>;
  /** The `mcpTasks` options of each instance of a fresh logical server (its own stores). */
  instances(): Promise<McpTasksOptions[]>;
  /** Whether the store is shared (several instances). */
  readonly shared: boolean;
  readonly settleMs: number;
  shape(kind: TaskShape, value: unknown): void;
  /** Retries `check` until it passes, for at most `settleMs`. */
  until<T>(check: () => T | Promise<T>): Promise<T>;
}

/** Declares one test: opens stores on demand, closes every one after. */
export function kitTest(kit: TaskStoreKitOptions, shared: boolean, name: string, body: (c: KitCase) => Promise<void>): void {
  const settleMs = kit.settleMs ?? (shared ? 3000 : 500);
  kit.runner.it(name, async () => {
    const opened: TaskStore[][] = [];
    const stores = async () => {
      const fresh = await kit.open();
      opened.push(fresh);
      ok(fresh.length >= 1, "open() gives at least one store");
      for (const store of fresh) equal(store.shared, shared, "a store's `shared`, as the kit was told");
      return fresh;
    };
    const c: KitCase = {
      stores,
      instances: async () => (await stores()).map((store) => ({ store })),
      shared,
      settleMs,
      shape: (kind, value) => kit.checkShape?.(kind, value),
      until: (check) => eventually(check, settleMs),
    };
    try {
      await body(c);
    } finally {
      for (const stores of opened) await kit.close?.(stores);
    }
  });
}

/** A JSON-RPC error response with this code (checked as an error response); its error. */
export function errorOf(c: KitCase, body: any, code: number): any {
  c.shape("errorResponse", body);
  equal(body?.error?.code, code, `expected the JSON-RPC error ${code}, got ${JSON.stringify(body)}`);
  return body.error;
}

/** A result's own fields: without the server's serverInfo `_meta`, for comparing a result exactly. */
export function ownFields(result: any): any {
  if (!result?._meta || !(SERVER_INFO in result._meta)) return result;
  const { [SERVER_INFO]: _info, ...meta } = result._meta;
  const { _meta: _all, ...fields } = result;
  return Object.keys(meta).length ? { ...fields, _meta: meta } : fields;
}

/** tools/call, tasks/get, tasks/update and tasks/cancel of a tasks client. */
export function tasksClient(app: Fetcher, opts: CallOptions = {}) {
  const o = { caps, ...opts };
  return {
    create: async (name: string, args?: Record<string, unknown>) => (await call(app, "tools/call", { name, ...(args && { arguments: args }) }, o)).body.result,
    get: (taskId: string) => call(app, "tasks/get", { taskId }, o),
    update: (taskId: string, inputResponses: unknown) => call(app, "tasks/update", { taskId, inputResponses }, o),
    cancel: (taskId: string) => call(app, "tasks/cancel", { taskId }, o),
  };
}
