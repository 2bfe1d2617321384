// Heap per retained task, through the public API: N tools/call requests answered by a task, served
// in-process by app.fetch, then a full GC, and the heapUsed delta over N.
//   node --expose-gc --import tsx bench/memory.ts [--n 100000] [--json]
// "finished": the task's run returns at once (kept as its final snapshot, actor stopped).
// "working":  the task's run awaits a promise that never settles (live actor, pending run).
// The store keeps tasks outside the JS heap (typed arrays and Buffer chunks): its own count of
// those bytes is added, so every figure is heap + off-heap. "Beyond the payload" subtracts the
// UTF-8 size of the result a finished task returns ({ content: [{ type: "text", text }] }), which
// the store must keep whatever its layout.
import { parseArgs } from "node:util";
import type { MemoryTaskStore } from "h3-mcp/tasks";
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
  /** Heap + off-heap. */
  bytesPerTask: number;
  heapPerTask: number;
  offHeapPerTask: number;
  /** Finished tasks only: heap + off-heap per task once each was read by one tasks/get (whatever a read leaves cached). */
  bytesPerTaskAfterGet?: number;
  status: string;
  createUs: number;
}

async function measureTasks(kind: "finished" | "working"): Promise<TaskMemory> {
  const request = kind === "finished" ? requests.createTask() : requests.hangTask();
  const bench = createBenchApp();
  // Warm the code paths (JIT, h3 router, zod) in this very app; those tasks are part of the baseline.
  await fillTasks(bench.app, WARMUP, undefined, request);
  // The ids are kept as bytes allocated before the baseline, so keeping them costs nothing in the delta.
  const ID_BYTES = 36;
  const ids = Buffer.alloc(N * ID_BYTES);
  const idAt = (i: number) => ids.toString("latin1", i * ID_BYTES, (i + 1) * ID_BYTES);
  const store = bench.tasks.store as MemoryTaskStore;
  const before = await settledHeap();
  const offBefore = store.externalBytes;
  let at = 0;
  const { ms } = await fillTasks(bench.app, N, (id) => {
    if (id.length !== ID_BYTES) throw new Error(`unexpected task id ${id}`);
    ids.write(id, at++ * ID_BYTES, "latin1");
  }, request);
  const after = await settledHeap();
  const offHeapPerTask = (store.externalBytes - offBefore) / N;
  const last = idAt(N - 1);
  // The app (and its store) must still be alive here, and every task in the expected state.
  const res = await bench.app.fetch(toWebRequest(requests.getTask(last)));
  const body = (await res.json()) as { result?: { status?: string } };
  const status = body.result?.status ?? `HTTP ${res.status}`;
  if (store.size !== WARMUP + N) throw new Error(`store holds ${store.size}, expected ${WARMUP + N}`);
  let bytesPerTaskAfterGet: number | undefined;
  if (kind === "finished") {
    for (let i = 0; i < N; i++) await (await bench.app.fetch(toWebRequest(requests.getTask(idAt(i))))).text();
    bytesPerTaskAfterGet = ((await settledHeap()) - before + store.externalBytes - offBefore) / N;
    // Keeps the app, and so the store, reachable until after the measurement.
    if (store.size !== WARMUP + N) throw new Error("tasks went missing after tasks/get");
  }
  const heapPerTask = (after - before) / N;
  return { kind, n: N, bytesPerTask: heapPerTask + offHeapPerTask, heapPerTask, offHeapPerTask, bytesPerTaskAfterGet, status, createUs: (ms * 1000) / N };
}

/** What the store must keep of a finished task's result whatever its layout: its JSON, as UTF-8. */
function payloadBytes(): number {
  return Buffer.byteLength(JSON.stringify({ resultType: "complete", content: [{ type: "text", text: ECHO_TEXT }] }));
}

const payload = payloadBytes();
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
  console.log(`finished task: ${kb(finished.bytesPerTask)} per task (heap ${kb(finished.heapPerTask)} + off-heap ${kb(finished.offHeapPerTask)}; ${kb(report.finished.beyondPayload)} beyond a ${payload.toFixed(0)} B result payload), status ${finished.status}, ${finished.createUs.toFixed(1)} µs to create in-process`);
  console.log(`finished task after one tasks/get each: ${kb(finished.bytesPerTaskAfterGet!)} per task`);
  console.log(`working task:  ${kb(working.bytesPerTask)} per task (heap ${kb(working.heapPerTask)} + off-heap ${kb(working.offHeapPerTask)}), status ${working.status}, ${working.createUs.toFixed(1)} µs to create in-process`);
}
process.exit(0);
