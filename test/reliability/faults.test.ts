// Fault injection: each fault of test/reliability/README.md, with the outcome documented there.
import { memoryStore } from "../helpers/memory-store.ts";
import type { H3Event } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit, mcpInput, McpJsonRpcError, type McpTaskContext } from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks, type McpTasksOptions } from "../../src/tasks/index.ts";
import { legacyClient } from "../helpers/legacy.ts";
import {
  activeResources,
  collectGarbage,
  createClock,
  modern,
  mountWithEscapeLog,
  resourceGrowth,
  SCHEMAS,
  shapeIssues,
  sseMessages,
  TASKS,
  turns,
} from "./support.ts";
import { ownFields } from "../helpers/schemas.ts";
import { mountOf } from "../../src/transport/handler.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const askOk = mcpElicit({ message: "Go on?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });

/** An app whose one task tool runs whatever `run` the test hands it next. */
function faultApp(options: McpTasksOptions = {}) {
  const clock = createClock();
  let next: (task: McpTaskContext) => unknown = () => ({ content: [] });
  const contexts = new Map<string, McpTaskContext>();
  const tool = defineTool({
    name: "job",
    handler: (event: H3Event) =>
      mcpTask(event, {
        statusMessage: "Queued",
        run: (task) => {
          contexts.set(task.taskId, task);
          return next(task) as never;
        },
      }),
  });
  const plugin = mcpTasks({ clock: { now: clock.read }, ttlMs: 60_000, ...options });
  const handler = defineMcpHandler({ name: "faults", version: "1", tools: [tool] }, { extensionPlugins: [plugin] });
  const { app, escaped } = mountWithEscapeLog(handler);
  const rpc = async (method: string, params: Record<string, unknown>) => {
    const res = await app.fetch(modern(method, params, { caps }));
    return { status: res.status, text: await res.clone().text(), body: (await res.json()) as any };
  };
  return {
    app,
    handler,
    plugin,
    clock,
    escaped,
    contexts,
    rpc,
    /** Starts a task whose `run` is `run`; resolves with its id. */
    async start(run: (task: McpTaskContext) => unknown): Promise<string> {
      next = run;
      const { body } = await rpc("tools/call", { name: "job" });
      expect(shapeIssues(SCHEMAS.createTask, body.result)).toBeUndefined();
      await turns(2);
      return body.result.taskId;
    },
    get: async (taskId: string) => (await rpc("tasks/get", { taskId })).body,
    listen: async (taskIds: string[], id = "sub") => {
      const res = await app.fetch(modern("subscriptions/listen", { notifications: { taskIds } }, { id, caps }));
      const sse = sseMessages(res);
      await sse.next(); // the acknowledgement
      return sse;
    },
  };
}

const deferred = <T = unknown>() => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

describe("run throws synchronously", () => {
  it.each([
    ["an Error", () => { throw new Error("sync boom"); }, "sync boom"],
    ["a string", () => { throw "plain string"; }, "plain string"],
    ["a number", () => { throw 42; }, "42"],
  ])("%s: the task completes with an isError result carrying the message", async (_name, run, text) => {
    const f = faultApp();
    const taskId = await f.start(run);
    const r = (await f.get(taskId)).result;
    expect(shapeIssues(SCHEMAS.getTask, r)).toBeUndefined();
    expect(r).toMatchObject({ status: "completed", result: { content: [{ type: "text", text }], isError: true } });
    expect(f.escaped).toEqual([]);
  });

  it("a thrown McpJsonRpcError: the task fails with that error", async () => {
    const f = faultApp();
    const taskId = await f.start(() => { throw new McpJsonRpcError(-32001, "quota", { left: 0 }); });
    expect((await f.get(taskId)).result).toMatchObject({ status: "failed", error: { code: -32001, message: "quota", data: { left: 0 } } });
  });
});

