// Heap per retained task, through the public API: N tools/call requests answered by a task, served
// in-process by app.fetch, then a full GC, and the heapUsed delta over N.
//   node --expose-gc --import tsx bench/memory.ts [--n 100000] [--json]
// "finished": the task's run returns at once (kept as its final snapshot, actor stopped).
// "working":  the task's run awaits a promise that never settles (live actor, pending run).
// The result payload of a finished task ({ content: [{ type: "text", text }] }) is measured
// separately the same way, so the figure "beyond the payload" is the store's own cost.
import { parseArgs } from "node:util";
import { createBenchApp } from "./lib/mcp-app.ts";
import { fillTasks } from "./lib/fill.ts";
import { ECHO_TEXT, requests, toWebRequest } from "./lib/wire.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "100000" }, json: { type: "boolean", default: false } } });
const N = Number(values.n);
const WARMUP = Math.min(2000, N);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("Run with node --expose-gc --import tsx bench/memory.ts");
  process.exit(2);
}

async function settledHeap(): Promise<number> {
  // Let pending microtasks and timers run, then collect until the figure stops moving.
  let last = Infinity;
  for (let i = 0; i < 6; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc!();
    const used = process.memoryUsage().heapUsed;
    if (Math.abs(used - last) < 64 * 1024) return used;
    last = used;
  }
  return last;
}

export interface TaskMemory {
  kind: "finished" | "working";
  n: number;
  bytesPerTask: number;
  /** Finished tasks only: the heap per task once each was read by one tasks/get (whatever a read leaves cached). */
  bytesPerTaskAfterGet?: number;
  status: string;
  createUs: number;
}

async function measureTasks(kind: "finished" | "working"): Promise<TaskMemory> {
  const request = kind === "finished" ? requests.createTask() : requests.hangTask();
  const bench = createBenchApp();
  // Warm the code paths (JIT, h3 router, zod) in this very app; those tasks are part of the baseline.
  await fillTasks(bench.app, WARMUP, undefined, request);
  // Allocated before the baseline, so keeping the ids costs nothing in the delta.
  const ids: string[] = new Array(N).fill("");
  const before = await settledHeap();
  let at = 0;
  const { ms } = await fillTasks(bench.app, N, (id) => (ids[at++] = id), request);
  const after = await settledHeap();
  const last = ids[N - 1]!;
  // The app (and its store) must still be alive here, and every task in the expected state.
  const res = await bench.app.fetch(toWebRequest(requests.getTask(last)));
  const body = (await res.json()) as { result?: { status?: string } };
  const status = body.result?.status ?? `HTTP ${res.status}`;
  if (bench.tasks.store.size !== WARMUP + N) throw new Error(`store holds ${bench.tasks.store.size}, expected ${WARMUP + N}`);
  let bytesPerTaskAfterGet: number | undefined;
  if (kind === "finished") {
    for (const id of ids) await (await bench.app.fetch(toWebRequest(requests.getTask(id)))).text();
    bytesPerTaskAfterGet = ((await settledHeap()) - before) / N;
    // Keeps the app, and so the store, reachable until after the measurement.
    if (bench.tasks.store.size !== WARMUP + N) throw new Error("tasks went missing after tasks/get");
  }
  return { kind, n: N, bytesPerTask: (after - before) / N, bytesPerTaskAfterGet, status, createUs: (ms * 1000) / N };
}

/** The heap of N result payloads shaped as a finished task keeps them, with a fresh text string each. */
async function measurePayload(): Promise<number> {
  const keep: unknown[] = new Array(N);
  const before = await settledHeap();
  for (let i = 0; i < N; i++) {
    const text = JSON.parse(`"${ECHO_TEXT}"`) as string;
    keep[i] = { content: [{ type: "text", text }] };
  }
  const after = await settledHeap();
  const per = (after - before) / N;
  keep.length = 0;
  return per;
}

const payload = await measurePayload();
const finished = await measureTasks("finished");
await settledHeap();
const working = await measureTasks("working");

const report = {
  n: N,
  node: process.version,
  payloadBytes: payload,
  finished: { ...finished, beyondPayload: finished.bytesPerTask - payload },
  working,
};

if (values.json) {
  console.log(JSON.stringify(report));
} else {
  const kb = (b: number) => `${(b / 1024).toFixed(2)} KB`;
  console.log(`N = ${N}, ${process.version}`);
  console.log(`finished task: ${kb(finished.bytesPerTask)} per task (${kb(report.finished.beyondPayload)} beyond a ${payload.toFixed(0)} B result payload), status ${finished.status}, ${finished.createUs.toFixed(1)} µs to create in-process`);
  console.log(`finished task after one tasks/get each: ${kb(finished.bytesPerTaskAfterGet!)} per task`);
  console.log(`working task:  ${kb(working.bytesPerTask)} per task, status ${working.status}, ${working.createUs.toFixed(1)} µs to create in-process`);
}
process.exit(0);
