// Caller isolation as a property: several callers, each with its own `bind` value, run random sequences of
// create, get, update, cancel and listen (and every task's `run` moves on its own: status messages, input rounds,
// returning, throwing). No caller ever observes, answers, cancels or is notified about another caller's task:
//
// - a foreign tasks/get, tasks/update or tasks/cancel gets exactly the bytes (and status) the same request gets
//   for an id that never existed;
// - it changes nothing: the owner's tasks/get is byte-identical before and after, the task's signal is not
//   aborted, and an input round it tried to answer is still waiting;
// - a listen acknowledgement agrees to exactly the requested ids the caller owns, and every notifications/tasks
//   frame on a stream is about one of them; a stream still open sees the terminal frame of each agreed task that
//   finished while it listened.
import fc from "fast-check";
import type { H3Event } from "h3";
import { describe, expect, it } from "vitest";
import { mcpElicit } from "../../src/index.ts";
import { mountOf } from "../../src/transport/handler.ts";
import { drivenTasksApp, type TaskDriver } from "../../src/tasks/testing/task-driver.ts";
import { CALLER, createClock, META_SUB, modern, SCHEMAS, shapeIssues, sseMessages, TASKS, turns } from "./support.ts";

const RUNS = Number(process.env.ISOLATION_RUNS ?? 100);
const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
/** `bind` values: two that differ only in case, and a caller that sends no header at all (bound to `null`). */
const CALLERS = ["alice", "Alice", "bob", undefined] as const;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const askOk = mcpElicit({ message: "Ok?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } });

type Op =
  | { t: "create"; caller: number }
  | { t: "get" | "cancel"; caller: number; target: number }
  | { t: "update"; caller: number; target: number; bogus: boolean; action: "accept" | "decline" }
  | { t: "listen"; caller: number; targets: number[]; unknown: boolean }
  | { t: "close"; stream: number }
  | { t: "run"; target: number; command: "update" | "request" | "return" | "throw" };

const caller = fc.nat(CALLERS.length - 1);
/** For get, update and cancel: -1 is the task's owner, so owners' traffic is as common as foreign traffic. */
const actor = fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 3, arbitrary: caller });
/** Counts back from the newest task, recent ones most often, so rounds are still open when answered. */
const target = fc.oneof({ weight: 4, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.nat(20) });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant("create" as const), caller }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constantFrom("get" as const, "cancel" as const), caller: actor, target }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("update" as const), caller: actor, target, bogus: fc.boolean(), action: fc.constantFrom("accept" as const, "decline" as const) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("listen" as const), caller, targets: fc.array(target, { minLength: 1, maxLength: 4 }), unknown: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("close" as const), stream: fc.nat(10) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("run" as const),
      target,
      command: fc.oneof(
        { weight: 4, arbitrary: fc.constant("request" as const) },
        { weight: 2, arbitrary: fc.constant("update" as const) },
        { weight: 1, arbitrary: fc.constantFrom("return" as const, "throw" as const) },
      ),
    }),
  },
);

interface Stream {
  id: string;
  caller: number;
  agreed: string[];
  /** Status of each agreed task when the stream was acknowledged. */
  statusAtAck: Map<string, string>;
  frames: any[];
  reader: ReturnType<typeof sseMessages>;
  pump: Promise<void>;
  open: boolean;
}

/** What the sequences actually exercised, so a generator that stops reaching a case fails the test. */
const stats = { foreign: { get: 0, update: 0, cancel: 0 }, foreignAnswersToOpenRound: 0, ownerAnswers: 0, frames: 0, foreignListenIds: 0 };

