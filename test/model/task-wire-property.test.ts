// Random interleavings over several live tasks on one real runtime, driven over the wire (tasks/get,
// tasks/update, tasks/cancel) and from inside each task's `run` (task.update, requestInput, returning,
// throwing). Operations run in batches; the operations of one batch start together and may interleave, on the
// same task too. No ordering is assumed within a batch, so every invariant is one that holds whatever order the
// runtime picked:
//
// - every tasks/get conforms to the official schema, and each observed status is reachable, in the chart, from
//   the status observed before it (observations are taken at most once per task per batch, so they are ordered);
// - once a task is observed terminal, every later tasks/get answers exactly the same envelope;
// - no answer that tasks/update acked for an outstanding key is lost: whatever `run` received from requestInput
//   (and echoed in its result) contains every answer the chart accepted for that round, and an acked answer to a
//   key seen outstanding never leaves that key outstanding;
// - and, from the actors' own event log (the plugin's `inspect` option), every observation is a state the chart
//   passed through, in order.
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { initialTransition, transition, type InspectionEvent } from "xstate";
import { taskMachine, type TaskEvent, type TaskStatus } from "../../machines/task.machine.ts";
import { mcpElicit, McpJsonRpcError } from "../../src/index.ts";
import { drivenTasksApp, type InputCall, type TaskDriver } from "../../src/tasks/testing/task-driver.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { predictedGet, type TaskSnapshot } from "../../src/tasks/testing/envelope.ts";
import { chartEventPaths, MODEL_INPUT } from "../../src/tasks/testing/chart-paths.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const NUM_RUNS = Number(process.env.TASK_WIRE_RUNS ?? 100);
const TERMINAL = new Set<string>(["completed", "failed", "cancelled"]);
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await turn();
};

// --- The chart's status graph ---

/**
 * Which status can follow which, reflexively and transitively, read off the chart by replaying every model
 * path through the pure `transition`.
 */
function statusReachability(): Map<string, Set<string>> {
  const reach = new Map<string, Set<string>>();
  const edge = (a: string, b: string) => (reach.get(a) ?? reach.set(a, new Set([a])).get(a)!).add(b);
  for (const path of chartEventPaths()) {
    let s = initialTransition(taskMachine, MODEL_INPUT)[0];
    for (const event of path) {
      const next = transition(taskMachine, s, event)[0];
      edge(s.value as string, next.value as string);
      edge(next.value as string, next.value as string);
      s = next;
    }
  }
  for (;;) {
    let grew = false;
    for (const targets of reach.values()) {
      for (const t of [...targets]) {
        for (const u of reach.get(t) ?? []) {
          if (!targets.has(u)) (targets.add(u), (grew = true));
        }
      }
    }
    if (!grew) return reach;
  }
}

const REACH = statusReachability();

// --- Operations ---

const USER_KEYS = ["confirm", "name", "extra"] as const;
/** Keys a confused client might send: never issued, or a rename that may or may not exist yet. */
const WRONG_KEYS = ["never-issued", "confirm.7", "name.2", "extra.3"] as const;

type Pick = { from: "outstanding" | "consumed"; n: number } | { from: "wrong"; key: string };
type Op =
  | { kind: "get"; t: number }
  | { kind: "answer"; t: number; picks: Pick[] }
  | { kind: "cancel"; t: number }
  | { kind: "status"; t: number; statusMessage: string }
  | { kind: "request"; t: number; keys: string[] }
  | { kind: "finish"; t: number; how: "return" | "toolError" | "protocolError" };

const task = fc.nat(4);
const pickArb: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 6, arbitrary: fc.nat(3).map((n) => ({ from: "outstanding" as const, n })) },
  { weight: 2, arbitrary: fc.nat(3).map((n) => ({ from: "consumed" as const, n })) },
  { weight: 2, arbitrary: fc.constantFrom(...WRONG_KEYS).map((key) => ({ from: "wrong" as const, key })) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: task.map((t) => ({ kind: "get" as const, t })) },
  {
    weight: 6,
    arbitrary: fc.record({ t: task, picks: fc.array(pickArb, { minLength: 1, maxLength: 3 }) }).map((o) => ({ kind: "answer" as const, ...o })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ t: task, keys: fc.uniqueArray(fc.constantFrom(...USER_KEYS), { minLength: 1, maxLength: 3 }) })
      .map((o) => ({ kind: "request" as const, ...o })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ t: task, statusMessage: fc.constantFrom("Step 1", "Step 2", "Queued") })
      .map((o) => ({ kind: "status" as const, ...o })),
  },
  { weight: 1, arbitrary: task.map((t) => ({ kind: "cancel" as const, t })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ t: task, how: fc.constantFrom("return", "return", "toolError", "protocolError") })
      .map((o) => ({ kind: "finish" as const, ...o })),
  },
);
const scenarioArb = fc.record({
  tasks: fc.integer({ min: 3, max: 5 }),
  batches: fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 20 }),
});

