// Paired micro-benches of the request path's fast paths against the plain code they replace (and of two
// fast paths that were replaced by plain code, against what replaced them), in one process: each round times the fast path, the plain code and the plain code again (an identical
// variant, whose ratio to the first is the noise floor of this run), in a rotating order. Prints ns per
// call, the median plain ÷ fast ratio with its range, and the plain ÷ plain' noise with its range.
//   node --import tsx bench/fast-paths.ts [--only iso,meta,get-json,raw,uuid,scope] [--rounds 21] [--ms 40]
import { parseArgs } from "node:util";
import { initialTransition, transition } from "xstate";
import { taskMachine, type TaskEvent } from "../machines/task.machine.ts";
import { prepareResultMeta, RawJson, toResultMessage, toResultMessageRaw } from "../src/protocol/wire.ts";
import { toCreateTaskResult, toGetTaskResult, type TaskSnapshot } from "../src/tasks/envelopes.ts";
import { toGetTaskResultJson } from "../src/tasks/kept-json.ts";
import { nextSnapshot } from "../src/tasks/chart.ts";
import { newTaskId } from "../src/utils/task-id.ts";

const { values } = parseArgs({ options: { only: { type: "string" }, rounds: { type: "string", default: "21" }, ms: { type: "string", default: "40" } } });
const ROUNDS = Number(values.rounds);
const MS = Number(values.ms);

/** A workload: `run(n)` does n calls and returns something so the work cannot be dropped. */
type Work = (n: number) => unknown;
let sink: unknown;

/** ns per call of `work`, over about MS milliseconds (n calibrated once per case). */
function time(work: Work, n: number): number {
  const started = process.hrtime.bigint();
  sink = work(n);
  return Number(process.hrtime.bigint() - started) / n;
}

function calibrate(work: Work): number {
  let n = 1000;
  for (;;) {
    const started = performance.now();
    work(n);
    const ms = performance.now() - started;
    if (ms > MS / 4) return Math.max(1, Math.round((n * MS) / ms));
    n *= 4;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

function paired(name: string, fast: Work, plain: Work): void {
  // An identical copy of the plain code, as its own function, measured as a third variant.
  const again: Work = (n) => plain(n);
  const plainCopy: Work = (n) => plain(n);
  const variants = [fast, plain === again ? plain : plainCopy, again];
  for (const v of variants) v(1000);
  const n = calibrate(plain);
  const ns: number[][] = [[], [], []];
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < 3; k++) {
      const i = (k + round) % 3;
      ns[i]!.push(time(variants[i]!, n));
    }
  }
  const gain = ns[1]!.map((p, i) => p / ns[0]![i]!);
  const noise = ns[1]!.map((p, i) => p / ns[2]![i]!);
  console.log(
    `${name}: fast ${median(ns[0]!).toFixed(0)} ns, plain ${median(ns[1]!).toFixed(0)} ns per call (saves ${(median(ns[1]!) - median(ns[0]!)).toFixed(0)} ns); ` +
      `plain ÷ fast ${median(gain).toFixed(2)}× (${range(gain)}); plain ÷ plain' ${median(noise).toFixed(2)}× (${range(noise)}); ${ROUNDS} rounds × ${n} calls`,
  );
}

// --- The cases ---

const input = { taskId: newTaskId(), now: Date.now(), ttlMs: 600_000, pollIntervalMs: 1000 };
const working = initialTransition(taskMachine, input)[0] as unknown as TaskSnapshot;
const RESULT = { resultType: "complete", content: [{ type: "text", text: "hello" }] };
const completed = transition(taskMachine, initialTransition(taskMachine, input)[0], { type: "work.done", result: RESULT, at: input.now })[0] as unknown as TaskSnapshot;
const meta = prepareResultMeta({ name: "h3-mcp-bench", version: "0.0.0" });

/** Snapshots whose time moves every `perMs` calls, as creations under load share a millisecond. */
function snapshotsAt(base: TaskSnapshot, count: number, perMs: number): TaskSnapshot[] {
  return Array.from({ length: count }, (_, i) => {
    const at = input.now + Math.floor(i / perMs);
    return { value: base.value, context: { ...base.context, createdAt: at, lastUpdatedAt: at } };
  });
}

