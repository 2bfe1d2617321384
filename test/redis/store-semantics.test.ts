// What only the Redis store promises, each across instances (the task store kit checks the contract):
// what Redis holds, the chart version, owners as keyed hashes, the hub, one round trip for a finished
// task, the actor on the worker.
import type { InspectionEvent } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { defineMcpHandler } from "../../src/index.ts";
import { mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { resources } from "../fixtures/content-app.ts";
import { expectError, expectShape, ownFields, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest } from "../helpers/wire.ts";
import { caps, client, until, useRedisClusters } from "./cluster.ts";

const clusters = useRedisClusters();
const start = clusters.start;
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
const hgetall = async (key: string) => {
  const lines = (await clusters.redis.cli("HGETALL", key)).split("\n").filter((l, i, all) => i < all.length - (all.length % 2));
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < lines.length; i += 2) out[lines[i]!] = lines[i + 1]!;
  return out;
};

describe("what Redis holds", () => {
  it("a live task's chart snapshot and version; a finished task only its final tasks/get JSON, owner and version, in one string", async () => {
    const { instances: [a, b] } = start(2, { ttlMs: 60_000 });
    const { taskId } = await client(a).create("confirm_delete");
    await until(async () => (await client(b).get(taskId)).body.result.status === "input_required");
    const key = `${a.store.keyPrefix}task:${taskId}`;
    const live = await hgetall(key);
    expect(Object.keys(live).sort()).toEqual(["cv", "o", "s", "v", "w"]);
    expect(live.w).toBe(a.store.workerId);
    expect(JSON.parse(live.s!).value).toBe("input_required");
    await client(b).update(taskId, { confirm: { action: "accept", content: { confirm: true } } });
    await until(async () => (await client(b).get(taskId)).body.result.status === "completed");
    // One string: the version, the owner, and the JSON without its opening up to the id (the key has it).
    expect(await clusters.redis.cli("TYPE", key)).toBe("string");
    const [, version, owner, rest] = /^(\d+) (\S+) (.*)$/s.exec(await clusters.redis.cli("GET", key))!;
    expect(Number(version)).toBeGreaterThan(Number(live.v));
    expect(owner).toBe(live.o);
    expect(rest!.startsWith(',"status":"completed"')).toBe(true);
    const json = `{"resultType":"complete","taskId":${JSON.stringify(taskId)}${rest}`;
    expect(JSON.parse(json)).toEqual(ownFields((await client(a).get(taskId)).body.result));
    const pttl = Number(await clusters.redis.cli("PTTL", key));
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it("answers tasks/get of a finished task with one Redis command (the read script, then a plain GET), tasks/update and tasks/cancel with two", async () => {
    const { instances: [a, b, c] } = start(3);
    const { taskId } = await client(a).create("tool_error");
    await until(async () => (await client(b).get(taskId)).body.result.status === "completed");
    // The worker lets its task go once its final write is done; until then its tick may catch up in the window below.
    await until(async () => [a, b, c].every((i) => i.plugin.stats.localTasks === 0));
    const stats = async () => {
      const out: Record<string, number> = {};
      for (const m of (await clusters.redis.cli("INFO", "commandstats")).matchAll(/cmdstat_(\w+):calls=(\d+)/g)) out[m[1]!] = Number(m[2]);
      return out;
    };
    const commandsOf = async (read: () => Promise<unknown>) => {
      const before = await stats();
      await read();
      const after = await stats();
      return Object.fromEntries(Object.keys(after).filter((k) => after[k] !== before[k] && k !== "info").map((k) => [k, after[k]! - (before[k] ?? 0)]));
    };
    // An instance that never saw it uses the read script, and what it runs inside Redis.
    expect(await commandsOf(() => client(c).get(taskId))).toEqual({ evalsha: 1, type: 1, get: 1 });
    // Then a plain GET, at the instance that read it finished and at the one that wrote it finished.
    expect(await commandsOf(() => client(c).get(taskId))).toEqual({ get: 1 });
    expect(await commandsOf(() => client(a).get(taskId))).toEqual({ get: 1 });
    const answers = await Promise.all([a, b, c].map((i) => client(i).get(taskId)));
    for (const r of answers) expect(r.body).toEqual(answers[0]!.body);
    expectShape(S.getTask, answers[0]!.body.result);

    // An answer or a cancel: one read and one compare-and-set (the work reacts to neither here).
    const parked = await client(a).create("two_rounds");
    await until(async () => (await client(b).get(parked.taskId)).body.result.status === "input_required");
    const running = await client(a).create("controlled");
    for (const send of [() => client(b).update(parked.taskId, { confirm: { action: "decline" } }), () => client(b).cancel(running.taskId)]) {
      const ahead = await stats();
      expect(ownFields((await send()).body.result)).toEqual({ resultType: "complete" });
      expect((await stats()).evalsha! - ahead.evalsha!).toBe(2);
    }
    expect(Object.keys((await client(b).get(parked.taskId)).body.result.inputRequests)).toEqual(["name"]);
    expect((await client(b).get(running.taskId)).body.result.status).toBe("cancelled");
  });

  it("reads a task it knew finished by the script again once its key is gone or no longer a finished task's", async () => {
    const { instances: [a, b] } = start(2);
    const gone = await client(a).create("tool_error");
    const reused = await client(a).create("tool_error");
    const parked = await client(a).create("confirm_delete");
    for (const id of [gone.taskId, reused.taskId]) await until(async () => (await client(b).get(id)).body.result.status === "completed");
    await until(async () => (await client(b).get(parked.taskId)).body.result.status === "input_required");
    const key = (id: string) => `${a.store.keyPrefix}task:${id}`;
    // Deleted (as by an operator): unknown at once, at the instance that wrote it and at one that read it.
    await clusters.redis.cli("DEL", key(gone.taskId));
    for (const i of [a, b]) expectError((await client(i).get(gone.taskId)).body, -32602);
    // A live task's hash where the finished string was: the GET is refused, and the script reads it.
    await clusters.redis.cli("COPY", key(parked.taskId), key(reused.taskId), "REPLACE");
    for (const i of [a, b]) {
      const r = await client(i).get(reused.taskId);
      expectShape(S.getTask, r.body.result);
      expect(r.body.result.status).toBe("input_required");
    }
  });

  it("writes the worker's own changes, and answers and cancels that reach its instance, with no read first", async () => {
    const { instances: [a] } = start(1);
    const evalsha = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await clusters.redis.cli("INFO", "commandstats"))?.[1] ?? 0);
    // Creation, then the work's own end: one create script and one compare-and-set.
    const before = await evalsha();
    const done = await client(a).create("tool_error");
    await until(() => a.plugin.stats.localTasks === 0);
    expect((await evalsha()) - before).toBe(2);
    expect((await client(a).get(done.taskId)).body.result.status).toBe("completed");
    const parked = await client(a).create("confirm_delete");
    await until(async () => (await client(a).get(parked.taskId)).body.result.status === "input_required");
    const running = await client(a).create("controlled");
    await client(a).get(running.taskId);
    // A cancel here: one compare-and-set.
    const ahead = await evalsha();
    expect(ownFields((await client(a).cancel(running.taskId)).body.result)).toEqual({ resultType: "complete" });
    expect((await evalsha()) - ahead).toBe(1);
    // An answer here, and the end of the work it resumes: one compare-and-set each.
    const asked = await evalsha();
    await client(a).update(parked.taskId, { confirm: { action: "accept", content: { confirm: true } } });
    await until(() => a.plugin.stats.localTasks === 0);
    expect((await evalsha()) - asked).toBe(2);
    expect((await client(a).get(parked.taskId)).body.result.result.content).toEqual([{ type: "text", text: "Deleted." }]);
    expect((await client(a).get(running.taskId)).body.result.status).toBe("cancelled");
  });

  it("publishes a worker's own change only while a listen stream waits on the task, and with no event", async () => {
    const { instances: [a, b] } = start(2);
    const sub = createClient({ url: clusters.redis.url });
    await sub.connect();
    const heard: Record<string, any>[] = [];
    const raw: string[] = [];
    await sub.subscribe(`${a.store.keyPrefix}changes`, (m) => (raw.push(m), heard.push(JSON.parse(m))));
    try {
      // Nobody listens: the worker's changes stay between it and Redis.
      const quiet = await client(a).create("tool_error");
      await until(async () => (await client(b).get(quiet.taskId)).body.result.status === "completed");
      // A listen stream on another instance: the worker's end is published, without the event.
      const own = await client(a).create("controlled");
      const listened = sseReader(await b.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [own.taskId] } }, { caps, id: 6 })));
      expect((await listened.next()).method).toBe("notifications/subscriptions/acknowledged");
      expect((await listened.next()).params.status).toBe("working");
      a.gates.open(own.taskId, { content: [{ type: "text", text: "done" }] });
      expect((await listened.next(2000)).params.status).toBe("completed");
      await listened.close();
      // A cancel from another instance is always published, with the event the worker's actor takes.
      const other = await client(a).create("controlled");
      await client(b).cancel(other.taskId);
      await until(() => a.seen.signalAborted.includes(other.taskId));
      await until(() => heard.length === 2);
      expect(heard.some((m) => m.i === quiet.taskId)).toBe(false);
      const of = (id: string) => heard.find((m) => m.i === id);
      expect(of(own.taskId)).toMatchObject({ v: 2, t: "completed", s: { value: "completed" } });
      expect(of(own.taskId)).not.toHaveProperty("e");
      expect(of(other.taskId)).toMatchObject({ v: 2, t: "cancelled", e: { type: "task.cancel" } });
      for (const [i, m] of raw.entries()) expect(m.startsWith(`{"i":${JSON.stringify(heard[i]!.i)},"v":${heard[i]!.v},`)).toBe(true);
    } finally {
      await sub.close();
    }
  });

  it("reads a snapshot another chart version wrote when it fits this chart, so a deploy strands no task working", async () => {
    const { instances: [a, b] } = start(2);
    const older = await client(a).create("controlled");
    await clusters.redis.cli("HSET", `${a.store.keyPrefix}task:${older.taskId}`, "cv", "previous-chart");
    expect((await client(b).get(older.taskId)).body.result.status).toBe("working");
    await client(b).cancel(older.taskId);
    expect((await client(a).get(older.taskId)).body.result.status).toBe("cancelled");
  });

  it("refuses, clearly, a snapshot of another chart version that does not fit this chart, and keeps serving the rest", async () => {
    const { instances: [a, b] } = start(2);
    const odd = await client(a).create("controlled");
    const fine = await client(a).create("controlled");
    const key = `${a.store.keyPrefix}task:${odd.taskId}`;
    await clusters.redis.cli("HSET", key, "cv", "another-chart", "s", JSON.stringify({ value: "paused", context: { taskId: odd.taskId } }));
    const { CHART_VERSION } = await import("../../src/tasks/snapshot-codec.ts");
    for (const op of ["get", "cancel"] as const) {
      const r = await client(b)[op](odd.taskId);
      expect(expectError(r.body, -32603).message).toBe(
        `Task ${odd.taskId} cannot be read by this server: it was written by task chart version another-chart and does not fit this server's chart ${CHART_VERSION} (context.createdAt is missing or not what this chart reads)`,
      );
    }
    expect((await client(b).get(fine.taskId)).body.result.status).toBe("working");
  });
});

