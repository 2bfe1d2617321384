// What `run` can do and what reaches it, for any store: progress, input rounds, every way a run ends, its
// signal, and tasks/cancel. Effects inside `run` reach tasks/get asynchronously (through the store, maybe
// from another instance), so the cases wait for what they expect instead of sleeping a fixed time.
import { mcpProgress } from "../../features/request-context.ts";
import { mcpTask } from "../../features/task-api.ts";
import { defineTool, type ToolDefinition } from "../../features/tools.ts";
import { defineMcpHandler } from "../../transport/handler.ts";
import { mcpTasks, type McpTasksOptions } from "../plugin.ts";
import { equal, includes, ok } from "./assert.ts";
import { appFor, call, messages, modernRequest, roundRobin, type Fetcher } from "./client.ts";
import { caps, errorOf, kitTest, ownFields, tasksClient, type KitCase, type TaskStoreKitOptions } from "./kit.ts";
import { askConfirm, tasksApp } from "./tasks-app.ts";

export function runCases(kit: TaskStoreKitOptions, shared: boolean): void {
  const test = (name: string, body: (c: KitCase) => Promise<void>) => kitTest(kit, shared, name, body);
  const app = async (c: KitCase, options: McpTasksOptions = {}) => tasksApp(options, { instances: await c.instances() });
  /** A server of fresh instances, each with `tools` and its own plugin. */
  const serverWith = async (c: KitCase, tools: ToolDefinition[]) =>
    roundRobin((await c.instances()).map((own) => appFor(defineMcpHandler({ name: "x", version: "1", tools }, { extensionPlugins: [mcpTasks(own)] }))));
  const create = async (app: Fetcher, name: string, args?: Record<string, unknown>) => tasksClient(app).create(name, args);
  const update = (app: Fetcher, taskId: string, inputResponses: unknown) => tasksClient(app).update(taskId, inputResponses);
  const cancel = (app: Fetcher, taskId: string) => tasksClient(app).cancel(taskId);
  const statusOf = async (app: Fetcher, taskId: string) => (await tasksClient(app).get(taskId)).body.result;
  /** Resolves with the task once tasks/get shows `status`. */
  const untilStatus = (c: KitCase, app: Fetcher, taskId: string, status: string) =>
    c.until(async () => {
      const task = await statusOf(app, taskId);
      equal(task?.status, status, `task ${taskId} status`);
      return task;
    });

  kit.runner.describe("inside run(task)", () => {
    test("task.update sets the statusMessage tasks/get shows", async (c) => {
      const { app: served, gates } = await app(c);
      const { taskId } = await create(served, "render", { frames: 2 });
      gates.open(`frame:${taskId}:1`);
      await c.until(async () => equal((await statusOf(served, taskId)).statusMessage, "Frame 1/2"));
      gates.open(`frame:${taskId}:2`);
      const done = await untilStatus(c, served, taskId, "completed");
      c.shape("getTask", done);
      includes(done, { status: "completed", statusMessage: "Frame 2/2", result: { content: [{ type: "text", text: "Rendered." }] } });
    });

    test("requestInput parks the task, surfaces the requests on every get, and resolves with the answers", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "confirm_delete");
      await untilStatus(c, served, taskId, "input_required");
      for (let i = 0; i < 2; i++) {
        const parked = await statusOf(served, taskId);
        c.shape("getTask", parked);
        equal(parked.status, "input_required");
        equal(Object.keys(parked.inputRequests), ["confirm"]);
      }
      const ack = (await update(served, taskId, { confirm: { action: "accept", content: { confirm: true } } })).body.result;
      equal(ownFields(ack), { resultType: "complete" });
      c.shape("updateTask", ack);
      equal((await untilStatus(c, served, taskId, "completed")).result.content[0].text, "Deleted.");
    });

    test("acks partial answers, keeps the task parked, ignores unknown and consumed keys, and renames a key asked twice", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "two_rounds");
      await untilStatus(c, served, taskId, "input_required");
      equal(Object.keys((await statusOf(served, taskId)).inputRequests).sort(), ["confirm", "name"]);
      await update(served, taskId, { name: { action: "accept", content: { name: "Ada" } }, bogus: { action: "accept" } });
      const partial = await c.until(async () => {
        const task = await statusOf(served, taskId);
        equal(Object.keys(task.inputRequests), ["confirm"]);
        return task;
      });
      equal(partial.status, "input_required");
      await update(served, taskId, { confirm: { action: "accept", content: { confirm: true } } });
      await c.until(async () => equal(Object.keys((await statusOf(served, taskId)).inputRequests ?? {}), ["confirm.2"]));
      // An answer to the consumed key must not be attributed to the new round.
      await update(served, taskId, { confirm: { action: "decline" }, name: { action: "decline" } });
      const still = await statusOf(served, taskId);
      equal(still.status, "input_required");
      equal(Object.keys(still.inputRequests), ["confirm.2"]);
      await update(served, taskId, { "confirm.2": { action: "decline" } });
      const done = await untilStatus(c, served, taskId, "completed");
      equal(JSON.parse(done.result.content[0].text), {
        a: { confirm: { action: "accept", content: { confirm: true } }, name: { action: "accept", content: { name: "Ada" } } },
        b: { confirm: { action: "decline" } },
      });
    });

    test("refuses a second requestInput while a round is open, and a __proto__ key does not hang", async (c) => {
      const outcomes: string[] = [];
      const tool = defineTool({
        name: "overlap",
        handler: (event) =>
          mcpTask(event, {
            async run(task) {
              const first = task.requestInput({ a: askConfirm });
              await task.requestInput({ b: askConfirm }).catch((e) => outcomes.push(e.code));
              await task.requestInput(JSON.parse('{"__proto__": {"method": "elicitation/create", "params": {"message": "p"}}}')).catch((e) => outcomes.push(e.code));
              const answers = await first;
              return { content: [{ type: "text", text: JSON.stringify(answers) }] };
            },
          }),
      });
      const served = await serverWith(c, [tool]);
      const { taskId } = (await call(served, "tools/call", { name: "overlap" }, { caps })).body.result;
      await c.until(() => equal(outcomes, ["INPUT_PENDING", "INPUT_PENDING"]));
      equal(Object.keys((await untilStatus(c, served, taskId, "input_required")).inputRequests), ["a"]);
      await update(served, taskId, { a: { action: "decline" } });
      equal((await untilStatus(c, served, taskId, "completed")).result.content[0].text, '{"a":{"action":"decline"}}');
    });

    test("handles a request key named __proto__ like any other", async (c) => {
      const tool = defineTool({
        name: "proto",
        handler: (event) =>
          mcpTask(event, {
            async run(task) {
              const answers = await task.requestInput(JSON.parse(`{"__proto__": ${JSON.stringify(askConfirm)}}`));
              return { content: [{ type: "text", text: JSON.stringify(answers) }] };
            },
          }),
      });
      const served = await serverWith(c, [tool]);
      const { taskId } = (await call(served, "tools/call", { name: "proto" }, { caps })).body.result;
      const parked = await untilStatus(c, served, taskId, "input_required");
      equal(Object.keys(parked.inputRequests), ["__proto__"]);
      await update(served, taskId, JSON.parse('{"__proto__": {"action": "decline"}}'));
      equal((await untilStatus(c, served, taskId, "completed")).result.content[0].text, '{"__proto__":{"action":"decline"}}');
    });

    test("fails clearly when asking for an input kind the creating request did not declare", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "asks_roots");
      const r = await untilStatus(c, served, taskId, "failed");
      c.shape("getTask", r);
      includes(r, { error: { code: -32021, data: { requiredCapabilities: { roots: {} } } } });
    });

    const endings: [string, Record<string, unknown>][] = [
      ["tool_error", { status: "completed", result: { content: [{ type: "text", text: "upstream refused" }], isError: true } }],
      ["sync_throw", { status: "completed", result: { content: [{ type: "text", text: "sync boom" }], isError: true } }],
      ["non_error_reject", { status: "completed", result: { content: [{ type: "text", text: "a string" }], isError: true } }],
      ["protocol_error", { status: "failed", error: { code: -32603, message: "API rate limit exceeded" } }],
      ["bad_result", { status: "failed", error: { code: -32603 } }],
    ];
    for (const [name, expected] of endings) {
      test(`${name} ends as the chart says`, async (c) => {
        const { app: served } = await app(c);
        const { taskId } = await create(served, name);
        const r = await untilStatus(c, served, taskId, expected.status as string);
        c.shape("getTask", r);
        includes(r, expected);
      });
    }

    test("hands run one signal however late it is first read: aborted when read after a cancel, never for a completed task", async (c) => {
      const release: Record<string, () => void> = {};
      const signals: Record<string, AbortSignal[]> = {};
      const late = defineTool({
        name: "late_signal",
        inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        handler: (event, args) =>
          mcpTask(event, {
            run: async (task) => {
              const key = args.key as string;
              await new Promise<void>((resolve) => (release[key] = resolve));
              signals[key] = [task.signal, task.signal];
              return { content: [] };
            },
          }),
      });
      const served = await serverWith(c, [late]);
      const cancelled = await create(served, "late_signal", { key: "c" });
      const completed = await create(served, "late_signal", { key: "d" });
      await c.until(() => ok(release.c && release.d, "both runs started"));
      await cancel(served, cancelled.taskId);
      await untilStatus(c, served, cancelled.taskId, "cancelled");
      release.c!();
      release.d!();
      await c.until(() => ok(signals.c && signals.d, "both runs read their signal"));
      equal(signals.c![0], signals.c![1], "the same signal every time");
      equal(signals.c![0]!.aborted, true, "a cancelled task's signal, read late");
      equal((signals.c![0]!.reason as DOMException).name, "AbortError");
      await untilStatus(c, served, completed.taskId, "completed");
      equal(signals.d![0]!.aborted, false, "a completed task's signal");
    });
  });

  kit.runner.describe("tasks/cancel", () => {
    test("acks, aborts the signal, reads cancelled, and a late result changes nothing", async (c) => {
      const { app: served, gates, seen } = await app(c);
      const { taskId } = await create(served, "controlled");
      const ack = (await cancel(served, taskId)).body.result;
      equal(ownFields(ack), { resultType: "complete" });
      c.shape("cancelTask", ack);
      await c.until(() => equal(seen.signalAborted, [taskId]));
      equal((await statusOf(served, taskId)).status, "cancelled");
      gates.open(taskId, { content: [{ type: "text", text: "late" }] });
      await c.until(() => equal(seen.lateResults, 1));
      for (let i = 0; i < 2; i++) {
        const after = await statusOf(served, taskId);
        equal(after.status, "cancelled");
        equal(after.result, undefined);
      }
    });

    test("acks a terminal task the same way, and answers -32602 for an unknown one", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "tool_error");
      await untilStatus(c, served, taskId, "completed");
      equal(ownFields((await cancel(served, taskId)).body.result), { resultType: "complete" });
      equal((await statusOf(served, taskId)).status, "completed");
      errorOf(c, (await cancel(served, "00000000-0000-4000-8000-000000000000")).body, -32602);
    });

    test("is never triggered by notifications/cancelled", async (c) => {
      const { app: served } = await app(c);
      const { taskId } = await create(served, "controlled");
      const res = await served.fetch(modernRequest("notifications/cancelled", { requestId: 1, taskId }, { id: null, caps }));
      equal(res.status, 202);
      equal((await statusOf(served, taskId)).status, "working");
      equal((await statusOf(served, taskId)).status, "working");
    });
  });

  kit.runner.describe("the creating call", () => {
    test("a handler that reported progress before making the task sends that frame, then the handle, as SSE", async (c) => {
      const early = defineTool({
        name: "early",
        handler: (event) => {
          mcpProgress(event, 1, 2, "starting");
          return mcpTask(event, { run: () => ({ content: [{ type: "text", text: "done" }] }) });
        },
      });
      const served = await serverWith(c, [early]);
      const res = await served.fetch(modernRequest("tools/call", { name: "early" }, { caps, meta: { progressToken: "p1" } }));
      ok((res.headers.get("content-type") ?? "").startsWith("text/event-stream"), `the answer is SSE, not ${res.headers.get("content-type")}`);
      const sent = await messages(res);
      equal(sent.length, 2, "the progress frame and the handle");
      equal(sent[0], { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p1", progress: 1, total: 2, message: "starting" } });
      c.shape("createTask", sent[1].result);
      equal((await untilStatus(c, served, sent[1].result.taskId, "completed")).result.content[0].text, "done");
    });
  });
}