async function scenario(ops: Op[], bind: (event: H3Event) => unknown = (e) => e.req.headers.get(CALLER)): Promise<void> {
  const clock = createClock();
  const { app, plugin, driver, handlers } = drivenTasksApp({ bind, clock: { now: clock.read }, ttlMs: null });
  const tasks: { id: string; owner: number; driver: TaskDriver }[] = [];
  const streams: Stream[] = [];
  let rpcId = 0;
  let unknownSerial = 0;

  const headersOf = (c: number) => (CALLERS[c] === undefined ? {} : { caller: CALLERS[c] });
  const send = async (method: string, params: Record<string, unknown>, c: number, id = ++rpcId) => {
    const res = await app.fetch(modern(method, params, { id, caps, ...headersOf(c) }));
    return { status: res.status, text: await res.text() };
  };
  const ownerView = async (task: (typeof tasks)[number]) => (await send("tasks/get", { taskId: task.id }, task.owner, 0)).text;
  const pick = (i: number) => tasks[tasks.length - 1 - (i % tasks.length)]!;
  const freshUnknown = () => `ffffffff-0000-4000-8000-${(++unknownSerial).toString(16).padStart(12, "0")}`;

  for (const o of ops) {
    clock.advance(1000);
    if (o.t === "create") {
      const r = await send("tools/call", { name: "driven" }, o.caller);
      const handle = JSON.parse(r.text).result;
      expect(shapeIssues(SCHEMAS.createTask, handle)).toBeUndefined();
      tasks.push({ id: handle.taskId, owner: o.caller, driver: driver(handle.taskId) });
      await turns(1);
      continue;
    }
    if (o.t === "close") {
      const s = streams.filter((x) => x.open)[o.stream % Math.max(1, streams.length)];
      if (s) {
        s.open = false;
        await s.reader.close();
        await s.pump;
      }
      continue;
    }
    if (o.t === "listen") {
      const requested = tasks.length ? o.targets.map((i) => pick(i).id) : [];
      if (o.unknown) requested.push(freshUnknown());
      const id = `sub-${++rpcId}`;
      const res = await app.fetch(modern("subscriptions/listen", { notifications: { taskIds: requested } }, { id, caps, ...headersOf(o.caller) }));
      expect(res.status).toBe(200);
      const reader = sseMessages(res);
      const ack = await reader.next();
      expect(shapeIssues(SCHEMAS.listenAck, ack)).toBeUndefined();
      const mine = [...new Set(requested)].filter((taskId) => tasks.find((t) => t.id === taskId)?.owner === o.caller);
      stats.foreignListenIds += new Set(requested).size - mine.length;
      // Exactly the caller's own ids: never another caller's, never an unknown one.
      expect(ack.params.notifications.taskIds).toEqual(mine);
      const stream: Stream = { id, caller: o.caller, agreed: mine, statusAtAck: new Map(), frames: [], reader, pump: Promise.resolve(), open: true };
      for (const taskId of mine) {
        stream.statusAtAck.set(taskId, JSON.parse(await ownerView(tasks.find((t) => t.id === taskId)!)).result.status);
      }
      stream.pump = (async () => {
        for (let m = await reader.next(); m !== undefined; m = await reader.next()) stream.frames.push(m);
      })();
      streams.push(stream);
      continue;
    }
    if (!tasks.length) continue;
    // An answer goes to a task with an open round when there is one: that is the case worth checking.
    const waiting = tasks.filter((t) => t.driver.calls.some((c) => c.state === "pending"));
    const task = o.t === "update" && !o.bogus && waiting.length ? waiting[o.target % waiting.length]! : pick(o.target);
    if (o.t === "run") {
      const d = task.driver;
      if (o.command === "update") await d.send({ type: "update", statusMessage: `at ${clock.now}` });
      else if (o.command === "request") await d.send({ type: "request", requests: { ok: askOk }, ifIdle: true });
      else if (o.command === "return") await d.send({ type: "return" });
      else await d.send({ type: "throw", error: new Error("boom") });
      await turns(2);
      continue;
    }

    // get, update, cancel
    const who = o.caller === -1 ? task.owner : o.caller;
    const view = JSON.parse(await ownerView(task)).result;
    const keys = o.t === "update" && !o.bogus && view.status === "input_required" ? Object.keys(view.inputRequests) : ["nope"];
    const params: Record<string, unknown> = { taskId: task.id };
    if (o.t === "update") params.inputResponses = Object.fromEntries(keys.map((k) => [k, { action: o.action, content: { ok: true } }]));
    const method = `tasks/${o.t}`;

    if (who === task.owner) {
      if (o.t === "update" && keys[0] !== "nope") stats.ownerAnswers++;
      const r = await send(method, params, who);
      expect(r.status).toBe(200);
      const result = JSON.parse(r.text).result;
      expect(shapeIssues(o.t === "get" ? SCHEMAS.getTask : o.t === "update" ? SCHEMAS.updateTask : SCHEMAS.cancelTask, result)).toBeUndefined();
      if (o.t === "cancel") {
        await turns(1);
        const after = JSON.parse(await ownerView(task)).result.status;
        expect(after).toBe(TERMINAL.has(view.status) ? view.status : "cancelled");
      }
      await turns(2);
      continue;
    }

    // A foreign caller: the same answer as for an id that never existed, and no effect at all.
    stats.foreign[o.t]++;
    if (o.t === "update" && keys[0] !== "nope") stats.foreignAnswersToOpenRound++;
    const before = await ownerView(task);
    const aborted = task.driver.task.signal.aborted;
    const pending = task.driver.calls.filter((c) => c.state === "pending").length;
    const id = ++rpcId;
    const foreign = await send(method, params, who, id);
    const unknownId = freshUnknown();
    const twin = await send(method, { ...params, taskId: unknownId }, who, id);
    expect(foreign).toEqual(twin);
    expect(foreign.status).toBe(400);
    await turns(2);
    expect(await ownerView(task)).toBe(before);
    expect(task.driver.task.signal.aborted).toBe(aborted);
    expect(task.driver.calls.filter((c) => c.state === "pending").length).toBe(pending);
  }

  // Notifications: only about the stream's own agreed tasks, and none missed while it listened.
  await turns(3);
  for (const s of streams) {
    stats.frames += s.frames.length;
    for (const frame of s.frames) {
      expect(frame.method).toBe("notifications/tasks");
      expect(s.agreed).toContain(frame.params.taskId);
      expect(frame.params._meta[META_SUB]).toBe(s.id);
      expect(shapeIssues(SCHEMAS.taskNotification, frame)).toBeUndefined();
    }
    if (!s.open) continue;
    for (const taskId of s.agreed) {
      const final = JSON.parse(await ownerView(tasks.find((t) => t.id === taskId)!)).result.status;
      if (TERMINAL.has(final) && !TERMINAL.has(s.statusAtAck.get(taskId)!)) {
        expect(s.frames.filter((f) => f.params.taskId === taskId).at(-1)?.params.status).toBe(final);
      }
    }
  }
  for (const s of streams) {
    await s.reader.close();
    await s.pump;
  }
  await turns(1);
  expect(plugin.stats.listeners).toBe(0);
  expect(handlers.map((h) => mountOf(h).streams.size)).toEqual(handlers.map(() => 0));
}

