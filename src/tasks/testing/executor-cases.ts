// The executor kit's cases (`taskExecutorSuite`): what any executor (docs/executors.md) must do, checked
// over the wire with web instances and workers in this process on one shared store (executor-kit.ts).
import { equal, includes, ok } from "./assert.ts";
import { STORE_RETRY_AFTER_SECONDS } from "../../protocol/errors.ts";
import { META } from "../../protocol/types.ts";
import { call, modernRequest, sseReader, type Fetcher } from "./client.ts";
import { caps, tasksClient } from "./kit.ts";
import { executorTest, type CaseOptions, type Cluster, type TaskExecutorKitOptions } from "./executor-kit.ts";

export type { ExecutorUnderTest, TaskExecutorKitOptions } from "./executor-kit.ts";


/**
 * Registers the executor test suite with your test runner: where runs execute, what reaches clients through
 * any web instance, cancel, closures, repeated and refused starts, a worker's drain, and the host's answers.
 *
 * @example
 * // describe and it from your test runner (vitest, node:test, …)
 * taskExecutorSuite({
 *   name: "my queue",
 *   open: (count) => Array.from({ length: count }, () => redisTaskStore({ url, prefix, secret })),
 *   close: (stores) => Promise.all(stores.map((s) => s.close())),
 *   executor: () => { const executor = myExecutor(); return { executor, serve: (host) => myWorker(host), close: () => executor.close() }; },
 *   runner: { describe, it },
 * });
 */
