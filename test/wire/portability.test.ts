// What lets one handler run on every runtime h3 runs on: nothing random or timed at import (Workers
// forbid both outside a request), task runs handed to the request's waitUntil, and a keep-alive
// interval short enough for Bun's 10 s idle timeout.
import { memoryStore } from "../helpers/memory-store.ts";
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit, mcpInput, mcpRequestState } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { expectError, expectResult, expectShape, S } from "../helpers/schemas.ts";
import { aborted, coreApp } from "../fixtures/core-app.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { useServedApp } from "../helpers/serve.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const ask = mcpElicit({ message: "Colour?", requestedSchema: { type: "object", properties: { c: { type: "string" } } } });
const pick = defineTool({
  name: "pick",
  handler: (event) => {
    const input = mcpInput(event, { c: ask });
    if (!input.complete) return input.ask({ state: { step: 1 } });
    return `state ${JSON.stringify(mcpRequestState(event))}`;
  },
});

describe("at import and mount", () => {
  const forbidden = () => {
    throw new Error("Disallowed operation called within global scope");
  };
  const saved = { randomBytes: crypto.randomBytes, randomFillSync: crypto.randomFillSync, getRandomValues: globalThis.crypto.getRandomValues };
  afterEach(() => {
    Object.assign(crypto, { randomBytes: saved.randomBytes, randomFillSync: saved.randomFillSync });
    syncBuiltinESMExports();
    globalThis.crypto.getRandomValues = saved.getRandomValues;
    vi.restoreAllMocks();
  });

  it("draws no random values and sets no timers, as Workers require; the secret comes with the first round", async () => {
    // Every entry and a handler defined at module scope, loaded fresh under Workers' global-scope rules.
    Object.assign(crypto, { randomBytes: forbidden, randomFillSync: forbidden });
    syncBuiltinESMExports();
    globalThis.crypto.getRandomValues = forbidden as never;
    const timers = [vi.spyOn(globalThis, "setTimeout"), vi.spyOn(globalThis, "setInterval")];
    vi.resetModules();
    const core = await import("../../src/index.ts");
    const tasks = await import("../../src/tasks/index.ts");
    await import("../../machines/index.ts");
    const handler = core.defineMcpHandler({ name: "w", version: "1", tools: [pick] }, { extensionPlugins: [tasks.mcpTasks()] });
    for (const t of timers) expect(t).not.toHaveBeenCalled();

    // Inside a request randomness is allowed again: the first round draws the key.
    Object.assign(crypto, { randomBytes: saved.randomBytes, randomFillSync: saved.randomFillSync });
    syncBuiltinESMExports();
    globalThis.crypto.getRandomValues = saved.getRandomValues;
    const app = appFor(handler);
    const first = await call(app, "tools/call", { name: "pick" }, { caps: { elicitation: {} } });
    expect(first.body.result.resultType).toBe("input_required");
    const retry = await call(
      app,
      "tools/call",
      { name: "pick", inputResponses: { c: { action: "accept", content: { c: "red" } } }, requestState: first.body.result.requestState },
      { caps: { elicitation: {} } },
    );
    expect(expectResult(retry.body, S.callTool).content[0].text).toBe('state {"step":1}');
  });

  it("refuses a keep-alive interval that would flood the stream", () => {
    for (const keepAliveMs of [0, -1, Number.NaN, 50]) {
      expect(() => defineMcpHandler({ name: "k", version: "1", tools: [] }, { keepAliveMs })).toThrow(/keepAliveMs must be/);
    }
  });
});

