// The user's tasks page, sample by sample: each keeps the page's calls, option names and import paths, and
// runs on the wire against what the page says beside it. Renaming anything the page uses fails the typecheck
// or a test here. The page leaves renderSynchronously, renderFrame, step, isBeta and throwUnauthenticated to
// the reader: they are supplied first.
import { H3, HTTPError, type H3Event } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, McpJsonRpcError } from "h3-mcp";
import { canCreateTask, mcpTask, mcpTasks } from "h3-mcp/tasks";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError, expectShape, ownFields, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { until } from "../helpers/wait.ts";
import { appFor, call, modernRequest, TASKS, type Fetcher } from "../helpers/wire.ts";

declare module "h3" {
  interface H3EventContext {
    /** Who the reader's own authentication found (the bind sample reads it). */
    auth?: { userId: string };
  }
}

// --- What the page leaves to the reader ---

/** The first frame waits for the test to let it go, so the test sees the task before it finishes. */
let firstFrame = held();
function held() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
function renderSynchronously() {
  return { content: [{ type: "text" as const, text: "Rendered at once." }] };
}
async function renderFrame(frame: number, signal: AbortSignal): Promise<void> {
  if (frame === 1) await firstFrame.opened;
  signal.throwIfAborted();
}
let steps = 0;
let stepping: Promise<void> = Promise.resolve();
function step(): Promise<void> {
  steps++;
  stepping = new Promise((resolve) => setTimeout(resolve, 1));
  return stepping;
}
const isBeta = (event: H3Event) => event.req.headers.get("x-beta") === "1";
function throwUnauthenticated(): never {
  throw new HTTPError({ status: 401, message: "Sign in first" });
}

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const get = (app: Fetcher, taskId: string, opts = {}) => call(app, "tasks/get", { taskId }, { caps, ...opts });
async function settled(app: Fetcher, taskId: string, status: string, opts = {}) {
  let task: any;
  await until(async () => expect((task = (await get(app, taskId, opts)).body.result).status).toBe(status));
  expectShape(S.getTask, task);
  return task;
}

// --- The page's first sample ---

const renderTool = defineTool({
  name: "render",
  execution: { taskSupport: "optional" },
  handler: (event) => {
    // The server decides per request — and MUST NOT hand a task to a client
    // that did not declare the extension.
    if (!canCreateTask(event)) {
      return renderSynchronously();
    }

    return mcpTask(event, {
      statusMessage: "Queued",
      async run(task) {
        for (let frame = 1; frame <= 100; frame++) {
          await renderFrame(frame, task.signal);
          task.update({ statusMessage: `Frame ${frame}/100` });
        }
        return { content: [{ type: "text", text: "Rendered." }] };
      },
    });
  },
});

const pageHandler = defineMcpHandler(
  { name: "my-server", version: "1.0.0", tools: [renderTool] },
  // Installing the plugin is what serves the extension — and it carries its own
  // configuration, so there is no handler option to keep in sync.
  { extensionPlugins: [mcpTasks()] },
);