// --- One run ---

interface Sent {
  batch: number;
  /** The clock while it was sent, which is also the time the runtime stamps on the answer. */
  at: number;
  responses: Record<string, { action: "accept"; content: { n: number } }>;
  /** Keys that an observation in an earlier batch showed outstanding. */
  seenBefore: Set<string>;
}

/** The test's view of one task, as its client and as the author of its `run`. */
interface Tracked {
  taskId: string;
  createdAt: number;
  driver: TaskDriver;
  observations: { batch: number; envelope: Record<string, any> }[];
  /** Wire key → the batch that first showed it outstanding. */
  firstSeen: Map<string, number>;
  outstanding: string[];
  sent: Sent[];
  messages: Set<string>;
}

/** Coverage across all runs, so a generator that stopped reaching the interesting cases fails loudly. */
const coverage = {
  roundsCompleted: 0,
  partialAnswers: 0,
  consumedKeysSent: 0,
  wrongKeysSent: 0,
  cancelledWhileParked: 0,
  terminalObservedTwice: 0,
  sameTaskConcurrency: 0,
  echoes: 0,
};

async function runScenario({ tasks: n, batches }: { tasks: number; batches: Op[][] }): Promise<void> {
  let now = 1_785_229_800_000;
  let answerSeq = 0;
  let requestSeq = 0;
  // Every event each task's actor received, in the order it received them, by actor session; and the task
  // each session belongs to, read off its snapshots.
  const bySession = new Map<string, TaskEvent[]>();
  const taskOfSession = new Map<string, string>();
  const inspect = (ev: InspectionEvent) => {
    if (ev.type === "@xstate.snapshot") {
      taskOfSession.set(ev.rootId, (ev.snapshot as TaskSnapshot).context.taskId);
    } else if (ev.type === "@xstate.event" && !ev.event.type.startsWith("xstate.")) {
      (bySession.get(ev.rootId) ?? bySession.set(ev.rootId, []).get(ev.rootId)!).push(ev.event as TaskEvent);
    }
  };
  const eventsOf = (taskId: string) =>
    [...bySession].filter(([session]) => taskOfSession.get(session) === taskId).flatMap(([, events]) => events);
  const { app, driver } = drivenTasksApp({ clock: { now: () => now }, ttlMs: null, inspect });

  const tracked: Tracked[] = await Promise.all(
    Array.from({ length: n }, async () => {
      const handle = (await call(app, "tools/call", { name: "driven" }, { caps })).body.result;
      expectShape(S.createTask, handle);
      return {
        taskId: handle.taskId,
        createdAt: Date.parse(handle.createdAt),
        driver: driver(handle.taskId),
        observations: [],
        firstSeen: new Map(),
        outstanding: [],
        sent: [],
        messages: new Set(["Queued"]),
      };
    }),
  );

  const observe = async (t: Tracked, batch: number) => {
    const r = await call(app, "tasks/get", { taskId: t.taskId }, { caps });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectShape(S.getTask, r.body.result);
    const envelope = r.body.result;
    t.observations.push({ batch, envelope });
    t.outstanding = Object.keys(envelope.inputRequests ?? {});
    for (const key of t.outstanding) if (!t.firstSeen.has(key)) t.firstSeen.set(key, batch);
    return envelope;
  };

  const answer = async (t: Tracked, batch: number, keys: string[]) => {
    const responses: Sent["responses"] = {};
    for (const key of keys) responses[key] = { action: "accept", content: { n: ++answerSeq } };
    const seenBefore = new Set(keys.filter((k) => (t.firstSeen.get(k) ?? Infinity) < batch));
    const r = await call(app, "tasks/update", { taskId: t.taskId, inputResponses: responses }, { caps });
    // Nothing expires here, so every update names a known task and is acked.
    expectShape(S.updateTask, r.body.result);
    t.sent.push({ batch, at: now, responses, seenBefore });
  };

  const perform = async (op: Op, t: Tracked, batch: number) => {
    switch (op.kind) {
      case "get":
        await observe(t, batch);
        return;
      case "answer": {
        // Consumed, as far as this client knows: keys it has answered, and keys that were shown and are gone.
        const answered = t.sent.flatMap((s) => [...s.seenBefore]);
        const consumed = [...new Set([...answered, ...t.firstSeen.keys()])].filter((k) => answered.includes(k) || !t.outstanding.includes(k));
        const keys = op.picks.map((p) => {
          if (p.from === "wrong") return (coverage.wrongKeysSent++, p.key);
          const pool = p.from === "outstanding" ? t.outstanding : consumed;
          if (pool.length === 0) return WRONG_KEYS[p.n % WRONG_KEYS.length]!;
          if (p.from === "consumed") coverage.consumedKeysSent++;
          return pool[p.n % pool.length]!;
        });
        const unique = [...new Set(keys)];
        if (t.outstanding.length > 1 && unique.filter((k) => t.outstanding.includes(k)).length === 1) coverage.partialAnswers++;
        await answer(t, batch, unique);
        return;
      }
      case "cancel": {
        if (t.outstanding.length > 0) coverage.cancelledWhileParked++;
        const r = await call(app, "tasks/cancel", { taskId: t.taskId }, { caps });
        expectShape(S.cancelTask, r.body.result);
        return;
      }
      case "status":
        t.messages.add(op.statusMessage);
        await t.driver.send({ type: "update", statusMessage: op.statusMessage });
        return;
      case "request": {
        // Each request carries a token in its message, so a wire key can be traced to the call that asked.
        const token = `q${++requestSeq}`;
        const requests = Object.fromEntries(
          op.keys.map((k) => [k, mcpElicit({ message: `${token}/${k}`, requestedSchema: { type: "object", properties: {} } })]),
        );
        await t.driver.send({ type: "request", requests, ifIdle: true });
        return;
      }
      case "finish":
        if (op.how === "return") await t.driver.send({ type: "return" });
        else if (op.how === "toolError") await t.driver.send({ type: "throw", error: new Error("tool gave up") });
        else {
          // A failed task's statusMessage is its error's message.
          t.messages.add("protocol trouble");
          await t.driver.send({ type: "throw", error: new McpJsonRpcError(-32603, "protocol trouble") });
        }
        return;
    }
  };

  // The random part.
  let batch = 0;
  for (; batch < batches.length; batch++) {
    now += 1000;
    const ops = batches[batch]!;
    const observed = new Set<number>();
    const touched = new Set<number>();
    const running: Promise<void>[] = [];
    for (const op of ops) {
      const i = op.t % n;
      // At most one observation per task per batch, so observations are ordered.
      if (op.kind === "get" && observed.has(i)) continue;
      if (op.kind === "get") observed.add(i);
      if (touched.has(i)) coverage.sameTaskConcurrency++;
      touched.add(i);
      running.push(perform(op, tracked[i]!, batch));
    }
    await Promise.all(running);
    await turns(2);
  }

  // The drain: answer whatever is still asked, let every `run` return, and check nothing acked was lost.
  for (const t of tracked) {
    now += 1000;
    batch++;
    await turns(2);
    let envelope = await observe(t, batch);
    if (envelope.status === "input_required") {
      for (const key of t.outstanding) {
        const acked = t.sent.find((s) => Object.hasOwn(s.responses, key) && s.seenBefore.has(key));
        expect(acked, `task ${t.taskId}: an acked answer to ${key} was lost; it is still outstanding`).toBeUndefined();
      }
      batch++;
      await answer(t, batch, t.outstanding);
      await turns(3);
      envelope = await observe(t, batch);
      expect(envelope.status, "every outstanding key answered: the round is over").toBe("working");
    }
    if (t.driver.running) {
      await t.driver.send({ type: "return" });
      await turns(3);
      batch++;
      envelope = await observe(t, batch);
    }
    expect(TERMINAL.has(envelope.status), `task ${t.taskId} ends terminal`).toBe(true);
    batch++;
    await observe(t, batch);
    // No requestInput is left hanging once the task is over.
    await Promise.race([
      Promise.all(t.driver.calls.map((c) => c.settled)),
      turns(20).then(() => {
        throw new Error(`task ${t.taskId}: a requestInput never settled`);
      }),
    ]);
  }

  for (const t of tracked) checkTask(t, eventsOf(t.taskId));
}

