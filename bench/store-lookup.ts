// The in-memory store's own lookup cost as it grows: `store.read` of a sampled finished task, in-process,
// at 1k and at 1M retained, alternated in one process (1k is the baseline). No HTTP: this isolates what
// the task table adds per `tasks/get`. The store is an internal, so it is imported from src.
//   node --import tsx bench/store-lookup.ts [--rounds 5] [--reads 500000]
import { parseArgs } from "node:util";
import { memoryTaskStore, type MemoryTaskStore } from "../src/tasks/memory-store.ts";
import type { TaskSnapshot } from "../src/tasks/store.ts";
import { newTaskId } from "../src/utils/task-id.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, reads: { type: "string", default: "500000" } } });
const SAMPLE = 4096;

/** A store of `n` finished tasks whose answers look like the bench's, and a uniform sample of their ids. */
function filled(n: number): { store: MemoryTaskStore; ids: string[] } {
  const store = memoryTaskStore();
  const ignore = () => {};
  store.connect({ now: () => 0, limits: { max: n, maxPerOwner: Infinity }, bound: false, feed: { wants: () => false, changed: ignore, expired: ignore, missed: ignore } });
  const ids: string[] = [];
  const every = Math.max(1, Math.floor(n / SAMPLE));
  for (let i = 0; i < n; i++) {
    const id = newTaskId();
    const at = new Date().toISOString();
    const context = { taskId: id, createdAt: 0, lastUpdatedAt: 0, ttlMs: null, pollIntervalMs: 1000, inputRequests: {}, inputKeys: {}, issuedKeys: [], answers: {} };
    const snapshot: TaskSnapshot = { value: "working", context };
    store.create({ id, owner: "", expiresAt: Infinity, snapshot });
    const result = { resultType: "complete", content: [{ type: "text", text: "hello" }] };
    const json = JSON.stringify({ resultType: "complete", taskId: id, status: "completed", createdAt: at, lastUpdatedAt: at, ttlMs: null, pollIntervalMs: 1000, result });
    store.write(id, { version: 2, snapshot: { value: "completed", context }, statusChanged: true, json });
    if (i % every === 0) ids.push(id);
  }
  return { store, ids };
}

/** µs per read; each id is parsed from JSON first, as a request's would be. */
function read({ store, ids }: { store: MemoryTaskStore; ids: string[] }, reads: number): number {
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < reads; i++) {
    const task = store.read(JSON.parse(`"${ids[i % ids.length]}"`) as string, "");
    bytes += task?.json?.length ?? 0;
  }
  const us = ((performance.now() - started) * 1000) / reads;
  if (bytes === 0) throw new Error("no finished task was read");
  return us;
}

const small = filled(1_000);
const big = filled(1_000_000);
const mem = process.memoryUsage();
console.log(`1M retained: heapUsed ${(mem.heapUsed / 2 ** 20).toFixed(0)} MB, store off-heap ${(big.store.externalBytes / 2 ** 20).toFixed(0)} MB`);
const reads = Number(values.reads);
const ratios: number[] = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  const a = read(small, reads);
  const b = read(big, reads);
  ratios.push(b / a);
  console.log(`round ${round}: 1k ${a.toFixed(3)} µs, 1M ${b.toFixed(3)} µs per store.read (1M ÷ 1k ${(b / a).toFixed(2)}×, +${(b - a).toFixed(2)} µs)`);
}
console.log(`median 1M ÷ 1k: ${[...ratios].sort((x, y) => x - y)[ratios.length >> 1]!.toFixed(2)}×`);
