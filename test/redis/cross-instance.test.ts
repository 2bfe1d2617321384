// The task semantics of the in-memory store, held across instances that share one Redis.
import { describe, expect, it } from "vitest";
import { expectError, expectShape, ownFields, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { modernRequest } from "../helpers/wire.ts";
import { caps, client, until, useRedisClusters } from "./cluster.ts";

const clusters = useRedisClusters();
const start = clusters.start;

const accept = { action: "accept", content: { confirm: true } };

describe("any instance answers for every task", () => {
  it("finds the handle on another instance in the same tick it is returned", async () => {
    const { instances: [a, b] } = start(2);
    const handle = await client(a).create("controlled");
    expectShape(S.createTask, handle);
    const r = await client(b).get(handle.taskId);
    expectShape(S.getTask, r.body.result);
    expect(r.body.result).toEqual({ ...handle, resultType: "complete" });
    expect(Number(await clusters.redis.cli("EXISTS", `${a.store.keyPrefix}task:${handle.taskId}`))).toBe(1);
  });

  it("answers tasks/get, tasks/update and tasks/cancel for a task running on another instance", async () => {
    const { instances: [a, b, c] } = start(3);
    const { taskId } = await client(a).create("confirm_delete");
    await until(async () => (await client(b).get(taskId)).body.result.status === "input_required");
    const parked = (await client(c).get(taskId)).body.result;
    expectShape(S.getTask, parked);
    expect(Object.keys(parked.inputRequests)).toEqual(["confirm"]);

    const ack = await client(b).update(taskId, { confirm: accept });
    expect(ownFields(ack.body.result)).toEqual({ resultType: "complete" });
    await until(async () => (await client(c).get(taskId)).body.result.status === "completed");
    const done = (await client(a).get(taskId)).body.result;
    expect(done.result.content[0].text).toBe("Deleted.");
    expect((await client(b).get(taskId)).body.result).toEqual(done);

    const other = await client(a).create("controlled");
    expect(ownFields((await client(c).cancel(other.taskId)).body.result)).toEqual({ resultType: "complete" });
    await until(() => a.seen.signalAborted.includes(other.taskId), 3000, "the cancel reaching the worker's signal");
    expect((await client(b).get(other.taskId)).body.result.status).toBe("cancelled");
    // Cancelling a finished task is acknowledged too, and changes nothing.
    expect(ownFields((await client(b).cancel(taskId)).body.result)).toEqual({ resultType: "complete" });
    expect((await client(b).get(taskId)).body.result).toEqual(done);
  });

  it("answers an unknown id, another caller's task and an expired one with the same -32602 everywhere", async () => {
    const bind = (e: any) => e.req.headers.get("x-user");
    const { instances: [a, b] } = start(2, { bind, ttlMs: 400 });
    const alice = { headers: { "x-user": "alice" } };
    const bob = { headers: { "x-user": "bob" } };
    const { taskId } = await client(a, alice).create("controlled");
    expect((await client(b, alice).get(taskId)).body.result.status).toBe("working");
    const answers = [];
    for (const [who, id] of [[bob, taskId], [alice, "no-such-task"]] as const) {
      for (const op of ["get", "update", "cancel"] as const) {
        const r = op === "update" ? await client(b, who).update(id, {}) : await client(b, who)[op](id);
        expect(r.status).toBe(400);
        answers.push(JSON.stringify(expectError(r.body, -32602)));
      }
    }
    await until(async () => (await client(b, alice).get(taskId)).status === 400, 3000, "the expiry");
    answers.push(JSON.stringify((await client(b, alice).get(taskId)).body.error));
    expect(new Set(answers)).toEqual(new Set([JSON.stringify({ code: -32602, message: "Unknown task" })]));
    // Redis purges it by itself (about when the servers' clocks say it expired), and the worker aborted the work.
    await until(async () => Number(await clusters.redis.cli("EXISTS", `${a.store.keyPrefix}task:${taskId}`)) === 0, 1000, "Redis's purge");
    await until(() => a.seen.signalAborted.includes(taskId), 3000, "the worker's own expiry");
  });
});

describe("tasks/update on one instance resolves requestInput on another", () => {
  it("takes partial answers, ignores unknown and answered keys, and renames a key asked again", async () => {
    const { instances: [a, b, c] } = start(3);
    const { taskId } = await client(a).create("two_rounds");
    await until(async () => (await client(b).get(taskId)).body.result.status === "input_required");
    expect(Object.keys((await client(b).get(taskId)).body.result.inputRequests).sort()).toEqual(["confirm", "name"]);

    await client(b).update(taskId, { confirm: accept, nonsense: { action: "accept" } });
    let task = (await client(c).get(taskId)).body.result;
    expect(task.status).toBe("input_required");
    expect(Object.keys(task.inputRequests)).toEqual(["name"]);
    // An answer to a key already answered is ignored.
    await client(c).update(taskId, { confirm: { action: "decline" } });
    expect(Object.keys((await client(a).get(taskId)).body.result.inputRequests)).toEqual(["name"]);

    await client(c).update(taskId, { name: { action: "accept", content: { name: "Ada" } } });
    await until(async () => Object.keys((await client(b).get(taskId)).body.result.inputRequests ?? {}).includes("confirm.2"));
    await client(a).update(taskId, { "confirm.2": { action: "decline" } });
    await until(async () => (await client(c).get(taskId)).body.result.status === "completed");
    const text = JSON.parse((await client(b).get(taskId)).body.result.result.content[0].text);
    expect(text).toEqual({ a: { confirm: accept, name: { action: "accept", content: { name: "Ada" } } }, b: { confirm: { action: "decline" } } });
  });
});

describe("notifications/tasks on every instance", () => {
  it("pushes a task's status changes to listen streams on other instances, the same frames as tasks/get", async () => {
    const { instances: [a, b, c] } = start(3);
    const { taskId } = await client(a).create("confirm_delete");
    await until(async () => (await client(a).get(taskId)).body.result.status === "input_required");
    const res = await c.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId, "unknown"] } }, { caps, id: "s1" }));
    const sse = sseReader(res);
    const ack = await sse.next();
    expectShape(S.listenAck, ack);
    expect(ack.params.notifications).toEqual({ taskIds: [taskId] });
    expect(c.plugin.stats.listeners).toBe(1);

    await client(b).update(taskId, { confirm: accept });
    const frames = [];
    for (;;) {
      const frame = await sse.next(3000);
      if (frame.method !== "notifications/tasks") continue;
      expectShape(S.taskNotification, frame);
      frames.push(frame.params);
      if (frame.params.status === "completed") break;
    }
    expect(frames.map((f) => f.status)).toContain("working");
    const { resultType, ...final } = (await client(b).get(taskId)).body.result;
    expect(resultType).toBe("complete");
    expect(frames.at(-1)).toEqual({ ...final, _meta: { "io.modelcontextprotocol/subscriptionId": "s1" } });
    expect(await sse.quiet(100)).toBe(true);
    expect(c.plugin.stats.listeners).toBe(0);
    await sse.close();
  });

  it("sends a running task's expiry to listen streams on other instances when it happens", async () => {
    const { instances: [a, , c] } = start(3, { ttlMs: 500 });
    const { taskId } = await client(a).create("controlled");
    const sse = sseReader(await c.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "e" })));
    await sse.next();
    expect((await sse.next()).params.status).toBe("working");
    const frame = await sse.next(2000);
    expectShape(S.taskNotification, frame);
    expect(frame.params).toMatchObject({ taskId, status: "failed", error: { code: -32603, message: "Task expired before it finished" } });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(frame.params.createdAt) + 500);
    await until(() => a.seen.signalAborted.includes(taskId), 2000, "the worker's own expiry");
    expect(c.plugin.stats.listeners).toBe(0);
    await sse.close();
  });
});