describe("bind", () => {
  const principal = (e: any) => ({ user: e.req.headers.get("x-user"), org: "acme" });
  const reordered = (e: any) => ({ org: "acme", user: e.req.headers.get("x-user") });

  it("compares owners by value across instances and stores only a keyed hash of them", async () => {
    const prefix = `bind-${Date.now()}`;
    const a = start(1, { bind: principal }, { prefix }).instances[0]!;
    const b = start(1, { bind: reordered }, { prefix }).instances[0]!;
    const alice = { headers: { "x-user": "alice-principal" } };
    const { taskId } = await client(a, alice).create("controlled");
    expect((await client(b, alice).get(taskId)).body.result.status).toBe("working");
    expectError((await client(b, { headers: { "x-user": "mallory" } }).get(taskId)).body, -32602);
    const keys = (await clusters.redis.cli("KEYS", `{${prefix}}:*`)).split("\n").filter(Boolean);
    for (const key of keys) {
      const type = await clusters.redis.cli("TYPE", key);
      const dump = type === "hash" ? await clusters.redis.cli("HGETALL", key) : type === "zset" ? await clusters.redis.cli("ZRANGE", key, "0", "-1") : await clusters.redis.cli("GET", key);
      expect(dump).not.toContain("alice-principal");
    }
  });

  it("refuses at creation a bind value that is neither a string nor JSON, as the in-memory store does", async () => {
    const { instances: [a] } = start(1, { bind: () => new Date() });
    const r = await call(a.app, "tools/call", { name: "try_task" }, { caps });
    expect(r.body.result.content[0].text).toBe("no task: Internal error");
    const plain = await call(a.app, "tools/call", { name: "controlled" }, { caps });
    expect(plain.body.error).toEqual({ code: -32603, message: "Internal error" });
    expect(await clusters.redis.cli("KEYS", `${a.store.keyPrefix}task:*`)).toBe("");
  });
});

