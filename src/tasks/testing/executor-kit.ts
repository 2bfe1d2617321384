// The executor kit's harness: what it needs of an executor, the runs and tools of its instances (each
// instance has its own copy of each run, under the same name, so a run says where it ran), and one
// case's logical server: two web instances behind a round-robin and workers made on demand, all in this
// process on one shared store, fed by the executor under test. executor-cases.ts holds the cases.
import { mcpTask } from "../../features/task-api.ts";
import { defineTool } from "../../features/tools.ts";
import type { McpPlugin } from "../../features/extension-plugin.ts";
import { defineMcpHandler } from "../../transport/handler.ts";
import type { TaskAttempt, TaskExecutionHost, TaskExecutor } from "../executor.ts";
import { mcpTasks, type McpTasksPlugin } from "../plugin.ts";
import type { MaybePromise, TaskStore } from "../store.ts";
import { defineTaskRun } from "../task-runs.ts";
import { eventually, ok } from "./assert.ts";
import { appFor, roundRobin, type Fetcher } from "./client.ts";
import type { KitRunner } from "./kit.ts";
import { askConfirm } from "./tasks-app.ts";

/** The executor under test, for one fresh logical server. */
export interface ExecutorUnderTest {
  /** What web instances and workers are given (`mcpTasks({ executor })`). */
  readonly executor: TaskExecutor;
  /**
   * Makes `host` (a worker's `tasks.host`) a worker: the executor delivers attempts to it from now on,
   * calling `host.execute(taskId)`. `stop` drains it with a deadline of 0 (its retryable runs are handed
   * off and delivered elsewhere) and delivers to it no more.
   */
  serve(host: TaskExecutionHost): MaybePromise<{ stop(): Promise<unknown> }>;
  /** Releases what the executor opened, after the test (its workers were stopped before). */
  close?(): MaybePromise<void>;
}

/** What the executor kit needs. */
export interface TaskExecutorKitOptions {
  /** Names the executor in the tests' titles. */
  name: string;
  /**
   * `count` stores of one fresh logical server, one per instance (web instances and workers): a shared
   * store that keeps runs found by name (`redisTaskStore()` with a new prefix and a `secret`, for example).
   */
  open(count: number): MaybePromise<TaskStore[]>;
  /** Releases what one `open` gave, after the test. */
  close?(stores: TaskStore[]): MaybePromise<void>;
  /** The executor for one fresh logical server (a new queue, for example). */
  executor(): MaybePromise<ExecutorUnderTest>;
  /** How long an effect may take to reach every instance through the executor, in ms. Default 10 000. */
  settleMs?: number;
  /** `describe` and `it` of your test runner. */
  runner: KitRunner;
}

/** What the kit's runs tell the cases: where each attempt ran, and what it saw. */
export interface Seen {
  /** `taskId:attempt:instance` per attempt started. */
  readonly started: string[];
  /** `taskId:instance:reason` per run whose signal aborted. */
  readonly aborted: string[];
  /** `taskId:attempt:instance:tool` per run the plugins' wrapTaskRun wrapped (a closure's attempt is `undefined`). */
  readonly wrapped: string[];
}

/** A plugin recording each run its `wrapTaskRun` wraps on instance `label`. */
function wrapRecorder(label: string, seen: Seen): McpPlugin {
  return {
    name: "kit-recorder",
    wrapTaskRun(task, next) {
      seen.wrapped.push(`${task.taskId}:${task.attempt}:${label}:${task.tool.name}`);
      return next();
    },
  };
}

/** The kit's runs as one instance (`label`) has them: same names and versions everywhere. */
function kitRuns(label: string, seen: Seen) {
  const began = (taskId: string, attempt: number) => seen.started.push(`${taskId}:${attempt}:${label}`);
  const untilAborted = (task: { taskId: string; signal: AbortSignal }) =>
    new Promise<never>((_, reject) => {
      const abort = () => {
        const reason = task.signal.reason;
        seen.aborted.push(`${task.taskId}:${label}:${reason instanceof Error ? reason.message : String(reason)}`);
        reject(reason);
      };
      if (task.signal.aborted) abort();
      else task.signal.addEventListener("abort", abort, { once: true });
    });
  return {
    where: defineTaskRun({
      name: "kit.where",
      run(task, input: { n: number }) {
        began(task.taskId, task.attempt);
        return { content: [{ type: "text", text: `ran in ${label}` }], structuredContent: { where: label, n: input.n, attempt: task.attempt } };
      },
    }),
    ask: defineTaskRun({
      name: "kit.ask",
      async run(task) {
        began(task.taskId, task.attempt);
        task.update({ statusMessage: `Asking from ${label}` });
        const answers = await task.requestInput({ confirm: askConfirm });
        const confirmed = answers.confirm?.action === "accept" && answers.confirm.content?.confirm === true;
        return `${label}: ${confirmed ? "confirmed" : "not confirmed"}`;
      },
    }),
    hold: defineTaskRun({
      name: "kit.hold",
      maxAttempts: 2,
      async run(task) {
        began(task.taskId, task.attempt);
        if (task.attempt > 1) return `attempt ${task.attempt} in ${label} from ${JSON.stringify(task.checkpoint)}`;
        await task.saveCheckpoint({ savedBy: task.attempt });
        task.update({ statusMessage: `Holding in ${label}` });
        return untilAborted(task);
      },
    }),
    // Held by every attempt a drain may hand off (its budget is 2), finished by the first past it.
    relay: defineTaskRun({
      name: "kit.relay",
      maxAttempts: 2,
      async run(task) {
        began(task.taskId, task.attempt);
        const by = (task.checkpoint as { by: string[] } | undefined)?.by ?? [];
        if (task.attempt > 2) return `attempt ${task.attempt} in ${label} after ${by.join(", ")}`;
        await task.saveCheckpoint({ by: [...by, label] });
        task.update({ statusMessage: `Relaying attempt ${task.attempt} in ${label}` });
        return untilAborted(task);
      },
    }),
  };
}

