// The soak: many concurrent tasks, each with a random plan its `run` follows one step at a time, driven over the
// wire with random status updates, answers (whole and partial), cancels, races of an answer against a cancel,
// listeners that come and go, and a fake clock that lets a short TTL expire tasks in every state; then a sweep.
// Shared by test/reliability/soak.test.ts (a few hundred tasks) and scripts/soak.ts (10 000).
//
// Each task is driven by one operation at a time (operations on different tasks run concurrently), so a model
// knows exactly what the server must answer. It checks:
// - every status a client observes is reachable from the one before it along an edge of the chart, and each
//   task ends in the state its plan and the operations predict;
// - every answer tasks/update accepted reaches `run`: a round that completed resolves `requestInput` with exactly
//   the answers sent, and a round the task left (cancel, expiry) rejects it; no round stays pending;
// - afterwards the store is empty, no listener, listen stream, hub subscriber, timer or AbortSignal listener is
//   left, and (with a gc at hand) no task, actor or signal stays reachable.
import { memoryStore } from "../helpers/memory-store.ts";
import { getEventListeners } from "node:events";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { taskMachine } from "../../machines/task.machine.ts";
import { defineMcpHandler, defineTool, mcpElicit, McpJsonRpcError, type CallToolResult } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import {
  activeResources,
  CALLER,
  collectGarbage,
  createClock,
  modern,
  resourceGrowth,
  SCHEMAS,
  sequentialIds,
  shapeIssues,
  sseMessages,
  TASKS,
  turns,
} from "./support.ts";
import { mountWithEscapeLog } from "./support.ts";
import { mountOf } from "../../src/transport/handler.ts";

export interface SoakOptions {
  tasks: number;
  seed: number;
  /** Tasks driven at once per phase. Default: a quarter of the tasks, at least 20. */
  concurrency?: number;
  /** Listen streams opened at the start (some close mid-way). Default 10. */
  listeners?: number;
  ttlMs?: number;
  /** Check reachability after GC (needs a gc function; see support.getGc). Default true. */
  weakRefs?: boolean;
  onProgress?: (message: string) => void;
  /** Faults planted in the soak's own tools, to show that its checks notice them. */
  sabotage?: {
    /** Every task's run context is kept here: a leak. */
    retain?: object[];
    /** Runs drop the answers their rounds resolve with: a lost answer. */
    forgetAnswers?: boolean;
  };
}

export interface SoakReport {
  tasks: number;
  requests: number;
  phases: number;
  ms: number;
  /** How tasks ended: completed, failed, cancelled, or expired (failed by the TTL, then dropped). */
  endings: Record<string, number>;
  roundsCompleted: number;
  roundsLeft: number;
  answersAccepted: number;
  races: { answerFirst: number; cancelFirst: number };
  notifications: number;
  /** Objects still reachable after GC that should not be (tasks' contexts and signals). */
  reachable?: number;
  resourceGrowth: Record<string, number>;
  problems: string[];
}