describe("caller isolation", () => {
  it(`holds over ${RUNS} random sequences of create, get, update, cancel, listen and task progress by ${CALLERS.length} callers`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 50 }), async (ops) => {
        await scenario(ops);
      }),
      { numRuns: RUNS, seed: Number(process.env.ISOLATION_SEED ?? 2663) },
    );
    // The sequences reached every kind of foreign access, and the owners' own traffic went through.
    const floor = Math.ceil(RUNS / 6);
    expect(Math.min(stats.foreign.get, stats.foreign.update, stats.foreign.cancel)).toBeGreaterThanOrEqual(floor);
    expect(stats.foreignAnswersToOpenRound).toBeGreaterThanOrEqual(floor);
    expect(stats.foreignListenIds).toBeGreaterThanOrEqual(floor);
    expect(stats.ownerAnswers).toBeGreaterThanOrEqual(floor);
    expect(stats.frames).toBeGreaterThanOrEqual(floor);
  }, 120_000);

  it("is a property that fails when bind does not tell the callers apart", async () => {
    const run = fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 50 }), (ops) => scenario(ops, () => "everyone")),
      { numRuns: RUNS, seed: 1 },
    );
    await expect(run).rejects.toThrow(/Property failed/);
  });

  it("hands another caller exactly the unknown-id answer, whatever the method", async () => {
    const { app } = drivenTasksApp({ bind: (e) => e.req.headers.get(CALLER) });
    const created = await app.fetch(modern("tools/call", { name: "driven" }, { caps, caller: "alice" }));
    const { taskId } = JSON.parse(await created.text()).result;
    for (const [method, extra] of [["tasks/get", {}], ["tasks/update", { inputResponses: {} }], ["tasks/cancel", {}]] as const) {
      const theirs = await app.fetch(modern(method, { taskId, ...extra }, { caps, caller: "bob" }));
      const none = await app.fetch(modern(method, { taskId: "00000000-0000-4000-8000-000000000000", ...extra }, { caps, caller: "bob" }));
      expect([theirs.status, await theirs.text()]).toEqual([none.status, await none.text()]);
    }
    expect((await app.fetch(modern("tasks/get", { taskId }, { caps, caller: "alice" }))).status).toBe(200);
  });

  it("recomputes bind on every request: a caller whose bind value changes loses the task", async () => {
    const { app } = drivenTasksApp({ bind: (e) => e.req.headers.get(CALLER) });
    const { taskId } = JSON.parse(await (await app.fetch(modern("tools/call", { name: "driven" }, { caps, caller: "alice" }))).text()).result;
    expect((await app.fetch(modern("tasks/get", { taskId }, { caps, caller: "alice" }))).status).toBe(200);
    expect((await app.fetch(modern("tasks/get", { taskId }, { caps }))).status).toBe(400);
    expect((await app.fetch(modern("tasks/get", { taskId }, { caps, caller: "ALICE" }))).status).toBe(400);
  });
});