describe("work after the response", () => {
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
    });
  const handler = defineMcpHandler(
    {
      name: "w",
      version: "1",
      tools: [
        defineTool({
          name: "slow",
          execution: { taskSupport: "required" },
          handler: (event) => mcpTask(event, { run: async () => (await sleep(50), { content: [{ type: "text", text: "done" }] }) }),
        }),
        defineTool({
          name: "ask",
          execution: { taskSupport: "required" },
          handler: (event) =>
            mcpTask(event, {
              async run(task) {
                const answers = await task.requestInput({ c: ask });
                return { content: [{ type: "text", text: `got ${answers.c?.action}` }] };
              },
            }),
        }),
        defineTool({
          name: "stubborn",
          execution: { taskSupport: "required" },
          // Ignores its signal: cancelling must still release the platform.
          handler: (event) => mcpTask(event, { run: () => new Promise(() => {}) }),
        }),
      ],
    },
    { extensionPlugins: [mcpTasks()] },
  );
  const app = appFor(handler);
  const caps = { extensions: { [TASKS]: {} } };

  const caps2 = { elicitation: {}, extensions: { [TASKS]: {} } };

  /** A request as srvx hands it over: the platform's waitUntil on it, and the runtime's name. */
  function withWaitUntil(request: Request, runtime = "node") {
    const kept: Promise<unknown>[] = [];
    Object.defineProperty(request, "waitUntil", { value: (p: Promise<unknown>) => kept.push(p) });
    Object.defineProperty(request, "runtime", { value: { name: runtime } });
    return { request, kept };
  }
  const settled = (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 30))]);

  it("releases waitUntil when the run parks for input, except on Workers, where the creating request outlives the wait", async () => {
    for (const runtime of ["node", "cloudflare"]) {
      const { request, kept } = withWaitUntil(modernRequest("tools/call", { name: "ask" }, { caps: caps2 }), runtime);
      const { taskId } = (await (await app.fetch(request)).json()).result;
      await new Promise((r) => setTimeout(r, 10));
      expect((await call(app, "tasks/get", { taskId }, { caps: caps2 })).body.result.status).toBe("input_required");
      expect(await settled(kept[0]!)).toBe(runtime === "node");

      const answer = withWaitUntil(
        modernRequest("tasks/update", { taskId, inputResponses: { c: { action: "decline" } } }, { caps: caps2 }),
        runtime,
      );
      expectShape(S.updateTask, (await (await app.fetch(answer.request)).json()).result);
      // The answering request keeps the resumed run alive until it is done.
      expect(answer.kept).toHaveLength(1);
      await Promise.all([kept[0], answer.kept[0]]);
      const done = await call(app, "tasks/get", { taskId }, { caps: caps2 });
      expect(done.body.result.result.content[0].text).toBe("got decline");
    }
  });

  it("hands a task's run to waitUntil, settled once the task completes", async () => {
    const { request, kept } = withWaitUntil(modernRequest("tools/call", { name: "slow" }, { caps }));
    const created = (await (await app.fetch(request)).json()).result;
    expectShape(S.createTask, created);
    expect(kept).toHaveLength(1);
    await kept[0];
    const got = await call(app, "tasks/get", { taskId: created.taskId }, { caps });
    expect(got.body.result.status).toBe("completed");
  });

  it("releases waitUntil when the task is cancelled, even if its run never settles", async () => {
    const { request, kept } = withWaitUntil(modernRequest("tools/call", { name: "stubborn" }, { caps }));
    const created = (await (await app.fetch(request)).json()).result;
    let released = false;
    void kept[0]!.then(() => (released = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(released).toBe(false);
    const cancelled = await call(app, "tasks/cancel", { taskId: created.taskId }, { caps });
    expectShape(S.cancelTask, cancelled.body.result);
    await kept[0];
    expect(released).toBe(true);
  });
});

