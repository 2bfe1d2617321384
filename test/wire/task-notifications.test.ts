import { describe, expect, it } from "vitest";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const SUB = "io.modelcontextprotocol/subscriptionId";
const tick = (ms = 2) => new Promise((r) => setTimeout(r, ms));

async function listen(app: any, taskIds: unknown, opts: any = {}) {
  const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds } }, { caps, ...opts }));
  return res;
}

describe("notifications/tasks over subscriptions/listen", () => {
  it("answers -32021 when taskIds are asked for without declaring the extension", async () => {
    const { app } = tasksApp();
    const res = await listen(app, ["x"], { caps: {} });
    expect(res.status).toBe(400);
    expect(expectError(await res.json(), -32021).data.requiredCapabilities).toEqual({ extensions: { [TASKS]: {} } });
  });

  it("echoes only the agreed ids and pushes each status change as tasks/get would answer it", async () => {
    const { app, plugin } = tasksApp({ bind: (e) => e.req.headers.get("x-user") });
    const alice = { headers: { "x-user": "alice" } };
    const mine = (await call(app, "tools/call", { name: "confirm_delete" }, { caps, ...alice })).body.result.taskId;
    const theirs = (await call(app, "tools/call", { name: "controlled" }, { caps, headers: { "x-user": "bob" } })).body.result.taskId;
    await tick();
    const sse = sseReader(await listen(app, [mine, theirs, "unknown", 7], { id: "sub-1", ...alice }));
    const ack = await sse.next();
    expectShape(S.listenAck, ack);
    expect(ack.params).toEqual({ notifications: { taskIds: [mine] }, _meta: { [SUB]: "sub-1" } });
    expect(plugin.stats.listeners).toBe(1);
    // Right after the ack, the state the task already reached.
    expect((await sse.next()).params).toMatchObject({ taskId: mine, status: "input_required", _meta: { [SUB]: "sub-1" } });

    await call(app, "tasks/update", { taskId: mine, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps, ...alice });
    const working = await sse.next();
    expectShape(S.taskNotification, working);
    expect(working.params.status).toBe("working");
    expect(working.params._meta).toEqual({ [SUB]: "sub-1" });
    const completed = await sse.next();
    expect(completed.params.status).toBe("completed");
    const { resultType, ...snapshot } = (await call(app, "tasks/get", { taskId: mine }, { caps, ...alice })).body.result;
    expect(resultType).toBe("complete");
    expect(completed.params).toEqual({ ...snapshot, _meta: { [SUB]: "sub-1" } });
    // The terminal frame is the last, and it released the listener.
    expect(await sse.quiet()).toBe(true);
    expect(plugin.stats.listeners).toBe(0);
    await sse.close();
  });

  it("never puts progress or log messages on the stream, and pushes nothing for statusMessage-only changes", async () => {
    const { app, gates } = tasksApp();
    const { taskId } = (await call(app, "tools/call", { name: "render", arguments: { frames: 2 } }, { caps })).body.result;
    const sse = sseReader(await listen(app, [taskId], { meta: { progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" } }));
    await sse.next();
    expect((await sse.next()).params.status).toBe("working");
    gates.open(`frame:${taskId}:1`);
    await tick();
    expect(await sse.quiet()).toBe(true);
    gates.open(`frame:${taskId}:2`);
    const done = await sse.next();
    expect(done.method).toBe("notifications/tasks");
    expect(done.params.status).toBe("completed");
    await sse.close();
  });

  it("allows several listeners per task and several tasks per listener, and a disconnect leaves no listener behind", async () => {
    const { app, plugin } = tasksApp();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await call(app, "tools/call", { name: "controlled" }, { caps })).body.result.taskId);
    const a = sseReader(await listen(app, ids, { id: "a" }));
    const b = sseReader(await listen(app, [ids[0]], { id: "b" }));
    expect((await a.next()).params.notifications.taskIds).toEqual(ids);
    expect((await b.next()).params.notifications.taskIds).toEqual([ids[0]]);
    for (const id of ids) expect((await a.next()).params).toMatchObject({ taskId: id, status: "working" });
    expect((await b.next()).params).toMatchObject({ taskId: ids[0], status: "working" });
    expect(plugin.stats.listeners).toBe(4);
    await call(app, "tasks/cancel", { taskId: ids[0] }, { caps });
    expect((await a.next()).params).toMatchObject({ taskId: ids[0], status: "cancelled", _meta: { [SUB]: "a" } });
    expect((await b.next()).params).toMatchObject({ taskId: ids[0], status: "cancelled", _meta: { [SUB]: "b" } });
    expect(plugin.stats.listeners).toBe(2);
    await a.close();
    await b.close();
    expect(plugin.stats.listeners).toBe(0);
  });

  it("agrees to nothing for a request the plugin is not enabled for", async () => {
    const { app } = tasksApp({ enabled: (e) => e.req.headers.get("x-beta") === "1" });
    const { taskId } = (await call(app, "tools/call", { name: "controlled" }, { caps, headers: { "x-beta": "1" } })).body.result;
    const sse = sseReader(await listen(app, [taskId]));
    expect((await sse.next()).params.notifications).toEqual({});
    await sse.close();
  });
});