describe("the page's first sample", () => {
  const app = appFor(pageHandler);

  it("answers a client that did not declare the extension synchronously", async () => {
    const { body } = await call(app, "tools/call", { name: "render" });
    expect(body.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Rendered at once." }] });
  });

  it("hands a declaring client the flat handle, retrievable at once, and inlines the result once the task completes", async () => {
    firstFrame = held();
    const handle = (await call(app, "tools/call", { name: "render" }, { caps })).body.result;
    expectShape(S.createTask, handle);
    const { _meta, ...own } = ownFields(handle);
    expect(Object.keys(own).sort()).toEqual(["createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "statusMessage", "taskId", "ttlMs"]);
    expect(own).toMatchObject({ resultType: "task", status: "working", statusMessage: "Queued", ttlMs: 600000, pollIntervalMs: 1000 });
    expect(own.taskId).toMatch(UUID_V4);
    expect(own.createdAt).toMatch(ISO);
    expect(own.lastUpdatedAt).toBe(own.createdAt);
    expect(handle).not.toHaveProperty("cacheScope");
    // The handle is in the store before it is returned.
    const first = (await get(app, own.taskId)).body.result;
    expect(first).toMatchObject({ taskId: own.taskId, status: "working", statusMessage: "Queued" });
    firstFrame.open();
    const done = await settled(app, own.taskId, "completed");
    expect(done.result.content).toEqual([{ type: "text", text: "Rendered." }]);
    expect(done).not.toHaveProperty("cacheScope");
  });

  it("advertises the identifier and serves tasks/get, tasks/update and tasks/cancel; without the plugin, none of them", async () => {
    const discover = (await call(app, "server/discover", {}, { caps })).body.result;
    expect(discover.capabilities.extensions).toEqual({ [TASKS]: {} });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expectError((await call(app, method, { taskId: "nope", inputResponses: {} }, { caps })).body, -32602);
    }
    const bare = appFor(defineMcpHandler({ name: "my-server", version: "1.0.0", tools: [renderTool] }));
    expect((await call(bare, "server/discover", {}, { caps })).body.result.capabilities.extensions).toBeUndefined();
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expectError((await call(bare, method, { taskId: "nope", inputResponses: {} }, { caps })).body, -32601);
    }
    expect((await call(bare, "tools/call", { name: "render" }, { caps })).body.result.content[0].text).toBe("Rendered at once.");
  });
});

// --- Gating ---

const alwaysTask = defineTool({ name: "always", handler: (event) => mcpTask(event, { run: () => ({ content: [] }) }) });
const options = { name: "gated", version: "1.0.0", tools: [renderTool, alwaysTask] };

describe("gating with the plugin's enabled option", () => {
  const beta = { caps, headers: { "x-beta": "1" } };

  async function refusesTasks(app: Fetcher) {
    expectError((await call(app, "tasks/get", { taskId: "nope" }, { caps })).body, -32601);
    const called = await call(app, "tools/call", { name: "always" }, { caps });
    expect(expectError(called.body, -32603).message).toMatch(/not enabled/);
    const ack = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: ["786512e2-9e0d-44bd-8f29-789f320fe840"] } }, { caps })));
    const agreed = await ack.next();
    expectShape(S.listenAck, agreed);
    expect(agreed.params.notifications).not.toHaveProperty("taskIds");
    await ack.close();
  }

  it("refuses a request the predicate rejects; with static options the identifier is advertised to every request", async () => {
    const app = appFor(defineMcpHandler(options, { extensionPlugins: [mcpTasks({ enabled: (event) => isBeta(event) })] }));
    await refusesTasks(app);
    const handle = (await call(app, "tools/call", { name: "always" }, beta)).body.result;
    expectShape(S.createTask, handle);
    expect((await call(app, "tasks/get", { taskId: handle.taskId }, beta)).body.result.taskId).toBe(handle.taskId);
    for (const opts of [beta, { caps }]) {
      expect((await call(app, "server/discover", {}, opts)).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    }
  });

  it("makes the server/discover advertisement follow the predicate when the options are a function of the event", async () => {
    const app = appFor(defineMcpHandler((event) => ({ ...options, title: isBeta(event) ? "beta" : "stable" }), { extensionPlugins: [mcpTasks({ enabled: (event) => isBeta(event) })] }));
    expect((await call(app, "server/discover", {}, beta)).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    expect((await call(app, "server/discover", {}, { caps })).body.result.capabilities.extensions).toBeUndefined();
    await refusesTasks(app);
  });

  it("takes a boolean too: false serves and advertises nothing, true everything", async () => {
    const off = appFor(defineMcpHandler(options, { extensionPlugins: [mcpTasks({ enabled: false })] }));
    expect((await call(off, "server/discover", {}, beta)).body.result.capabilities.extensions).toBeUndefined();
    await refusesTasks(off);
    const on = appFor(defineMcpHandler(options, { extensionPlugins: [mcpTasks({ enabled: true })] }));
    expect((await call(on, "server/discover", {}, { caps })).body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    expectShape(S.createTask, (await call(on, "tools/call", { name: "always" }, { caps })).body.result);
  });
});

// --- Statuses and cancellation ---

const statusTools = [
  defineTool({
    name: "upstream",
    handler: (event) =>
      mcpTask(event, {
        async run() {
          throw new Error("upstream refused"); // → completed, result.isError
        },
      }),
  }),
  defineTool({
    name: "rate_limited",
    handler: (event) =>
      mcpTask(event, {
        async run() {
          throw new McpJsonRpcError(-32603, "API rate limit exceeded"); // → failed
        },
      }),
  }),
  defineTool({
    name: "loop",
    handler: (event) =>
      mcpTask(event, {
        async run(task) {
          while (!task.signal.aborted) {
            await step();
          }
          return { content: [] };
        },
      }),
  }),
];

describe("statuses and cancellation", () => {
  const app = appFor(defineMcpHandler({ name: "statuses", version: "1.0.0", tools: statusTools }, { extensionPlugins: [mcpTasks()] }));
  const create = async (name: string) => (await call(app, "tools/call", { name }, { caps })).body.result.taskId as string;

  it("completes with isError a task whose run threw, and fails one whose run threw a protocol error", async () => {
    const reported = await settled(app, await create("upstream"), "completed");
    expect(reported.result.isError).toBe(true);
    const failed = await settled(app, await create("rate_limited"), "failed");
    expect(failed.error).toMatchObject({ code: -32603, message: "API rate limit exceeded" });
    expect(failed).not.toHaveProperty("result");
  });

  it("answers tasks/cancel with an empty ack and aborts the signal; a terminal task gets the same ack, an unknown id -32602", async () => {
    const taskId = await create("loop");
    await until(() => expect(steps).toBeGreaterThan(0));
    const ack = (await call(app, "tasks/cancel", { taskId }, { caps })).body.result;
    expectShape(S.cancelTask, ack);
    expect(ownFields(ack)).toEqual({ resultType: "complete" });
    // The step under way at the cancel ends; the loop then sees the aborted signal and calls no other.
    const stepsAtCancel = steps;
    await stepping;
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toBe(stepsAtCancel);
    expect((await get(app, taskId)).body.result.status).toBe("cancelled");
    expect(ownFields((await call(app, "tasks/cancel", { taskId }, { caps })).body.result)).toEqual({ resultType: "complete" });
    expectError((await call(app, "tasks/cancel", { taskId: "786512e2-9e0d-44bd-8f29-789f320fe840" }, { caps })).body, -32602);
  });
});

// --- Asking for input mid-flight (the page imports mcpElicit and mcpTask from "h3-mcp" for this sample) ---

const askingTools = await (async () => {
  const { mcpElicit, mcpTask } = await import("h3-mcp");

  const askConfirm = mcpElicit({
    message: "Really delete everything?",
    requestedSchema: {
      type: "object",
      properties: { confirm: { type: "boolean" } },
      required: ["confirm"],
    },
  });

  return [
    defineTool({
      name: "delete_everything",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            const answers = await task.requestInput({ confirm: askConfirm });
            const ok = answers.confirm?.action === "accept" && answers.confirm.content?.confirm;
            return { content: [{ type: "text", text: ok ? "Deleted." : "Cancelled." }] };
          },
        }),
    }),
    defineTool({
      name: "ask_twice",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            const first = await task.requestInput({ confirm: askConfirm });
            const second = await task.requestInput({ confirm: askConfirm, again: askConfirm });
            const said = [first.confirm, second.confirm, second.again].map((a) => String(a?.content?.confirm));
            return { content: [{ type: "text", text: said.join(" ") }] };
          },
        }),
    }),
  ];
})();