// --- The invariants ---

function checkTask(t: Tracked, events: TaskEvent[]): void {
  const label = (i: number) => `task ${t.taskId}, observation ${i}`;
  const obs = t.observations;

  // Legal steps, and terminal states that never change.
  for (let i = 1; i < obs.length; i++) {
    const [prev, next] = [obs[i - 1]!.envelope, obs[i]!.envelope];
    expect(REACH.get(prev.status)?.has(next.status), `${label(i)}: ${prev.status} → ${next.status} is not in the chart`).toBe(true);
    if (TERMINAL.has(prev.status)) {
      expect(next, `${label(i)}: a terminal task changed`).toStrictEqual(prev);
      coverage.terminalObservedTwice++;
    }
    expect(next.taskId).toBe(t.taskId);
    expect(next.createdAt).toBe(prev.createdAt);
    expect(Date.parse(next.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(prev.lastUpdatedAt));
  }
  for (const { envelope } of obs) expect(t.messages).toContain(envelope.statusMessage);

  // The actor's own history, replayed through the pure chart: every observation is one of its states, in order.
  const input = { taskId: t.taskId, now: t.createdAt, ttlMs: null, pollIntervalMs: 1000, statusMessage: "Queued" };
  let s: TaskSnapshot = initialTransition(taskMachine, input)[0];
  const trajectory: TaskSnapshot[] = [s];
  const steps: { prev: TaskSnapshot; event: TaskEvent; next: TaskSnapshot }[] = [];
  for (const event of events) {
    const next = transition(taskMachine, s, event)[0];
    steps.push({ prev: s, event, next });
    trajectory.push(next);
    s = next;
  }
  let at = 0;
  for (const [i, { envelope }] of obs.entries()) {
    while (at < trajectory.length && !isDeepStrictEqual(predictedGet(trajectory[at]!), envelope)) at++;
    expect(at < trajectory.length, `${label(i)} is no state the chart passed through after the previous one: ${JSON.stringify(envelope)}`).toBe(true);
  }
  expect(TERMINAL.has(s.value as TaskStatus)).toBe(true);

  // Answers. Rounds are traced by the token each request carries in its message.
  const tokenOf = (request: { params?: Record<string, unknown> }) => String(request.params?.message).split("/")[0];
  const callByToken = new Map<string, InputCall>();
  for (const c of t.driver.calls) callByToken.set(tokenOf(c.requests[c.keys[0]!]!), c);
  let roundToken: string | undefined;
  let accepted: Record<string, unknown> = {};
  const completed = new Set<InputCall>();
  for (const { prev, event, next } of steps) {
    if (prev.value === "working" && next.value === "input_required") {
      roundToken = tokenOf(Object.values(next.context.inputRequests)[0]!);
      accepted = {};
    }
    if (event.type === "input.answer" && prev.value === "input_required") {
      for (const [wireKey, value] of Object.entries(event.responses)) {
        if (Object.hasOwn(prev.context.inputRequests, wireKey)) accepted[prev.context.inputKeys[wireKey]!] = value;
      }
      if (next.value === "working") {
        const c = callByToken.get(roundToken!);
        expect(c, `round ${roundToken} was asked by run`).toBeDefined();
        expect(c!.state, `round ${roundToken}: requestInput resolved`).toBe("resolved");
        // Every accepted answer reached run, under the key it asked with, and nothing else did.
        expect(c!.answers, `round ${roundToken}: what run received`).toStrictEqual(accepted);
        completed.add(c!);
        coverage.roundsCompleted++;
      }
    }
  }
  for (const c of t.driver.calls) {
    if (c.state === "resolved") expect(completed.has(c), `call ${c.id} resolved without its round completing`).toBe(true);
  }

  // Every acked tasks/update reached the actor exactly once, unless the task had already ended by then.
  const ended = steps.find((st) => TERMINAL.has(st.next.value as string) && !TERMINAL.has(st.prev.value as string))!.event.at;
  for (const sent of t.sent) {
    const seen = events.filter((e) => e.type === "input.answer" && isDeepStrictEqual(e.responses, sent.responses));
    if (sent.at < ended) expect(seen.length, `an acked tasks/update (${JSON.stringify(sent.responses)}) reached the actor`).toBe(1);
    else expect(seen.length).toBeLessThanOrEqual(1);
    if (seen.length) expect(seen[0]!.at).toBe(sent.at);
  }

  // What run echoed in its result is what requestInput gave it.
  const final = obs.at(-1)!.envelope;
  const text = final.status === "completed" ? final.result?.content?.[0]?.text : undefined;
  if (typeof text === "string" && text.startsWith("[")) {
    coverage.echoes++;
    for (const { call: id, answers } of JSON.parse(text) as { call: number; answers: unknown }[]) {
      const c = t.driver.calls.find((x) => x.id === id);
      expect(c && completed.has(c), `run echoed call ${id}, which never completed a round`).toBe(true);
      expect(answers).toStrictEqual(c!.answers);
    }
  }
}

describe("random interleavings over several tasks, on the wire", () => {
  it("the chart's status graph lets nothing out of a terminal status", () => {
    expect(Object.fromEntries([...REACH].map(([k, v]) => [k, [...v].sort()]))).toStrictEqual({
      working: ["cancelled", "completed", "failed", "input_required", "working"],
      input_required: ["cancelled", "completed", "failed", "input_required", "working"],
      completed: ["completed"],
      failed: ["failed"],
      cancelled: ["cancelled"],
    });
  });

  it("keep every invariant", async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, runScenario), { numRuns: NUM_RUNS });
    // A generator that stopped reaching the interesting cases would make the property vacuous.
    if (process.env.TASK_WIRE_COVERAGE) console.log(coverage);
    for (const [name, count] of Object.entries(coverage)) expect(count, `runs that reached ${name}`).toBeGreaterThan(0);
  }, Math.max(20_000, NUM_RUNS * 100));
});