export function taskExecutorSuite(kit: TaskExecutorKitOptions): void {
  const test = (name: string, body: (c: Cluster) => Promise<void>, options?: CaseOptions) => executorTest(kit, name, body, options);
  const statusOf = async (app: Fetcher, taskId: string) => (await tasksClient(app).get(taskId)).body.result;
  // The attempt a task's `_meta` tells, told apart from no key at all (none before the first claim).
  const attemptOf = (meta: Record<string, unknown> | undefined) => (meta !== undefined && META.attempt in meta ? meta[META.attempt] : "absent");
  const untilStatus = (c: Cluster, app: Fetcher, taskId: string, status: string) =>
    c.until(async () => {
      const task = await statusOf(app, taskId);
      equal(task?.status, status, `task ${taskId} status`);
      return task;
    });

  kit.runner.describe(`task executor: ${kit.name}`, () => {
    test("runs a named run in a worker, never in the web instance that created it, with the attempt the executor was given", async (c) => {
      await c.worker("worker-a");
      const handle = await tasksClient(c.web).create("where", { n: 7 });
      equal(handle?.status, "working", "the handle answers working");
      const done = await untilStatus(c, c.web, handle.taskId, "completed");
      equal(done.result.structuredContent, { where: "worker-a", n: 7, attempt: 1 }, "the worker's copy of the run ran, with the input the tool gave");
      equal(c.seen.started, [`${handle.taskId}:1:worker-a`], "one attempt, in the worker");
      // An executor that does not redeliver may be started again for the same attempt (its key dedupes it).
      ok(c.starts.length >= 1, "the creating instance started the attempt");
      for (const start of c.starts) includes(start, { taskId: handle.taskId, name: "kit.where", version: 1, input: { n: 7 }, attempt: 1 });
      for (const plugin of c.webPlugins) equal(plugin.stats.localTasks, 0, "no run is in a web instance");
    });

    test("shows no attempt until a worker claims the task, then attempt 1, on tasks/get, the handle and a task that ended unclaimed", async (c) => {
      const handle = await tasksClient(c.webApps[0]!).create("hold");
      equal(attemptOf(handle._meta), "absent", "the handle tells no attempt");
      const waiting = await statusOf(c.webApps[1]!, handle.taskId);
      equal(waiting.status, "working", "stored, waiting for a worker");
      equal(attemptOf(waiting._meta), "absent", "no attempt has begun: tasks/get tells none");
      // Cancelled before any worker claimed it: the kept answer of a task that ended unclaimed tells none either.
      const unclaimed = await tasksClient(c.webApps[0]!).create("hold");
      equal((await tasksClient(c.webApps[1]!).cancel(unclaimed.taskId)).body.result?.resultType, "complete", "tasks/cancel acks");
      const cancelled = await untilStatus(c, c.web, unclaimed.taskId, "cancelled");
      equal(attemptOf(cancelled._meta), "absent", "a task cancelled before its first claim tells no attempt");

      await c.worker("worker-a");
      const held = await c.until(async () => {
        const task = await statusOf(c.webApps[1]!, handle.taskId);
        equal(task.statusMessage, "Holding in worker-a", "the worker holds the task");
        return task;
      });
      equal(attemptOf(held._meta), 1, "the worker's claim is attempt 1");
      await tasksClient(c.web).cancel(handle.taskId);
      const ended = await untilStatus(c, c.webApps[0]!, handle.taskId, "cancelled");
      equal(attemptOf(ended._meta), 1, "the task that ended keeps the attempt that held it");
      equal(c.seen.started, [`${handle.taskId}:1:worker-a`], "only the claimed task ran");
    });

    test("status messages, input rounds and the result reach the client through either web instance", async (c) => {
      await c.worker("worker-a");
      const [a, b] = c.webApps;
      const { taskId } = await tasksClient(a!).create("ask");
      const parked = await untilStatus(c, b!, taskId, "input_required");
      equal(parked.statusMessage, "Asking from worker-a", "the worker's status message, read on the other instance");
      equal(Object.keys(parked.inputRequests), ["confirm"], "the worker's input request");
      equal((await statusOf(a!, taskId)).status, "input_required", "the same on the creating instance");
      const ack = await tasksClient(b!).update(taskId, { confirm: { action: "accept", content: { confirm: true } } });
      equal(ack.status, 200, "tasks/update answered");
      const done = await untilStatus(c, a!, taskId, "completed");
      equal(done.result.content, [{ type: "text", text: "worker-a: confirmed" }], "the answer reached the worker's run");
    });

    test("tasks/cancel on a web instance aborts the run's signal in the worker", async (c) => {
      await c.worker("worker-a");
      const { taskId } = await tasksClient(c.webApps[0]!).create("hold");
      await c.until(async () => equal((await statusOf(c.web, taskId)).statusMessage, "Holding in worker-a"));
      const cancelled = await tasksClient(c.webApps[1]!).cancel(taskId);
      equal(cancelled.body.result?.resultType, "complete", `tasks/cancel acks, not ${JSON.stringify(cancelled.body)}`);
      await c.until(() => equal(c.seen.aborted.length, 1, "the worker's run heard the cancel"));
      ok(c.seen.aborted[0]!.startsWith(`${taskId}:worker-a:`), `the run in worker-a aborted, not ${c.seen.aborted[0]}`);
      equal((await statusOf(c.webApps[0]!, taskId)).status, "cancelled", "cancelled for good");
      equal(c.seen.started, [`${taskId}:1:worker-a`], "never run again");
    });

    test("runs a closure in the web instance, never handing it to the executor", async (c) => {
      await c.worker("worker-a");
      const app = c.webApps[0]!;
      const { taskId } = await tasksClient(app).create("closure");
      const done = await untilStatus(c, app, taskId, "completed");
      equal(done.result.content, [{ type: "text", text: "closure ran in web-0" }]);
      equal(c.starts.length, 0, "the executor was not called");
    });

    test("an attempt started again is still run once", async (c) => {
      const { taskId } = await tasksClient(c.web).create("where", { n: 1 });
      ok(c.starts.length >= 1, "the creating instance started the attempt");
      await c.executor.start(c.starts[0]!);
      await c.worker("worker-a");
      await c.worker("worker-b");
      await untilStatus(c, c.web, taskId, "completed");
      await c.executor.start(c.starts[0]!);
      // A late delivery finds the task final: nothing runs, whenever it arrives.
      await new Promise((resolve) => setTimeout(resolve, 300));
      equal(c.seen.started.filter((s) => s.startsWith(`${taskId}:`)).length, 1, `one attempt ran, not ${JSON.stringify(c.seen.started)}`);
    });

    test(
      "a start that rejects fails the task, naming the executor, and answers the creating call with an error and Retry-After",
      async (c) => {
        const taskId = "kit-refused-task";
        const res = await call(c.webApps[0]!, "tools/call", { name: "where", arguments: { n: 1 } }, { caps });
        equal(res.body.error?.code, -32603, `a -32603 error, not ${JSON.stringify(res.body)}`);
        ok(String(res.body.error?.message).includes("the kit refuses this attempt"), `the executor's reason in ${res.body.error?.message}`);
        equal(res.status, 503, "HTTP 503: try again");
        equal(res.res.headers.get("retry-after"), String(STORE_RETRY_AFTER_SECONDS), "Retry-After says when, as for an unreachable task store");
        const failed = await untilStatus(c, c.webApps[1]!, taskId, "failed");
        includes(failed.error, { code: -32603, data: { reason: "executor", executor: c.executor.name } }, "the task failed, naming the executor");
        equal(c.seen.started, [], "nothing ran");
      },
      { refuse: true, taskId: "kit-refused-task" },
    );

    test("a worker's drain hands its attempt off: another worker runs the next attempt from its checkpoint", async (c) => {
      const first = await c.worker("worker-a");
      const { taskId } = await tasksClient(c.web).create("hold");
      await c.until(async () => equal((await statusOf(c.web, taskId)).statusMessage, "Holding in worker-a"));
      await c.worker("worker-b");
      await first.stop();
      ok(c.seen.aborted[0]?.startsWith(`${taskId}:worker-a:`), `the run in worker-a was stopped by the drain, not ${JSON.stringify(c.seen.aborted)}`);
      const done = await untilStatus(c, c.web, taskId, "completed");
      equal(done.result.content, [{ type: "text", text: 'attempt 2 in worker-b from {"savedBy":1}' }], "attempt 2 ran in the other worker from attempt 1's checkpoint");
      equal(c.seen.started, [`${taskId}:1:worker-a`, `${taskId}:2:worker-b`], "exactly two attempts, one per worker");
      equal(c.seen.wrapped, [`${taskId}:1:worker-a:hold`, `${taskId}:2:worker-b:hold`], "each attempt went through wrapTaskRun in its worker, with its number");
    });

    test("an attempt in a worker is held to its tool's outputSchema, runs inside wrapTaskRun, and is told to listen streams", async (c) => {
      const { taskId } = await tasksClient(c.webApps[0]!).create("strict");
      // Listened to on the other web instance before any worker runs it: it waits for its first attempt.
      const stream = sseReader(await c.webApps[1]!.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "kit-watch" })));
      const settleMs = kit.settleMs ?? 10_000;
      const frame = async () => {
        let message = await stream.next(settleMs);
        while (message?.method !== "notifications/tasks") message = await stream.next(settleMs);
        return { status: message.params.status, attempt: attemptOf(message.params._meta) };
      };
      try {
        equal(await frame(), { status: "working", attempt: "absent" }, "the task as created: no attempt claimed yet, none told");
        await c.worker("worker-a");
        equal(await frame(), { status: "working", attempt: 1 }, "the worker's claim of attempt 1, heard on another instance");
        equal(await frame(), { status: "failed", attempt: 1 }, "then its end");
      } finally {
        await stream.close();
      }
      const failed = await statusOf(c.web, taskId);
      includes(failed.error, { code: -32603, message: "Tool strict returned structuredContent that does not match its outputSchema" }, "the tool's outputSchema refused the worker's result");
      equal(c.seen.wrapped, [`${taskId}:1:worker-a:strict`], "the run went through wrapTaskRun in the worker, as attempt 1 of the tool that created it");
    });

    test("a worker's drain spends no attempt: handed off by two drains, a run allowed 2 attempts completes as attempt 3", async (c) => {
      const first = await c.worker("worker-a");
      const { taskId } = await tasksClient(c.web).create("relay");
      await c.until(async () => equal((await statusOf(c.web, taskId)).statusMessage, "Relaying attempt 1 in worker-a"));
      const second = await c.worker("worker-b");
      await first.stop();
      await c.until(async () => equal((await statusOf(c.web, taskId)).statusMessage, "Relaying attempt 2 in worker-b"));
      await c.worker("worker-c");
      await second.stop();
      const done = await untilStatus(c, c.web, taskId, "completed");
      equal(done.result.content, [{ type: "text", text: "attempt 3 in worker-c after worker-a, worker-b" }], "attempt 3 ran from the checkpoint both drained attempts carried on");
      equal(c.seen.started, [`${taskId}:1:worker-a`, `${taskId}:2:worker-b`, `${taskId}:3:worker-c`], "one attempt per worker");
    });

    test("a worker's host: gone for an unknown task, unserved for a run it does not serve, and fail ends a task naming the executor", async (c) => {
      const { plugin: bare } = await c.worker("worker-bare", { runs: false });
      equal(await bare.host.execute("no-such-task"), { outcome: "gone" }, "an unknown task is gone");
      const { taskId } = await tasksClient(c.web).create("hold");
      const unserved = await bare.host.execute(taskId);
      equal(unserved, { outcome: "unserved", name: "kit.hold", version: 1 }, "a run this worker does not serve");
      await bare.host.fail(taskId, "The queue gave up on this run");
      const failed = await untilStatus(c, c.web, taskId, "failed");
      includes(failed.error, { code: -32603, message: "The queue gave up on this run", data: { reason: "executor", executor: c.executor.name } });
      equal(await bare.host.execute(taskId), { outcome: "gone" }, "a final task is gone");
    });
  });
}