describe("asking for input mid-flight", () => {
  const app = appFor(defineMcpHandler({ name: "asking", version: "1.0.0", tools: askingTools }, { extensionPlugins: [mcpTasks()] }));
  const answer = (taskId: string, inputResponses: Record<string, unknown>) => call(app, "tasks/update", { taskId, inputResponses }, { caps });
  const accept = (confirm: boolean) => ({ action: "accept", content: { confirm } });

  it("parks the task in input_required with the request on every tasks/get, and resolves once it is answered", async () => {
    for (const [reply, text] of [[accept(true), "Deleted."], [{ action: "decline" }, "Cancelled."]] as const) {
      const { taskId } = (await call(app, "tools/call", { name: "delete_everything" }, { caps })).body.result;
      const parked = await settled(app, taskId, "input_required");
      expect(Object.keys(parked.inputRequests)).toEqual(["confirm"]);
      expect(parked.inputRequests.confirm).toMatchObject({ method: "elicitation/create", params: { message: "Really delete everything?" } });
      expect((await get(app, taskId)).body.result.inputRequests).toEqual(parked.inputRequests);
      const ack = (await answer(taskId, { confirm: reply })).body.result;
      expectShape(S.updateTask, ack);
      expect((await settled(app, taskId, "completed")).result.content).toEqual([{ type: "text", text }]);
    }
  });

  it("takes answers one at a time, ignores keys never issued or already consumed, and names a key asked twice confirm.2", async () => {
    const { taskId } = (await call(app, "tools/call", { name: "ask_twice" }, { caps })).body.result;
    expect(Object.keys((await settled(app, taskId, "input_required")).inputRequests)).toEqual(["confirm"]);
    expectShape(S.updateTask, (await answer(taskId, { confirm: accept(true), never_issued: accept(false) })).body.result);
    let next: any;
    await until(async () => expect(Object.keys((next = (await get(app, taskId)).body.result).inputRequests ?? {}).sort()).toEqual(["again", "confirm.2"]));
    expect(next.status).toBe("input_required");
    // The first round's key is consumed: an answer to it now is acked and ignored.
    expectShape(S.updateTask, (await answer(taskId, { confirm: accept(false), "confirm.2": accept(false) })).body.result);
    const parked = (await get(app, taskId)).body.result;
    expect(parked.status).toBe("input_required");
    expect(Object.keys(parked.inputRequests)).toEqual(["again"]);
    await answer(taskId, { again: accept(true) });
    expect((await settled(app, taskId, "completed")).result.content).toEqual([{ type: "text", text: "true false true" }]);
  });
});