describe("run rejects with a non-Error", () => {
  it.each([
    ["a string", "nope", "nope"],
    ["undefined", undefined, "undefined"],
    ["null", null, "null"],
    ["a plain object", { code: -32001, message: "looks like an error" }, "[object Object]"],
  ])("%s: the task completes with an isError result (String of the value)", async (_name, reason, text) => {
    const f = faultApp();
    const taskId = await f.start(() => Promise.reject(reason));
    expect((await f.get(taskId)).result).toMatchObject({ status: "completed", result: { content: [{ type: "text", text }], isError: true } });
  });
});

describe("run never settles", () => {
  it("stays working; tasks/cancel ends it as cancelled and aborts its signal", async () => {
    const f = faultApp();
    const taskId = await f.start(() => new Promise(() => {}));
    expect((await f.get(taskId)).result.status).toBe("working");
    expect(ownFields((await f.rpc("tasks/cancel", { taskId })).body.result)).toEqual({ resultType: "complete" });
    expect((await f.get(taskId)).result.status).toBe("cancelled");
    expect(f.contexts.get(taskId)!.signal.aborted).toBe(true);
  });

  it("left alone, the TTL fails it (Expired), then it reads as unknown, the store empties and nothing of it stays reachable", async () => {
    const f = faultApp({ ttlMs: 1000 });
    const taskId = await f.start(() => new Promise(() => {}));
    const sse = await f.listen([taskId]);
    expect((await sse.next()).params.status).toBe("working");
    const context = new WeakRef(f.contexts.get(taskId)!);
    const signal = f.contexts.get(taskId)!.signal;
    f.contexts.clear();
    f.clock.advance(1000);
    const gone = await f.rpc("tasks/get", { taskId });
    const frame = await sse.next();
    expect(frame.params).toMatchObject({ taskId, status: "failed", statusMessage: "Expired", error: { code: -32603, message: "Task expired before it finished" } });
    expect(signal.aborted).toBe(true);
    const unknown = await f.rpc("tasks/get", { taskId: "00000000-0000-4000-8000-000000000000" });
    expect([gone.status, gone.text]).toEqual([unknown.status, unknown.text]);
    expect(memoryStore(f.plugin).size).toBe(0);
    await sse.close();
    expect(f.plugin.stats.listeners).toBe(0);
    await collectGarbage();
    expect(context.deref()).toBeUndefined();
  });
});

describe("run ignores the signal", () => {
  it("is cancelled at once; what it does afterwards changes nothing", async () => {
    const f = faultApp();
    const resume = deferred();
    let late: { update?: unknown; input?: unknown } = {};
    const taskId = await f.start(async (task) => {
      await resume.promise; // never looks at task.signal
      try {
        task.update({ statusMessage: "still going" });
        late.update = "ignored";
      } catch (error) {
        late.update = error;
      }
      late.input = await task.requestInput({ ok: askOk }).catch((error: { code: string }) => error.code);
      return { content: [{ type: "text", text: "late result" }] };
    });
    await f.rpc("tasks/cancel", { taskId });
    const cancelled = await f.get(taskId);
    resume.resolve(undefined);
    await turns(3);
    expect(late).toEqual({ update: "ignored", input: "TASK_ENDED" });
    expect(await f.get(taskId)).toEqual(cancelled);
    expect(cancelled.result.status).toBe("cancelled");
    expect(cancelled.result.result).toBeUndefined();
  });
});

