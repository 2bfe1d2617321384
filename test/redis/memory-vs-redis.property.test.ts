// The same random story told to the in-memory store and to two instances sharing Redis, compared answer for
// answer: tasks are created on either instance, their runs report, ask, return and throw, clients answer and
// cancel through either instance, the clock moves past expiries, and one instance may crash. After every step
// each task's tasks/get, asked of every instance, must settle on what the in-memory store answers. A crash is
// told to the memory store as what it must look like: the run fails with the lost-instance error.
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { mcpElicit, McpJsonRpcError } from "../../src/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { drivenTasksApp, type TaskDriver } from "../../src/tasks/testing/task-driver.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const NUM_RUNS = Number(process.env.REDIS_PROPERTY_RUNS ?? 25);
const TTL_MS = 60_000;
const LOST = "The server instance running this task was lost";
const SETTLE_MS = 3000;

/** What the stories reached, so a run that exercised little is noticed. */
const reached = new Set<string>();
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

type Op =
  | { kind: "create"; on: number }
  | { kind: "status"; t: number; statusMessage: string }
  | { kind: "request"; t: number; keys: string[] }
  | { kind: "answer"; t: number; on: number; picks: number[]; accept: boolean }
  | { kind: "finish"; t: number; how: "return" | "toolError" | "protocolError" }
  | { kind: "cancel"; t: number; on: number }
  | { kind: "advance"; ms: number }
  | { kind: "crash"; on: number };

const t = fc.nat(5);
const on = fc.nat(1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: on.map((on) => ({ kind: "create" as const, on })) },
  { weight: 2, arbitrary: fc.record({ t, statusMessage: fc.constantFrom("Step 1", "Step 2") }).map((o) => ({ kind: "status" as const, ...o })) },
  { weight: 3, arbitrary: fc.record({ t, keys: fc.uniqueArray(fc.constantFrom("confirm", "name"), { minLength: 1, maxLength: 2 }) }).map((o) => ({ kind: "request" as const, ...o })) },
  { weight: 3, arbitrary: fc.record({ t, on, picks: fc.array(fc.nat(2), { minLength: 1, maxLength: 2 }), accept: fc.boolean() }).map((o) => ({ kind: "answer" as const, ...o })) },
  { weight: 2, arbitrary: fc.record({ t, how: fc.constantFrom("return" as const, "toolError" as const, "protocolError" as const) }).map((o) => ({ kind: "finish" as const, ...o })) },
  { weight: 1, arbitrary: fc.record({ t, on }).map((o) => ({ kind: "cancel" as const, ...o })) },
  { weight: 1, arbitrary: fc.constantFrom(1000, TTL_MS / 2, TTL_MS + 1).map((ms) => ({ kind: "advance" as const, ms })) },
  { weight: 1, arbitrary: on.map((on) => ({ kind: "crash" as const, on })) },
);