// --- Status notifications and tools that require a task ---

const requiredTool = defineTool({ name: "required", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: () => ({ content: [] }) }) });

describe("status notifications, and tools that require a task", () => {
  const app = appFor(defineMcpHandler({ name: "my-server", version: "1.0.0", tools: [renderTool, requiredTool] }, { extensionPlugins: [mcpTasks()] }));

  it("echoes the agreed ids, then pushes the complete task on each status change, as tasks/get answers it", async () => {
    firstFrame = held();
    const { taskId } = (await call(app, "tools/call", { name: "render" }, { caps })).body.result;
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "sub" })));
    const ack = await sse.next();
    expectShape(S.listenAck, ack);
    expect(ack.params.notifications).toEqual({ taskIds: [taskId] });
    firstFrame.open();
    let frame: any;
    do {
      frame = await sse.next();
      expectShape(S.taskNotification, frame);
      expect(frame.method).toBe("notifications/tasks");
    } while (frame.params.status !== "completed");
    const { resultType, _meta, ...task } = (await get(app, taskId)).body.result;
    expect(resultType).toBe("complete");
    const { _meta: frameMeta, ...pushed } = frame.params;
    expect(pushed).toEqual(task);
    await sse.close();
  });

  it("answers -32021 to task notifications asked for without declaring the extension", async () => {
    const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: ["786512e2-9e0d-44bd-8f29-789f320fe840"] } }));
    expect(expectError(await res.json(), -32021).data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  });

  it("refuses a required tool to a client without the extension with the page's -32021, and advertises taskSupport", async () => {
    const { body } = await call(app, "tools/call", { name: "required" });
    expect(expectError(body, -32021)).toEqual({
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
    });
    const listed = (await call(app, "tools/list", {}, { caps })).body.result.tools;
    expect(Object.fromEntries(listed.map((t: any) => [t.name, t.execution?.taskSupport]))).toEqual({ render: "optional", required: "required" });
  });
});