describe("the worker", () => {
  it("runs each task as an actor the inspector sees, changed from any instance", async () => {
    const events: InspectionEvent[] = [];
    const { instances: [a, b] } = start(2, { inspect: (e) => events.push(e) });
    const { taskId } = await client(a).create("confirm_delete");
    await until(async () => (await client(b).get(taskId)).body.result.status === "input_required");
    await client(b).update(taskId, { confirm: { action: "accept", content: { confirm: true } } });
    await until(() => events.some((e) => e.type === "@xstate.snapshot" && (e.snapshot as any).value === "completed"));
    const actors = events.filter((e) => e.type === "@xstate.actor").map((e) => (e.actorRef as { id?: string }).id);
    expect(actors).toEqual([taskId]);
    const values = events.filter((e) => e.type === "@xstate.snapshot").map((e) => (e.snapshot as any).value);
    expect(values).toEqual(["working", "input_required", "working", "completed"]);
    expect(b.plugin.stats.localTasks).toBe(0);
  });
});

describe("listen streams on every instance", () => {
  it("get a finished task's final frame right after the acknowledgement", async () => {
    const { instances: [a, b] } = start(2);
    const { taskId } = await client(a).create("tool_error");
    await until(async () => (await client(a).get(taskId)).body.result.status === "completed");
    const sse = sseReader(await b.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: 9 })));
    expect((await sse.next()).method).toBe("notifications/subscriptions/acknowledged");
    const frame = await sse.next();
    expectShape(S.taskNotification, frame);
    const { resultType: _, ...task } = (await client(b).get(taskId)).body.result;
    expect(frame.params).toEqual({ ...task, _meta: { "io.modelcontextprotocol/subscriptionId": 9 } });
    expect(b.plugin.stats.listeners).toBe(0);
    await sse.close();
  });

  it("hear notifyListChanged from any instance", async () => {
    const { instances: [a, b, c] } = start(3);
    const sse = sseReader(await b.app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { caps, id: 3 })));
    expect((await sse.next()).params.notifications).toEqual({ toolsListChanged: true });
    await until(async () => Number((await clusters.redis.cli("PUBSUB", "NUMSUB", `${a.store.keyPrefix}hub`)).split("\n")[1]) === 3);
    a.handler.notifyListChanged("tools");
    const frame = await sse.next(2000);
    expect(frame).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { "io.modelcontextprotocol/subscriptionId": 3 } } });
    // Once, although three instances share the channel (the announcing one does not hear itself twice).
    c.handler.notifyListChanged("tools");
    expect((await sse.next(2000)).method).toBe("notifications/tools/list_changed");
    expect(await sse.quiet(150)).toBe(true);
    await sse.close();
  });

  it("hear notifyResourceUpdated from any instance, for the URIs they subscribed to", async () => {
    const prefix = `hub-${Date.now()}`;
    const [a, b] = [0, 1].map(() => {
      const store = redisTaskStore({ url: clusters.redis.url, prefix });
      const handler = defineMcpHandler({ name: "r", version: "1", resources }, { extensionPlugins: [mcpTasks({ store })] });
      return { handler, app: appFor(handler), store };
    }) as [any, any];
    open.push({ close: () => Promise.all([a.store.close(), b.store.close()]) });
    const sse = sseReader(await b.app.fetch(modernRequest("subscriptions/listen", { notifications: { resourceSubscriptions: ["test://text"] } }, { caps, id: 4 })));
    expect((await sse.next()).params.notifications).toEqual({ resourceSubscriptions: ["test://text"] });
    await until(async () => Number((await clusters.redis.cli("PUBSUB", "NUMSUB", `{${prefix}}:hub`)).split("\n")[1]) === 2);
    a.handler.notifyResourceUpdated("test://bytes");
    a.handler.notifyResourceUpdated("test://text");
    const frame = await sse.next(2000);
    expect(frame).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://text", _meta: { "io.modelcontextprotocol/subscriptionId": 4 } },
    });
    expect(await sse.quiet(150)).toBe(true);
    await sse.close();
  });
});