describe("run returns something that is not a CallToolResult", () => {
  it.each([
    ["a number", 42],
    ["null", null],
    ["undefined", undefined],
    ["content that is not an array", { content: "text" }],
    ["a task handle", { resultType: "task", taskId: "x" }],
  ])("%s: the task fails with -32603", async (_name, value) => {
    const f = faultApp();
    const taskId = await f.start(async () => value);
    const r = (await f.get(taskId)).result;
    expect(shapeIssues(SCHEMAS.getTask, r)).toBeUndefined();
    expect(r).toMatchObject({ status: "failed", error: { code: -32603 } });
    // The same -32603 the synchronous call answers (it goes through the same result path).
    expect(r.error.message).toMatch(/^(Tool \S+ returned something that is not a tool result|The task's run returned something that is not a CallToolResult)$/);
  });

  it("a string: the task completes with it as text, as the synchronous call answers", async () => {
    const f = faultApp();
    const taskId = await f.start(async () => "done");
    expect((await f.get(taskId)).result).toMatchObject({ status: "completed", result: { resultType: "complete", content: [{ type: "text", text: "done" }] } });
  });
});

describe("a listener disconnects mid-stream", () => {
  it("loses only its own stream: its listeners go, the other stream and the task carry on", async () => {
    const f = faultApp();
    const gate = deferred();
    const taskId = await f.start(async (task) => {
      await task.requestInput({ ok: askOk });
      await gate.promise;
      return { content: [] };
    });
    const open = mountOf(f.handler).streams;
    const a = await f.listen([taskId], "a");
    const b = await f.listen([taskId], "b");
    expect((await a.next()).params.status).toBe("input_required");
    expect((await b.next()).params.status).toBe("input_required");
    expect(f.plugin.stats.listeners).toBe(2);
    expect(open.size).toBe(2);
    await f.rpc("tasks/update", { taskId, inputResponses: { ok: { action: "accept", content: { ok: true } } } });
    expect((await a.next()).params.status).toBe("working");
    await a.close(); // gone with frames still to come
    expect(f.plugin.stats.listeners).toBe(1);
    expect(open.size).toBe(1);
    gate.resolve(undefined);
    await turns(2);
    expect((await b.next()).params.status).toBe("working");
    expect((await b.next()).params.status).toBe("completed");
    expect((await f.get(taskId)).result.status).toBe("completed");
    await b.close();
    expect(open.size).toBe(0);
    expect(f.plugin.stats.listeners).toBe(0);
    expect(mountOf(f.handler).hub.size).toBe(0);
  });

  it("a listener that goes away before reading its acknowledgement leaves nothing either", async () => {
    const f = faultApp();
    const taskId = await f.start(() => new Promise(() => {}));
    const open = mountOf(f.handler).streams;
    const before = activeResources();
    const res = await f.app.fetch(modern("subscriptions/listen", { notifications: { taskIds: [taskId], toolsListChanged: true } }, { caps }));
    await res.body!.cancel();
    expect(open.size).toBe(0);
    expect(f.plugin.stats.listeners).toBe(0);
    expect(mountOf(f.handler).hub.size).toBe(0);
    expect(resourceGrowth(before, activeResources())).toEqual({});
  });
});

describe("a creation burst at the cap", () => {
  it("creates exactly max tasks; the rest get the full-store JSON-RPC error, and no handle is dropped", async () => {
    const f = faultApp({ max: 10, ttlMs: 1000 });
    const results = await Promise.all(Array.from({ length: 50 }, () => f.rpc("tools/call", { name: "job" })));
    const handles = results.filter((r) => r.body.result?.resultType === "task").map((r) => r.body.result.taskId);
    const refused = results.filter((r) => r.body.error);
    expect(handles).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect(r.body.error).toEqual({ code: -32603, message: "The task store is full (10 tasks retained); try again later", data: { max: 10 } });
    for (const taskId of handles) expect((await f.get(taskId)).result.status).toBe("completed");
    // Room comes back only as tasks expire.
    expect((await f.rpc("tools/call", { name: "job" })).body.error.code).toBe(-32603);
    f.clock.advance(1000);
    expect((await f.rpc("tools/call", { name: "job" })).body.result.resultType).toBe("task");
  });

  it("canCreateTask turns false at the cap, so a tool can fall back to running synchronously", async () => {
    const clock = createClock();
    const tool = defineTool({ name: "t", handler: (e) => (canCreateTask(e) ? mcpTask(e, { run: () => new Promise(() => {}) }) : "ran inline") });
    const { app } = mountWithEscapeLog(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ max: 3, clock: { now: clock.read } })] }));
    const kinds = await Promise.all(
      Array.from({ length: 8 }, async () => (await (await app.fetch(modern("tools/call", { name: "t" }, { caps }))).json()).result.resultType),
    );
    expect(kinds.filter((k) => k === "task")).toHaveLength(3);
    expect(kinds.filter((k) => k === "complete")).toHaveLength(5);
  });
});