/** The tools of one instance: each makes a task of its own copy of a kit run; `closure` is a closure. */
function kitTools(runs: ReturnType<typeof kitRuns>, label: string) {
  return [
    defineTool({ name: "where", inputSchema: { type: "object", properties: { n: { type: "integer" } } }, handler: (event, args) => mcpTask(event, { run: runs.where, input: { n: (args.n as number | undefined) ?? 0 } }) }),
    defineTool({ name: "ask", handler: (event) => mcpTask(event, { run: runs.ask, input: {} }) }),
    defineTool({ name: "hold", handler: (event) => mcpTask(event, { run: runs.hold, input: {} }) }),
    defineTool({ name: "relay", handler: (event) => mcpTask(event, { run: runs.relay, input: {} }) }),
    defineTool({ name: "closure", handler: (event) => mcpTask(event, { run: async () => `closure ran in ${label}` }) }),
    // kit.where's result names the instance in `where`, a string: it breaks this tool's outputSchema.
    defineTool({
      name: "strict",
      outputSchema: { type: "object", properties: { where: { type: "integer" } }, required: ["where"] },
      handler: (event) => mcpTask(event, { run: runs.where, input: { n: 0 } }),
    }),
  ];
}

/** One case's logical server: two web instances behind a round-robin, and workers made on demand. */
export interface Cluster {
  /** Both web instances, in turn. */
  readonly web: Fetcher;
  readonly webApps: readonly Fetcher[];
  readonly webPlugins: readonly McpTasksPlugin[];
  readonly seen: Seen;
  /** The attempts web instances handed to the executor. */
  readonly starts: TaskAttempt[];
  readonly executor: TaskExecutor;
  /**
   * Starts worker `label`: a tasks plugin on a store of its own, fed by the executor, installed (as the
   * web instances' are) in a handler with the kit's tools and a plugin recording `wrapTaskRun`.
   */
  worker(label: string, options?: { runs?: boolean }): Promise<{ plugin: McpTasksPlugin; stop(): Promise<unknown> }>;
  until<T>(check: () => T | Promise<T>): Promise<T>;
}

const WORKERS = 3;

/** What a case may ask of the harness: the executor refusing every start, or the ids new tasks get. */
export interface CaseOptions {
  refuse?: boolean;
  taskId?: string;
}

/** Declares one case: a fresh logical server, its workers stopped and its stores closed after it. */
export function executorTest(kit: TaskExecutorKitOptions, name: string, body: (c: Cluster) => Promise<void>, options: CaseOptions = {}): void {
  const settleMs = kit.settleMs ?? 10_000;
  kit.runner.it(name, async () => {
    const stores = await kit.open(2 + WORKERS);
    ok(stores.length === 2 + WORKERS, `open(${2 + WORKERS}) gives ${2 + WORKERS} stores`);
    const under = await kit.executor();
    const stops: (() => Promise<unknown>)[] = [];
    const seen: Seen = { started: [], aborted: [], wrapped: [] };
    const starts: TaskAttempt[] = [];
    const given = under.executor;
    // What web instances are given: the executor under test, its starts recorded (or refused).
    const watched: TaskExecutor = {
      name: given.name,
      redelivers: given.redelivers,
      start: async (attempt) => {
        starts.push(attempt);
        if (options.refuse) throw new Error("the kit refuses this attempt");
        await given.start(attempt);
      },
      ...(given.forget && { forget: (taskId: string) => given.forget!(taskId) }),
    };
    // A web instance's tools make tasks of the very runs its plugin lists.
    const apps = [0, 1].map((i) => {
      const runs = kitRuns(`web-${i}`, seen);
      const plugin = mcpTasks({ store: stores[i]!, runs: Object.values(runs), executor: watched, ...(options.taskId && { newTaskId: () => options.taskId! }) });
      const config = { plugins: [wrapRecorder(`web-${i}`, seen)], extensionPlugins: [plugin] };
      return { plugin, app: appFor(defineMcpHandler({ name: "kit", version: "1", tools: kitTools(runs, `web-${i}`) }, config)) };
    });
    let nextStore = 2;
    const cluster: Cluster = {
      web: roundRobin(apps.map((a) => a.app)),
      webApps: apps.map((a) => a.app),
      webPlugins: apps.map((a) => a.plugin),
      seen,
      starts,
      executor: given,
      async worker(label, workerOptions = {}) {
        ok(nextStore < stores.length, `at most ${WORKERS} workers per case`);
        const runs = kitRuns(label, seen);
        const plugin = mcpTasks({ store: stores[nextStore++]!, runs: workerOptions.runs === false ? [] : Object.values(runs), executor: given });
        // Installed in a handler made like a web instance's, never served: the attempts here find their tool and hooks.
        defineMcpHandler({ name: "kit", version: "1", tools: kitTools(runs, label) }, { plugins: [wrapRecorder(label, seen)], extensionPlugins: [plugin] });
        const served = await under.serve(plugin.host);
        let stopped: Promise<unknown> | undefined;
        const stop = () => (stopped ??= served.stop());
        stops.push(stop);
        return { plugin, stop };
      },
      until: (check) => eventually(check, settleMs, 20),
    };
    try {
      await body(cluster);
    } finally {
      for (const stop of stops) await stop().catch(() => {});
      for (const { plugin } of apps) await plugin.drain({ deadlineMs: 0 });
      await under.close?.();
      await kit.close?.(stores);
    }
  });
}