describe("Workers where no waitUntil reaches the run", () => {
  // The build for every runtime but workerd, loaded where Workers' own navigator.userAgent says
  // "Cloudflare-Workers": what a Worker gets from a bundler that does not set the workerd condition.
  // (Under wrangler, the workerd build and this refusal are smoked on workerd itself: test/runtimes/.)
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  async function workersApp() {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" });
    vi.resetModules();
    const core = await import("../../src/index.ts");
    const tasks = await import("../../src/tasks/index.ts");
    const runs = { always: 0, required: 0 };
    const verdicts: boolean[] = [];
    const work = { run: async () => ({ content: [{ type: "text" as const, text: "done" }] }) };
    const tools = [
      core.defineTool({ name: "always", handler: (e) => (runs.always++, verdicts.push(tasks.canCreateTask(e)), tasks.mcpTask(e, work)) }),
      core.defineTool({ name: "required", execution: { taskSupport: "required" }, handler: (e) => (runs.required++, tasks.mcpTask(e, work)) }),
      core.defineTool({ name: "plain", handler: () => "plain answer" }),
    ];
    const plugin = tasks.mcpTasks();
    return { app: appFor(core.defineMcpHandler({ name: "w", version: "1", tools }, { extensionPlugins: [plugin] })), runs, verdicts, plugin };
  }

  it("refuses to create a task with -32603 naming the cause and the fix, before a required tool's handler; other calls are served", async () => {
    const { app, runs, verdicts, plugin } = await workersApp();
    const caps = { extensions: { [TASKS]: {} } };
    for (const name of ["always", "required"]) {
      const r = await call(app, "tools/call", { name }, { caps });
      const error = expectError(r.body, -32603);
      expect(error.message).toMatch(/^No task can be created: on Cloudflare Workers a task's run needs a waitUntil to outlive the response/);
      expect(error.message).toMatch(/without the workerd export condition/);
      expect(error.message).toMatch(/Export \{ fetch: serve\(app, \{ manual: true \}\)\.fetch \}/);
    }
    expect(runs).toEqual({ always: 1, required: 0 });
    expect(verdicts).toEqual([false]);
    expect(memoryStore(plugin).size).toBe(0);
    expect(expectResult((await call(app, "tools/call", { name: "plain" }, { caps })).body, S.callTool).content[0].text).toBe("plain answer");
  });

  it("creates the task when the request brings the Worker's waitUntil (h3's serve(app, { manual: true }))", async () => {
    const { app } = await workersApp();
    const request = modernRequest("tools/call", { name: "required" }, { caps: { extensions: { [TASKS]: {} } } });
    const kept: Promise<unknown>[] = [];
    Object.defineProperty(request, "waitUntil", { value: (p: Promise<unknown>) => kept.push(p) });
    const created = (await (await app.fetch(request)).json()).result;
    expectShape(S.createTask, created);
    expect(kept).toHaveLength(1);
    await kept[0];
    expect((await call(app, "tasks/get", { taskId: created.taskId }, { caps: { extensions: { [TASKS]: {} } } })).body.result.status).toBe("completed");
  });
});

describe("keep-alive", () => {
  const handler = defineMcpHandler({ name: "k", version: "1", tools: [] }, { keepAliveMs: 100 });
  const app = appFor(handler);

  async function commentsWithin(res: Response, ms: number) {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()))]);
      if (chunk === null || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    await reader.cancel();
    return text.split("\n\n").filter((frame) => frame.startsWith(":")).length;
  }

  it("comes at the configured interval on a listen stream", async () => {
    const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }));
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(await commentsWithin(res, 450)).toBeGreaterThanOrEqual(3);
  });

  it("comes at the configured interval on a legacy GET stream", async () => {
    const legacy = await legacyClient(app);
    const res = await legacy.get();
    expect(res.status).toBe(200);
    // One comment opens the stream; the interval adds the rest.
    expect(await commentsWithin(res, 450)).toBeGreaterThanOrEqual(4);
  });
});

describe("the client going away, on a Node server", () => {
  // The signal follows the Node response, not the request's own signal (which srvx before 1.0, as in
  // Nitro 3.0.0, aborts once the body has been read).
  const served = useServedApp(coreApp().app);

  it("aborts the handler's signal when the client closes a streamed response over real HTTP", async () => {
    const before = aborted.count;
    const request = modernRequest("tools/call", { name: "hang_until_abort" }, { meta: { progressToken: 1 } });
    const client = new AbortController();
    const res = await fetch(served.url(), { method: "POST", headers: request.headers, body: await request.text(), signal: client.signal });
    const sse = sseReader(res);
    expect((await sse.next()).method).toBe("notifications/progress");
    expect(aborted.count).toBe(before);
    client.abort();
    await sse.close().catch(() => {}); // the read rejects with the abort
    for (let i = 0; i < 50 && aborted.count === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(aborted.count).toBe(before + 1);
  });
});