const STEP = ["update", "ask", "return", "throw", "rpc", "hang"] as const;
type Step = (typeof STEP)[number];
const askConfirm = mcpElicit({ message: "Go on?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });
const askName = mcpElicit({ message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const CALLERS = ["alice", "bob", "carol", "dave"];
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Status edges of the chart, read off the machine itself (plus staying put). */
function chartEdges(): Set<string> {
  const edges = new Set<string>();
  for (const [key, node] of Object.entries(taskMachine.states)) {
    edges.add(`${key}>${key}`);
    for (const defs of (node as unknown as { transitions: Map<string, { target?: { key: string }[] }[]> }).transitions.values()) {
      for (const d of defs) for (const t of d.target ?? []) edges.add(`${key}>${t.key}`);
    }
  }
  return edges;
}

/** A small seeded PRNG (mulberry32), so a soak replays from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
    weighted: <T extends string>(w: Partial<Record<T, number>>): T => {
      const entries = Object.entries(w).filter(([, v]) => (v as number) > 0) as [T, number][];
      let r = next() * entries.reduce((s, [, v]) => s + v, 0);
      for (const [k, v] of entries) if ((r -= v) < 0) return k;
      return entries.at(-1)![0];
    },
  };
}

// --- What each task's run does, and what it leaves for the checks ---

type Round = { ok: Record<string, unknown> } | { error: string };

interface Hooks {
  /** True while `run` waits for the soak to let it take its next step. */
  waiting: boolean;
  step: number;
  release?: () => void;
  rounds: Round[];
  settled: boolean;
  signal?: AbortSignal;
  context?: object;
}

function soakApp(options: { ttlMs: number; max: number; sabotage?: SoakOptions["sabotage"] }) {
  const sabotage = options.sabotage ?? {};
  const clock = createClock();
  const hooks = new Map<string, Hooks>();
  const gate = (h: Hooks) =>
    new Promise<void>((resolve) => {
      h.waiting = true;
      h.release = () => {
        h.waiting = false;
        h.release = undefined;
        resolve();
      };
    });

  const tool = defineTool({
    name: "soak",
    inputSchema: z.object({ plan: z.array(z.enum(STEP)).max(10), cooperative: z.boolean() }),
    handler: (event, { plan, cooperative }) =>
      mcpTask(event, {
        statusMessage: "Queued",
        async run(task) {
          const h: Hooks = { waiting: false, step: 0, rounds: [], settled: false, signal: task.signal, context: task };
          hooks.set(task.taskId, h);
          sabotage.retain?.push(task);
          try {
            for (const step of plan) {
              await gate(h);
              h.step++;
              if (cooperative && task.signal.aborted) return { content: [] };
              switch (step) {
                case "update":
                  task.update({ statusMessage: `step ${h.step}` });
                  break;
                case "ask":
                  try {
                    const answers = (await task.requestInput({ confirm: askConfirm, name: askName })) as Record<string, unknown>;
                    h.rounds.push({ ok: sabotage.forgetAnswers ? {} : answers });
                  } catch (error) {
                    h.rounds.push({ error: (error as { code?: string }).code ?? String(error) });
                  }
                  break;
                case "return":
                  return { content: [{ type: "text", text: "done" }] } as CallToolResult;
                case "throw":
                  throw new Error("tool failed");
                case "rpc":
                  throw new McpJsonRpcError(-32001, "refused");
                case "hang":
                  h.waiting = false;
                  await new Promise(() => {});
              }
            }
            return { content: [] } as CallToolResult;
          } finally {
            h.settled = true;
          }
        },
      }),
  });
  const plugin = mcpTasks({
    clock: { now: clock.read },
    newTaskId: sequentialIds(1),
    ttlMs: options.ttlMs,
    max: options.max,
    bind: (event) => event.req.headers.get(CALLER),
  });
  const handler = defineMcpHandler({ name: "soak", version: "1", tools: [tool] }, { extensionPlugins: [plugin] });
  const { app, escaped } = mountWithEscapeLog(handler);
  return { app, handler, plugin, clock, hooks, escaped };
}

/**
 * Weak references to what each run was given. Made in a function of its own, so no loop variable of the
 * (async) soak keeps the last of them on the stack.
 */
function weakRefsTo(hooks: Map<string, Hooks>): [string, WeakRef<object>][] {
  const weak: [string, WeakRef<object>][] = [];
  for (const [id, h] of hooks) {
    if (h.context) weak.push([`${id} context`, new WeakRef(h.context)]);
    if (h.signal) weak.push([`${id} signal`, new WeakRef(h.signal)]);
  }
  return weak;
}

// --- The model of one task ---

interface Model {
  id: string;
  caller: string;
  plan: Step[];
  cooperative: boolean;
  createdAt: number;
  /** What a tasks/get must show; "expired" once the TTL has passed. */
  status: string;
  observed: string[];
  /** The wire keys of the open round, and the answers accepted in it so far (by the key the tool asked with). */
  open?: { keys: string[]; accepted: Record<string, unknown> };
  roundsOpened: number;
  /** What each `ask` step must have come to, in order. */
  rounds: ({ ok: Record<string, unknown> } | { error: true } | { either: Record<string, unknown> })[];
  /** `run` has ended or hangs: it takes no more steps. */
  stopped: boolean;
  /** How the task ended: its terminal status, or "expired" when the TTL caught it live. */
  ending?: string;
  /** The client never answers or cancels it: it waits for input, or hangs, until the TTL takes it. */
  neglected: boolean;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = performance.now();
  const rnd = prng(options.seed);
  const N = options.tasks;
  const ttlMs = options.ttlMs ?? 60_000;
  const concurrency = options.concurrency ?? Math.max(20, Math.floor(N / 4));
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < 50) problems.push(p);
  };
  const edges = chartEdges();
  const resourcesBefore = activeResources();
  const report: SoakReport = {
    tasks: N,
    requests: 0,
    phases: 0,
    ms: 0,
    endings: {},
    roundsCompleted: 0,
    roundsLeft: 0,
    answersAccepted: 0,
    races: { answerFirst: 0, cancelFirst: 0 },
    notifications: 0,
    resourceGrowth: {},
    problems,
  };

  let world: ReturnType<typeof soakApp> | undefined = soakApp({ ttlMs, max: N, sabotage: options.sabotage });
  const { app, plugin, clock, hooks, handler } = world;
  let rpcId = 0;
  const rpc = async (method: string, params: Record<string, unknown>, caller: string) => {
    report.requests++;
    const res = await app.fetch(modern(method, params, { id: ++rpcId, caps, caller }));
    const body = JSON.parse(await res.text());
    return { status: res.status, body };
  };

  const observe = (m: Model, status: string) => {
    const prev = m.observed.at(-1) ?? "working";
    if (!edges.has(`${prev}>${status}`)) problem(`${m.id}: ${prev} → ${status} is not an edge of the chart`);
    m.observed.push(status);
  };
  const wireKeys = (round: number) => (round === 1 ? ["confirm", "name"] : [`confirm.${round}`, `name.${round}`]);
  const userKey = (wire: string) => wire.split(".")[0]!;
  const end = (m: Model, status: string) => {
    if (!TERMINAL.has(m.status) && m.status !== "expired") {
      if (m.open) {
        m.rounds.push({ error: true });
        m.open = undefined;
      }
      m.status = status;
      m.ending = status;
    }
  };
  /** A run past its last step, not waiting for a round, has returned: its task completes (if it still can). */
  const ranOut = (m: Model) => {
    if (m.stopped || m.open || (hooks.get(m.id)?.step ?? 0) < m.plan.length) return;
    end(m, "completed");
    m.stopped = true;
  };
  /** Expires, in the model, every live task the clock has carried past its TTL (the store does it on next access). */
  const expire = (models: Model[]) => {
    for (const m of models) {
      if (m.status === "expired" || clock.now < m.createdAt + ttlMs) continue;
      if (!TERMINAL.has(m.status)) {
        if (m.open) m.rounds.push({ error: true });
        m.open = undefined;
        m.ending = "expired";
      }
      m.status = "expired";
    }
  };

  // --- Create every task, in concurrent batches ---
  const models: Model[] = [];
  const batch = Math.min(500, N);
  for (let i = 0; i < N; i += batch) {
    const made = await Promise.all(
      Array.from({ length: Math.min(batch, N - i) }, async () => {
        const plan = Array.from({ length: 1 + rnd.int(8) }, () => rnd.weighted<Step>({ update: 3, ask: 4, return: 2, throw: 1, rpc: 1, hang: 0.6 }));
        const cooperative = rnd.next() < 0.5;
        const caller = rnd.pick(CALLERS);
        const { status, body } = await rpc("tools/call", { name: "soak", arguments: { plan, cooperative } }, caller);
        const issues = shapeIssues(SCHEMAS.createTask, body.result);
        if (status !== 200 || issues) throw new Error(`soak: creation failed: ${status} ${JSON.stringify(body)}`);
        const m: Model = { id: body.result.taskId, caller, plan, cooperative, createdAt: clock.now, status: "working", observed: ["working"], roundsOpened: 0, rounds: [], stopped: false, neglected: rnd.next() < 0.2 };
        return m;
      }),
    );
    models.push(...made);
    // Creation spreads over a quarter of the TTL, so tasks expire at different times.
    clock.advance(Math.floor(ttlMs / 4 / Math.ceil(N / batch)));
  }
  await turns(2);
  if (memoryStore(plugin).size !== N) problem(`${memoryStore(plugin).size} tasks stored after creating ${N}`);
  options.onProgress?.(`created ${N} tasks`);

  // --- Listeners: one caller's tasks each; some disconnect mid-way ---
  const streams: { caller: string; agreed: Set<string>; frames: any[]; reader: ReturnType<typeof sseMessages>; pump: Promise<void>; closeAtPhase: number }[] = [];
  for (let i = 0; i < (options.listeners ?? 10); i++) {
    const caller = CALLERS[i % CALLERS.length]!;
    const ids = models.filter((m) => m.caller === caller && rnd.next() < 0.3).slice(0, 200).map((m) => m.id);
    const res = await app.fetch(modern("subscriptions/listen", { notifications: { taskIds: ids } }, { id: `listen-${i}`, caps, caller }));
    const reader = sseMessages(res);
    const ack = await reader.next();
    const agreed = new Set<string>(ack.params.notifications.taskIds);
    if (agreed.size !== ids.length) problem(`listener ${i} agreed to ${agreed.size} of its ${ids.length} own tasks`);
    const s = { caller, agreed, frames: [] as any[], reader, pump: Promise.resolve(), closeAtPhase: rnd.next() < 0.5 ? 5 + rnd.int(40) : Infinity };
    s.pump = (async () => {
      for (let msg = await reader.next(); msg !== undefined; msg = await reader.next()) s.frames.push(msg);
    })();
    streams.push(s);
  }

  // --- Drive ---
  const act = async (m: Model) => {
    const h = hooks.get(m.id);
    const live = !TERMINAL.has(m.status) && m.status !== "expired";
    const atGate = !!h?.waiting && !m.stopped;
    const attended = !m.neglected;
    const op = rnd.weighted({
      advance: atGate ? 6 : 0,
      answer: m.open && attended ? 5 : 0,
      partial: m.open && m.open.keys.length > 1 ? 2 : 0,
      race: m.open && attended ? 1 : 0,
      cancel: attended ? (live ? 0.3 : 0.1) : 0,
      get: 1.5,
    });
    if (op === "advance") {
      const step = m.plan[h!.step]!;
      h!.release!();
      await turns(1);
      if (m.cooperative && (TERMINAL.has(m.status) || m.status === "expired") && m.status !== "completed") {
        // A cooperative run sees its aborted signal and stops.
        m.stopped = true;
        return;
      }
      switch (step) {
        case "update":
          break;
        case "ask":
          if (live) {
            m.roundsOpened++;
            m.open = { keys: wireKeys(m.roundsOpened), accepted: {} };
            m.status = "input_required";
          } else m.rounds.push({ error: true });
          break;
        case "return":
        case "throw":
          end(m, "completed");
          m.stopped = true;
          break;
        case "rpc":
          end(m, "failed");
          m.stopped = true;
          break;
        case "hang":
          m.stopped = true;
      }
      ranOut(m);
      return;
    }
    if (op === "get") {
      const { status, body } = await rpc("tasks/get", { taskId: m.id }, m.caller);
      if (m.status === "expired") {
        if (status !== 400 || body.error?.code !== -32602) problem(`${m.id}: expired but tasks/get answered ${status} ${JSON.stringify(body).slice(0, 200)}`);
        return;
      }
      const r = body.result;
      const issues = shapeIssues(SCHEMAS.getTask, r);
      if (status !== 200 || issues) return problem(`${m.id}: tasks/get ${status} ${issues ?? JSON.stringify(body).slice(0, 200)}`);
      observe(m, r.status);
      if (r.status !== m.status) problem(`${m.id}: status ${r.status}, the model says ${m.status}`);
      if (m.open && r.status === "input_required" && !isDeepStrictEqual(Object.keys(r.inputRequests).sort(), [...m.open.keys].sort())) {
        problem(`${m.id}: open keys ${Object.keys(r.inputRequests)}, the model says ${m.open.keys}`);
      }
      return;
    }
    if (op === "cancel") {
      const { status, body } = await rpc("tasks/cancel", { taskId: m.id }, m.caller);
      if (m.status === "expired") {
        if (status !== 400) problem(`${m.id}: cancel of an expired task answered ${status}`);
        return;
      }
      if (status !== 200 || shapeIssues(SCHEMAS.cancelTask, body.result)) problem(`${m.id}: tasks/cancel ${status} ${JSON.stringify(body).slice(0, 200)}`);
      end(m, "cancelled");
      return;
    }
    // answer, partial, race
    const open = m.open!;
    const keys = op === "partial" ? [open.keys[0]!] : open.keys;
    const responses: Record<string, unknown> = {};
    for (const k of keys) responses[k] = { action: "accept", content: { nonce: `${m.id}/${k}/${report.requests}` } };
    if (op === "race") {
      // Either request may leave first; the server may process them in either order.
      const update = () => rpc("tasks/update", { taskId: m.id, inputResponses: responses }, m.caller);
      const cancel = () => rpc("tasks/cancel", { taskId: m.id }, m.caller);
      const [u, c] = rnd.next() < 0.5 ? await Promise.all([update(), cancel()]) : (await Promise.all([cancel(), update()])).reverse();
      if (u.status !== 200 || c.status !== 200) problem(`${m.id}: race answered ${u.status}/${c.status}`);
      const accepted = { ...open.accepted };
      for (const k of keys) accepted[userKey(k)] = responses[k];
      m.rounds.push({ either: accepted });
      m.open = undefined;
      await turns(1);
      // Cancelled, whichever came first; unless the answer came first, completed the last step's round, and
      // `run` returned before the cancel arrived.
      const after = await rpc("tasks/get", { taskId: m.id }, m.caller);
      const last = (hooks.get(m.id)?.step ?? 0) >= m.plan.length;
      const seen = after.body.result?.status;
      if (seen === "cancelled" || (seen === "completed" && last)) {
        observe(m, seen);
        m.status = seen;
        m.ending = seen;
        if (seen === "completed") m.stopped = true;
      } else problem(`${m.id}: after an answer raced a cancel the task is ${seen}`);
      return;
    }
    const { status, body } = await rpc("tasks/update", { taskId: m.id, inputResponses: responses }, m.caller);
    if (status !== 200 || shapeIssues(SCHEMAS.updateTask, body.result)) return problem(`${m.id}: tasks/update ${status} ${JSON.stringify(body).slice(0, 200)}`);
    report.answersAccepted += keys.length;
    for (const k of keys) open.accepted[userKey(k)] = responses[k];
    open.keys = open.keys.filter((k) => !keys.includes(k));
    if (!open.keys.length) {
      m.rounds.push({ ok: open.accepted });
      m.open = undefined;
      m.status = "working";
      await turns(1);
      ranOut(m);
    }
  };

  const maxPhases = 200;
  for (let phase = 0; phase < maxPhases; phase++) {
    report.phases = phase + 1;
    for (const s of streams) {
      if (s.closeAtPhase === phase) {
        await s.reader.close(); // a listener that goes away mid-stream
        await s.pump;
      }
    }
    const live = models.filter((m) => m.status !== "expired" && !TERMINAL.has(m.status));
    if (!live.length) break;
    // Live tasks, and now and then a finished one (reads and cancels of finished tasks must stay harmless).
    const active = [...live, ...models.filter((m) => TERMINAL.has(m.status) && rnd.next() < 0.02)];
    const chosen = new Set<Model>();
    while (chosen.size < Math.min(concurrency, active.length)) chosen.add(rnd.pick(active));
    await Promise.all([...chosen].map(act));
    await turns(2);
    // Time passes between phases: a short TTL catches tasks working, waiting for input, or finished.
    clock.advance(rnd.int(Math.ceil(ttlMs / 16)));
    memoryStore(plugin).sweep(); // what the next request would do: expire what the clock passed
    expire(models);
    if (phase % 20 === 19) options.onProgress?.(`phase ${phase + 1}: ${models.filter((m) => m.status !== "expired" && !TERMINAL.has(m.status)).length} live tasks`);
  }

  // --- Final reads, then everything expires and is swept ---
  for (let i = 0; i < models.length; i += concurrency) {
    await Promise.all(
      models.slice(i, i + concurrency).map(async (m) => {
        const { status, body } = await rpc("tasks/get", { taskId: m.id }, m.caller);
        if (m.status === "expired") {
          if (status !== 400) problem(`${m.id}: expired but readable`);
          return;
        }
        if (status !== 200) return problem(`${m.id}: final tasks/get ${status}`);
        observe(m, body.result.status);
        if (body.result.status !== m.status) problem(`${m.id}: ended ${body.result.status}, the model says ${m.status}`);
      }),
    );
  }
  clock.advance(ttlMs + 1);
  memoryStore(plugin).sweep();
  expire(models);
  for (const m of models) report.endings[m.ending!] = (report.endings[m.ending!] ?? 0) + 1;
  await turns(3);

  // --- Nothing accepted was lost ---
  for (const m of models) {
    const h = hooks.get(m.id);
    if (!h) {
      problem(`${m.id}: run never started`);
      continue;
    }
    if (h.rounds.length !== m.rounds.length) {
      problem(`${m.id}: run saw ${h.rounds.length} input round(s) settle, the model expects ${m.rounds.length}`);
      continue;
    }
    m.rounds.forEach((expected, i) => {
      const got = h.rounds[i]!;
      if ("ok" in expected) {
        report.roundsCompleted++;
        if (!("ok" in got) || !isDeepStrictEqual(got.ok, expected.ok)) problem(`${m.id}: round ${i + 1} lost answers: run got ${JSON.stringify(got)}, sent ${JSON.stringify(expected.ok)}`);
      } else if ("error" in expected) {
        report.roundsLeft++;
        if (!("error" in got)) problem(`${m.id}: round ${i + 1} should have been left, run got ${JSON.stringify(got)}`);
      } else if ("ok" in got) {
        report.races.answerFirst++;
        if (!isDeepStrictEqual(got.ok, expected.either)) problem(`${m.id}: raced round got ${JSON.stringify(got.ok)}, sent ${JSON.stringify(expected.either)}`);
      } else report.races.cancelFirst++;
    });
    // A run that takes no more steps is ended or hangs; one still at a gate is the one whose task finished first.
    const listeners = h.signal ? getEventListeners(h.signal, "abort").length : 0;
    if (listeners) problem(`${m.id}: ${listeners} abort listener(s) left on the task's signal`);
  }

  // --- Listeners: only agreed tasks, statuses along chart edges, terminal frame last ---
  for (const s of streams) {
    await s.reader.close();
    await s.pump;
    const last = new Map<string, string>();
    for (const f of s.frames) {
      report.notifications++;
      const { taskId, status } = f.params ?? {};
      if (f.method !== "notifications/tasks" || !s.agreed.has(taskId)) problem(`listener got ${JSON.stringify(f).slice(0, 200)}`);
      const prev = last.get(taskId) ?? "working";
      if (TERMINAL.has(prev)) problem(`${taskId}: a frame after its terminal frame`);
      if (!edges.has(`${prev}>${status}`) && !(prev === "working" && status === "working")) problem(`${taskId}: frames ${prev} → ${status}`);
      last.set(taskId, status);
    }
  }
  await turns(2);

  // --- Nothing left behind ---
  if (memoryStore(plugin).size !== 0) problem(`${memoryStore(plugin).size} task(s) left in the store after the sweep`);
  if (plugin.stats.listeners !== 0) problem(`${plugin.stats.listeners} task listener(s) left`);
  const open = mountOf(handler).streams.size;
  if (open !== 0) problem(`${open} listen stream(s) left open`);
  if (mountOf(handler).hub.size !== 0) problem(`${mountOf(handler).hub.size} hub subscriber(s) left`);
  if (world.escaped.length) problem(`escaped the handler: ${String(world.escaped[0])}`);
  report.resourceGrowth = resourceGrowth(resourcesBefore, activeResources());
  if (Object.keys(report.resourceGrowth).length) problem(`active resources grew: ${JSON.stringify(report.resourceGrowth)}`);

  if (options.weakRefs !== false) {
    // Keep only weak references to what each task's run was given, drop every strong one, and collect.
    const weak = weakRefsTo(hooks);
    const describe = new Map(models.map((m) => [m.id, `${m.ending} plan ${m.plan.join(",")}${m.cooperative ? " cooperative" : ""}`]));
    hooks.clear();
    models.length = 0;
    world = undefined;
    await collectGarbage(4);
    const alive = weak.filter(([, w]) => w.deref() !== undefined).map(([what]) => `${what} (${describe.get(what.split(" ")[0]!)})`);
    report.reachable = alive.length;
    if (alive.length) problem(`${alive.length} task context(s) or signal(s) still reachable after GC: ${alive.slice(0, 5).join("; ")}`);
  }
  report.ms = performance.now() - started;
  return report;
}
