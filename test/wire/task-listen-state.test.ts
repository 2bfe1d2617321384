// A listen stream never misses a state its task already reached, and hears of an expiry when it
// happens rather than when a later request sweeps.
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, McpJsonRpcError } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const SUB = "io.modelcontextprotocol/subscriptionId";
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

const listen = (app: any, taskIds: unknown, opts: any = {}) =>
  app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds } }, { caps, ...opts }));
const create = async (app: any, name: string) => (await call(app, "tools/call", { name }, { caps })).body.result.taskId as string;
/** tasks/get's answer without `resultType`: what a notifications/tasks frame must carry. */
async function detailed(app: any, taskId: string) {
  const { resultType, _meta, ...task } = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
  expect(resultType).toBe("complete");
  return task;
}

describe("a listen that agrees to a task", () => {
  it("sends the state a task reached before the listen, right after the ack: completed, input_required and working", async () => {
    const { app } = tasksApp();
    const done = await create(app, "tool_error");
    const parked = await create(app, "confirm_delete");
    const running = await create(app, "controlled");
    await tick();
    const expected = { [done]: await detailed(app, done), [parked]: await detailed(app, parked), [running]: await detailed(app, running) };
    expect([expected[done]!.status, expected[parked]!.status, expected[running]!.status]).toEqual(["completed", "input_required", "working"]);

    const sse = sseReader(await listen(app, [done, parked, running], { id: "s" }));
    const ack = await sse.next();
    expectShape(S.listenAck, ack);
    expect(ack.params.notifications.taskIds).toEqual([done, parked, running]);
    for (const id of [done, parked, running]) {
      const frame = await sse.next();
      expectShape(S.taskNotification, frame);
      expect(frame.params).toEqual({ ...expected[id], _meta: { [SUB]: "s" } });
    }
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });

  it("then a frame per status change, the terminal frame last", async () => {
    const { app } = tasksApp();
    const taskId = await create(app, "confirm_delete");
    await tick();
    const sse = sseReader(await listen(app, [taskId]));
    await sse.next();
    expect((await sse.next()).params.status).toBe("input_required");
    await call(app, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps });
    expect((await sse.next()).params.status).toBe("working");
    const last = await sse.next();
    expect(last.params).toEqual({ ...(await detailed(app, taskId)), _meta: { [SUB]: 1 } });
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });
});

describe("an expiry on a listen stream", () => {
  it("is told when it happens, with no request to sweep it: failed, Expired, then the id reads as unknown", async () => {
    const { app, plugin, seen } = tasksApp({ ttlMs: 150 });
    const taskId = await create(app, "controlled");
    const sse = sseReader(await listen(app, [taskId], { id: "e" }));
    await sse.next();
    expect((await sse.next()).params.status).toBe("working");
    const last = await sse.next(3000);
    expectShape(S.taskNotification, last);
    expect(last.params).toMatchObject({
      taskId,
      status: "failed",
      statusMessage: "Expired",
      error: { code: -32603, message: "Task expired before it finished" },
      _meta: { [SUB]: "e" },
    });
    expect(seen.signalAborted).toEqual([taskId]);
    expect(plugin.stats.listeners).toBe(0);
    expect(await sse.quiet()).toBe(true);
    expectError((await call(app, "tasks/get", { taskId }, { caps })).body, -32602);
    await sse.close();
  });

  it("sends nothing after the terminal frame of a task that ended before its expiry", async () => {
    const { app, gates } = tasksApp({ ttlMs: 100 });
    const taskId = await create(app, "controlled");
    const sse = sseReader(await listen(app, [taskId]));
    await sse.next();
    expect((await sse.next()).params.status).toBe("working");
    gates.open(taskId, { content: [] });
    expect((await sse.next()).params.status).toBe("completed");
    await tick(200);
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });
});

describe("tasks/update with malformed answers", () => {
  it.each([
    ["a number", 42],
    ["a string", "yes"],
    ["null", null],
    ["an array", []],
    ["an action that is not one of accept, decline, cancel", { action: "maybe" }],
    ["content that is not an object", { action: "accept", content: "yes" }],
  ])("%s does not consume the question: the key stays outstanding", async (_name, answer) => {
    const { app } = tasksApp();
    const taskId = await create(app, "confirm_delete");
    await tick();
    const ack = await call(app, "tasks/update", { taskId, inputResponses: { confirm: answer } }, { caps });
    expect(ack.body.result.resultType).toBe("complete");
    await tick();
    const still = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
    expect(still.status).toBe("input_required");
    expect(Object.keys(still.inputRequests)).toEqual(["confirm"]);
    await call(app, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps });
    await tick();
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "Deleted." }] },
    });
  });

  it("takes the well-formed answers of a partial update and leaves the malformed key outstanding", async () => {
    const { app } = tasksApp();
    const taskId = await create(app, "two_rounds");
    await tick();
    await call(app, "tasks/update", { taskId, inputResponses: { confirm: 42, name: { action: "accept", content: { name: "Ada" } } } }, { caps });
    await tick();
    const still = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
    expect(still.status).toBe("input_required");
    expect(Object.keys(still.inputRequests)).toEqual(["confirm"]);
  });
});

describe("a failed task", () => {
  it("says why in its statusMessage: the error's message, not the stale one", async () => {
    const tool = defineTool({
      name: "fails",
      handler: (event) =>
        mcpTask(event, {
          statusMessage: "Queued",
          async run() {
            throw new McpJsonRpcError(-32603, "API rate limit exceeded");
          },
        }),
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks()] }));
    const handle = (await call(app, "tools/call", { name: "fails" }, { caps })).body.result;
    expect(handle.statusMessage).toBe("Queued");
    const taskId = handle.taskId;
    await tick();
    const failed = (await call(app, "tasks/get", { taskId }, { caps })).body.result;
    expectShape(S.getTask, failed);
    expect(failed).toMatchObject({ status: "failed", statusMessage: "API rate limit exceeded", error: { code: -32603, message: "API rate limit exceeded" } });
  });
});