const sequentialIds = () => {
  let n = 0;
  return () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, "0")}`;
};

async function runStory(ops: Op[]): Promise<void> {
  let now = Date.UTC(2026, 6, 28, 9, 0);
  const common = { clock: { now: () => now }, ttlMs: TTL_MS, pollIntervalMs: 500 };
  const memory = drivenTasksApp({ ...common, newTaskId: sequentialIds() });
  const prefix = `prop-${randomUUID().slice(0, 8)}`;
  const stores: RedisTaskStore[] = [0, 1].map(() => redisTaskStore({ url: redis.url, prefix, leaseMs: 1000, timeoutMs: 1000 }));
  const shared = drivenTasksApp({ ...common, newTaskId: sequentialIds() }, "Queued", stores.map((store) => ({ store })));
  const tasks: { id: string; home: number; lost: boolean }[] = [];
  const dead = new Set<number>();
  const alive = (k: number) => (dead.has(k) ? 1 - k : k);

  /** Every task's answer, asked of the memory store and of each live instance: equal once settled. */
  const compare = async (step: string) => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    for (const task of tasks) {
      const expected = (await call(memory.app, "tasks/get", { taskId: task.id }, { caps })).body;
      delete expected.id;
      reached.add(expected.result?.error?.message === LOST ? "lost" : (expected.result?.status ?? `error ${expected.error?.code}`));
      for (const k of [0, 1]) {
        if (dead.has(k)) continue;
        const end = Date.now() + SETTLE_MS;
        for (;;) {
          const got = (await call(shared.apps[k]!, "tasks/get", { taskId: task.id }, { caps })).body;
          delete got.id;
          try {
            expect(got, `${step}: task ${task.id} on instance ${k}`).toStrictEqual(expected);
            break;
          } catch (error) {
            if (Date.now() > end) throw error;
            await new Promise((r) => setTimeout(r, 5));
          }
        }
      }
    }
  };
  /** Both worlds' drivers of task `i`, unless it is unknown or its run was on a crashed instance. */
  const drivers = (i: number): [TaskDriver, TaskDriver] | undefined => {
    const task = tasks[i];
    if (!task || task.lost) return undefined;
    return [memory.driver(task.id), shared.driver(task.id)];
  };

  try {
    for (const [n, op] of ops.entries()) {
      const step = `step ${n + 1} ${JSON.stringify(op)}`;
      switch (op.kind) {
        case "create": {
          const k = alive(op.on);
          const a = (await call(memory.app, "tools/call", { name: "driven" }, { caps })).body;
          const b = (await call(shared.apps[k]!, "tools/call", { name: "driven" }, { caps })).body;
          expect(b, step).toStrictEqual(a);
          if (a.result?.resultType === "task") tasks.push({ id: a.result.taskId, home: k, lost: false });
          break;
        }
        case "status":
        case "request":
        case "finish": {
          const both = drivers(op.t);
          if (!both) continue;
          for (const d of both) {
            if (op.kind === "status") await d.send({ type: "update", statusMessage: op.statusMessage });
            else if (op.kind === "request") {
              const requests = Object.fromEntries(op.keys.map((key) => [key, mcpElicit({ message: `${key}?`, requestedSchema: { type: "object", properties: {} } })]));
              await d.send({ type: "request", requests, ifIdle: true });
            } else if (op.how === "return") await d.send({ type: "return" });
            else if (op.how === "toolError") await d.send({ type: "throw", error: new Error("tool failed") });
            else await d.send({ type: "throw", error: new McpJsonRpcError(-32603, "upstream is down") });
          }
          break;
        }
        case "answer": {
          const task = tasks[op.t];
          if (!task) continue;
          const shown = Object.keys((await call(memory.app, "tasks/get", { taskId: task.id }, { caps })).body.result?.inputRequests ?? {});
          const keys = [...new Set(op.picks.map((p) => shown[p] ?? "never-issued"))];
          const inputResponses = Object.fromEntries(keys.map((key) => [key, op.accept ? { action: "accept", content: {} } : { action: "decline" }]));
          const a = (await call(memory.app, "tasks/update", { taskId: task.id, inputResponses }, { caps })).body;
          const b = (await call(shared.apps[alive(op.on)]!, "tasks/update", { taskId: task.id, inputResponses }, { caps })).body;
          expect(b, step).toStrictEqual(a);
          break;
        }
        case "cancel": {
          const task = tasks[op.t];
          if (!task) continue;
          const a = (await call(memory.app, "tasks/cancel", { taskId: task.id }, { caps })).body;
          const b = (await call(shared.apps[alive(op.on)]!, "tasks/cancel", { taskId: task.id }, { caps })).body;
          expect(b, step).toStrictEqual(a);
          break;
        }
        case "advance":
          now += op.ms;
          break;
        case "crash": {
          // One crash per story, so one instance always survives to be asked.
          if (dead.size) continue;
          dead.add(op.on);
          await stores[op.on]!.close();
          await redis.cli("DEL", stores[op.on]!.leaseKey);
          for (const task of tasks) {
            if (task.home !== op.on || task.lost) continue;
            task.lost = true;
            await memory.driver(task.id).send({ type: "throw", error: new McpJsonRpcError(-32603, LOST) });
          }
          break;
        }
      }
      await compare(step);
    }
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
}

it("tells the same story in memory and on two instances sharing Redis", async () => {
  // One story known to reach every status, told first; then random ones.
  const everything: Op[] = [
    { kind: "create", on: 0 },
    { kind: "create", on: 1 },
    { kind: "request", t: 0, keys: ["confirm"] },
    { kind: "answer", t: 0, on: 1, picks: [0], accept: true },
    { kind: "finish", t: 0, how: "return" },
    { kind: "cancel", t: 1, on: 0 },
    { kind: "create", on: 0 },
    { kind: "create", on: 1 },
    { kind: "finish", t: 2, how: "protocolError" },
    { kind: "crash", on: 1 },
    { kind: "advance", ms: TTL_MS + 1 },
  ];
  await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), runStory), { numRuns: NUM_RUNS, examples: [[everything]] });
  expect([...reached].sort()).toEqual(["cancelled", "completed", "error -32602", "failed", "input_required", "lost", "working"]);
}, 300_000);