describe("the TTL expires while a task waits for input", () => {
  it("fails the task (listeners see it), rejects requestInput, aborts the signal, then the id is unknown", async () => {
    const f = faultApp({ ttlMs: 5000 });
    let outcome: unknown;
    const taskId = await f.start(async (task) => {
      outcome = await task.requestInput({ ok: askOk }).then(
        () => "answered",
        (error: { code: string }) => error.code,
      );
      return { content: [] };
    });
    expect((await f.get(taskId)).result.status).toBe("input_required");
    const sse = await f.listen([taskId]);
    expect((await sse.next()).params.status).toBe("input_required");
    f.clock.advance(5000);
    const late = await f.rpc("tasks/update", { taskId, inputResponses: { ok: { action: "accept", content: { ok: true } } } });
    expect(late.status).toBe(400);
    expect(late.body.error).toEqual({ code: -32602, message: "Unknown task" });
    expect((await sse.next()).params).toMatchObject({ status: "failed", statusMessage: "Expired" });
    await turns(2);
    expect(outcome).toBe("TASK_ENDED");
    expect(f.contexts.get(taskId)!.signal.aborted).toBe(true);
    await sse.close();
    expect(memoryStore(f.plugin).size).toBe(0);
  });
});

describe("thousands of running tasks expire at once", () => {
  it("each request expires at most 64, oldest first; the rest read as unknown at once and go over the next requests", async () => {
    const f = faultApp({ ttlMs: 1000, max: 150 });
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push(await f.start(() => new Promise(() => {})));
    const aborted = () => ids.filter((id) => f.contexts.get(id)!.signal.aborted);
    f.clock.advance(1000);
    const unknown = await f.rpc("tasks/get", { taskId: "00000000-0000-4000-8000-000000000000" });
    // That request already expired the 64 oldest; the newest is past its expiry but not reached yet.
    expect(aborted()).toEqual(ids.slice(0, 64));
    const newest = await f.rpc("tasks/get", { taskId: ids[149] });
    expect([newest.status, newest.text]).toEqual([unknown.status, unknown.text]);
    expect(aborted()).toEqual(ids.slice(0, 128));
    // The store was full of expired tasks: a creation expires the last 22 and is taken.
    const fresh = await f.start(() => new Promise(() => {}));
    expect(aborted()).toEqual(ids);
    expect((await f.get(fresh)).result.status).toBe("working");
    expect(memoryStore(f.plugin).size).toBe(1);
  });
});

describe("tasks/update races tasks/cancel", () => {
  const answer = { ok: { action: "accept", content: { ok: true } } };
  async function race(order: "update-first" | "cancel-first" | "together") {
    const f = faultApp();
    let outcome: unknown;
    let abortedWhenAnswered: boolean | undefined;
    const taskId = await f.start(async (task) => {
      outcome = await task.requestInput({ ok: askOk }).then(
        (answers) => ((abortedWhenAnswered = task.signal.aborted), answers),
        (error: { code: string }) => error.code,
      );
      await new Promise(() => {}); // keeps working until cancelled
    });
    const update = () => f.rpc("tasks/update", { taskId, inputResponses: answer });
    const cancel = () => f.rpc("tasks/cancel", { taskId });
    const acks =
      order === "update-first" ? [await update(), await cancel()] : order === "cancel-first" ? [await cancel(), await update()] : await Promise.all([update(), cancel()]);
    for (const ack of acks) expect(ownFields(ack.body.result)).toEqual({ resultType: "complete" });
    await turns(2);
    return { outcome, abortedWhenAnswered, status: (await f.get(taskId)).result.status };
  }

  it("update first: run gets the answers, then the cancel ends the task", async () => {
    expect(await race("update-first")).toEqual({ outcome: answer, abortedWhenAnswered: false, status: "cancelled" });
  });

  it("cancel first: the answer is acknowledged but changes nothing; requestInput rejects", async () => {
    expect(await race("cancel-first")).toEqual({ outcome: "TASK_ENDED", abortedWhenAnswered: undefined, status: "cancelled" });
  });

  it("sent together: one of the two outcomes above, never a lost answer or a pending round", async () => {
    for (let i = 0; i < 10; i++) {
      const r = await race("together");
      expect(r.status).toBe("cancelled");
      expect([answer, "TASK_ENDED"]).toContainEqual(r.outcome);
    }
  });
});