// --- Retention and durability ---

describe("retention: the cap and bind", () => {
  const quick = defineTool({ name: "quick", handler: (event) => mcpTask(event, { run: () => ({ content: [] }) }) });
  const mcp = defineMcpHandler(
    { name: "retained", version: "1.0.0", tools: [quick] },
    {
      extensionPlugins: [
        mcpTasks({
          max: 1000, // tasks retained at once; creation fails past it
          ttlMs: 600_000, // lifetime from creation; null for unlimited
          pollIntervalMs: 1000, // advertised to clients
          bind: (event) => event.context.auth?.userId ?? throwUnauthenticated(),
        }),
      ],
    },
  );
  const app = new H3()
    .use((event) => {
      const user = event.req.headers.get("x-user");
      if (user) event.context.auth = { userId: user };
    })
    .all("/mcp", mcp);
  const as = (user: string) => ({ caps, headers: { "x-user": user } });

  it("reports another caller's task exactly like an unknown one, and refuses a caller bind cannot name", async () => {
    const { taskId } = (await call(app, "tools/call", { name: "quick" }, as("alice"))).body.result;
    expect((await settled(app, taskId, "completed", as("alice"))).taskId).toBe(taskId);
    const foreign = (await call(app, "tasks/get", { taskId }, as("bob"))).body;
    const unknown = (await call(app, "tasks/get", { taskId: "786512e2-9e0d-44bd-8f29-789f320fe840" }, as("bob"))).body;
    expect(expectError(foreign, -32602)).toEqual(expectError(unknown, -32602));
    expect((await call(app, "tools/call", { name: "quick" }, { caps })).status).toBe(401);
  });

  it("fails creation at the cap rather than dropping a handle a client may still be polling", async () => {
    const created: string[] = [];
    while (created.length < 1000) {
      const { body } = await call(app, "tools/call", { name: "quick" }, as("carol"));
      if (body.error) break;
      created.push(body.result.taskId);
    }
    // alice's task from the test before is retained too.
    expect(created.length).toBe(999);
    const refused = await call(app, "tools/call", { name: "quick" }, as("carol"));
    expect(expectError(refused.body, -32603)).toMatchObject({ message: "The task store is full (1000 tasks retained); try again later", data: { max: 1000 } });
    expect((await get(app, created[0]!, as("carol"))).body.result.taskId).toBe(created[0]);
  });
});

// --- Not the 2025-11-25 tasks utility ---

describe("not the 2025-11-25 tasks utility", () => {
  const app = appFor(pageHandler);

  it("shows a legacy client no task capability and ignores its params.task hint; tasks/result and tasks/list are -32601", async () => {
    firstFrame = held();
    firstFrame.open();
    const legacy = await legacyClient(app, "2025-11-25", { tasks: {} });
    expect(legacy.initResult.capabilities).not.toHaveProperty("tasks");
    expect(JSON.stringify(legacy.initResult.capabilities)).not.toContain(TASKS);
    const hinted = await legacy.request("tools/call", { name: "render", task: { ttl: 60_000 } });
    expect(hinted.body.result.content).toEqual([{ type: "text", text: "Rendered at once." }]);
    expect(hinted.body.result).not.toHaveProperty("task");
    for (const method of ["tasks/result", "tasks/list"]) {
      expectError((await call(app, method, { taskId: "786512e2-9e0d-44bd-8f29-789f320fe840" }, { caps })).body, -32601);
    }
  });
});