const cases: Record<string, () => void> = {
  iso() {
    // Replaced by the plain code: the module-global cache of the last two ISO times that wire.ts kept, against
    // the handle as toCreateTaskResult formats it now (one toISOString per time).
    let isoMs = Number.NaN, isoText = "", isoMsBefore = Number.NaN, isoTextBefore = "";
    const cached = (ms: number) => {
      if (ms === isoMs) return isoText;
      if (ms === isoMsBefore) return isoTextBefore;
      isoMsBefore = isoMs;
      isoTextBefore = isoText;
      isoText = new Date(ms).toISOString();
      isoMs = ms;
      return isoText;
    };
    const snaps = snapshotsAt(working, 4096, 8);
    const cachedHandle = (s: TaskSnapshot) => {
      const c = s.context;
      return { resultType: "task", taskId: c.taskId, status: "working", createdAt: cached(c.createdAt), lastUpdatedAt: cached(c.lastUpdatedAt), ttlMs: c.ttlMs, pollIntervalMs: c.pollIntervalMs };
    };
    paired("ISO time cache (a creation's handle, 8 creations per ms)", (n) => { let x; for (let i = 0; i < n; i++) x = cachedHandle(snaps[i & 4095]!); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = toCreateTaskResult(snaps[i & 4095]!); return x; });
  },
  meta() {
    // Replaced by the plain code: the serverInfo members spliced into a result's serialised JSON, against
    // toResultMessage now (the result spread with its _meta, serialised once).
    const spliced = (result: object) => {
      const json = JSON.stringify(result);
      return `{"jsonrpc":"2.0","id":1,"result":${json === "{}" ? `{"_meta":{${meta.members}}}` : `${json.slice(0, -1)},"_meta":{${meta.members}}}`}}`;
    };
    paired("serverInfo spliced into a result's JSON (echo's result)", (n) => { let x; for (let i = 0; i < n; i++) x = spliced(RESULT); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = toResultMessage(1, RESULT, meta); return x; });
    const handle = toCreateTaskResult(working);
    paired("serverInfo spliced into a result's JSON (a task handle)", (n) => { let x; for (let i = 0; i < n; i++) x = spliced(handle); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = toResultMessage(1, handle, meta); return x; });
  },
  "get-json"() {
    const json = JSON.stringify((completed.context as { result: object }).result);
    paired("toGetTaskResultJson (small result, JSON spliced)", (n) => { let x; for (let i = 0; i < n; i++) x = toGetTaskResultJson(completed, json); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = JSON.stringify(toGetTaskResult(completed)); return x; });
    const big = { resultType: "complete", content: [{ type: "text", text: "x".repeat(16_000) }] };
    const bigDone = { value: "completed", context: { ...completed.context, result: big } } as TaskSnapshot;
    const bigJson = JSON.stringify(big);
    paired("toGetTaskResultJson (16 KB result, JSON spliced)", (n) => { let x; for (let i = 0; i < n; i++) x = toGetTaskResultJson(bigDone, bigJson); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = JSON.stringify(toGetTaskResult(bigDone)); return x; });
  },
  raw() {
    // A tools/list page of the bench's three tools, prepared at mount against serialised per request.
    const page = {
      resultType: "complete",
      tools: ["echo", "task_echo", "task_hang"].map((name) => ({ name, description: `The ${name} tool`, inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" }, execution: { taskSupport: "optional" } })),
    };
    const pageJson = toResultMessage(0, page, meta).slice(`{"jsonrpc":"2.0","id":0,"result":`.length, -1);
    paired("toResultMessageRaw (a tools/list page)", (n) => { let x; for (let i = 0; i < n; i++) x = toResultMessageRaw(1, pageJson); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = toResultMessage(1, page, meta); return x; });
    // A finished task's kept tasks/get JSON, sent with the serverInfo members spliced in, against parsing it back.
    const kept = toGetTaskResultJson(completed, JSON.stringify((completed.context as { result: object }).result));
    paired("RawJson (a finished task's kept tasks/get answer)", (n) => { const r = new RawJson(kept); let x; for (let i = 0; i < n; i++) x = toResultMessage(1, r, meta); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = toResultMessage(1, JSON.parse(kept), meta); return x; });
  },
  uuid() {
    paired("newTaskId against crypto.randomUUID", (n) => { let x; for (let i = 0; i < n; i++) x = newTaskId(); return x; }, (n) => { let x; for (let i = 0; i < n; i++) x = crypto.randomUUID(); return x; });
  },
  scope() {
    const stored = JSON.parse(JSON.stringify({ value: "working", context: working.context })) as TaskSnapshot;
    const events: TaskEvent[] = [
      { type: "status.update", statusMessage: "step", at: 1 },
      { type: "input.request", requests: { q: { method: "roots/list" } }, at: 1 },
      { type: "task.cancel", at: 1 },
      { type: "work.done", result: { content: [] }, at: 1 },
    ];
    paired(
      "chart step of a stored snapshot (shared scope against transition())",
      (n) => { let x; for (let i = 0; i < n; i++) x = nextSnapshot(stored, events[i & 3]!); return x; },
      (n) => { let x; for (let i = 0; i < n; i++) x = transition(taskMachine, taskMachine.resolveState({ value: stored.value, context: stored.context }), events[i & 3]!); return x; },
    );
  },
};

const only = values.only?.split(",");
for (const [name, run] of Object.entries(cases)) if (!only || only.includes(name)) run();
if (sink === Symbol.for("never")) console.log(sink);