describe("the client drops the connection while an MRTR round is pending", () => {
  function mrtrApp() {
    let runs = 0;
    const greet = defineTool({
      name: "greet",
      handler: (event) => {
        runs++;
        const input = mcpInput(event, { ok: askOk });
        if (!input.complete) return input.ask({ state: { round: 1 } });
        return `answered ${JSON.stringify(input.answers.ok?.content)}`;
      },
    });
    const handler = defineMcpHandler({ name: "mrtr", version: "1", tools: [greet] });
    return { ...mountWithEscapeLog(handler), handler, runs: () => runs };
  }

  it("2026-07-28: the server keeps nothing for the round; the client may retry later, even twice, with the same requestState", async () => {
    const { app, handler } = mrtrApp();
    const before = activeResources();
    const first = await (await app.fetch(modern("tools/call", { name: "greet" }, { caps }))).json();
    expect(shapeIssues(SCHEMAS.inputRequired, first.result)).toBeUndefined();
    // The client goes away here. Nothing is held for it:
    expect(mountOf(handler).hub.size).toBe(0);
    expect(mountOf(handler).sessions.size).toBe(0);
    expect(resourceGrowth(before, activeResources())).toEqual({});
    const retry = { name: "greet", inputResponses: { ok: { action: "accept", content: { ok: true } } }, requestState: first.result.requestState };
    for (let i = 0; i < 2; i++) {
      const done = await (await app.fetch(modern("tools/call", retry, { caps }))).json();
      expect(done.result.content[0].text).toBe('answered {"ok":true}');
    }
  });

  it("a request aborted mid-flight aborts the handler's signal", async () => {
    const seen = deferred<boolean>();
    const slow = defineTool({
      name: "slow",
      handler: (event) =>
        new Promise<string>((resolve) => {
          const { signal } = event.context.mcp!;
          signal.addEventListener("abort", () => (seen.resolve(true), resolve("stopped")));
        }),
    });
    const { app } = mountWithEscapeLog(defineMcpHandler({ name: "x", version: "1", tools: [slow] }));
    const controller = new AbortController();
    const pending = app.fetch(modern("tools/call", { name: "slow" }, { caps, signal: controller.signal }));
    await turns(2);
    controller.abort();
    expect(await seen.promise).toBe(true);
    await Promise.resolve(pending).catch(() => {});
  });

  it("legacy session: dropping the POST stream withdraws the server's request, clears its timer, and refuses a late answer", async () => {
    const { app, handler, runs } = mrtrApp();
    const client = await legacyClient(app, "2025-11-25", { elicitation: {} });
    const before = activeResources();
    const res = await client.post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "greet" } });
    const sse = sseMessages(res);
    const ask = await sse.next();
    expect(ask).toMatchObject({ method: "elicitation/create" });
    const session = mountOf(handler).sessions.get(client.sessionId)!;
    expect(session.pending.size).toBe(1);
    await sse.close(); // the client drops the connection
    await turns(2);
    expect(session.pending.size).toBe(0);
    expect(resourceGrowth(before, activeResources())).toEqual({});
    const late = await client.post({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { ok: true } } });
    expect(late.status).toBe(400);
    expect((await late.json()).error.code).toBe(-32600);
    expect(runs()).toBe(1); // the tool did not run again
  });

  it("a task's round does not depend on any connection: answered later from a new request", async () => {
    const f = faultApp();
    const taskId = await f.start(async (task) => {
      const answers = await task.requestInput({ ok: askOk });
      return { content: [{ type: "text", text: JSON.stringify(answers) }] };
    });
    const sse = await f.listen([taskId]);
    await sse.close();
    f.clock.advance(30_000);
    expect((await f.get(taskId)).result.status).toBe("input_required");
    await f.rpc("tasks/update", { taskId, inputResponses: { ok: { action: "decline" } } });
    await turns(2);
    expect((await f.get(taskId)).result).toMatchObject({ status: "completed", result: { content: [{ text: '{"ok":{"action":"decline"}}' }] } });
  });
});
