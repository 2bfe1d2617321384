// Cost of the lazy expiry sweep: E expired tasks in front of L live ones, then one sweep, timed.
// O(expired) means the time follows E and does not follow L.
//   node --expose-gc --import tsx bench/sweep.ts [--quick] [--json]
// Tasks are created through tools/call (in-process app.fetch). Expiry needs time to pass, so the
// store is given a controllable clock through mcpTasks' `clock` option:
// E tasks (finished, or still working, which expiry then fails) are created at t = 0, L at t = 30 s, and the sweep runs at t = 60 s with ttlMs = 60 s.
import { parseArgs } from "node:util";
import type { MemoryTaskStore } from "h3-mcp/tasks";
import { createBenchApp } from "./lib/mcp-app.ts";
import { fillTasks } from "./lib/fill.ts";
import { requests } from "./lib/wire.ts";

const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, json: { type: "boolean", default: false } } });

const TTL = 60_000;
// [expired, live, state of the expired tasks when they expire]
type Case = [expired: number, live: number, kind: "finished" | "working"];
const cases: Case[] = values.quick
  ? [
      [500, 100, "finished"],
      [2000, 100, "finished"],
      [500, 4000, "finished"],
      [1000, 100, "working"],
    ]
  : [
      [1_000, 1_000, "finished"],
      [10_000, 1_000, "finished"],
      [100_000, 1_000, "finished"],
      [1_000, 100_000, "finished"],
      [10_000, 1_000, "working"],
    ];

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

export interface SweepCase {
  kind: "finished" | "working";
  expired: number;
  live: number;
  dropped: number;
  sweepUs: number;
  nsPerExpired: number;
  /** A second sweep with nothing expired: the cost of looking. */
  idleSweepUs: number;
  /**
   * Reference: a plain Map of E + L similar-sized objects, E deleted from its front the same way,
   * ns per delete. What the memory system charges for touching E scattered entries.
   */
  refNsPerExpired: number;
}

// The first sweeps run cold (interpreted, unoptimised): two unrecorded cases warm them up.
const WARMUP: Case[] = [
  [500, 100, "finished"],
  [500, 100, "working"],
];
const results: SweepCase[] = [];
/** One fresh store: E tasks at t = 0, L at t = TTL / 2, then sweeps at t = TTL + 1. */
async function measure(expired: number, live: number, kind: Case[2]) {
  let clock = 0;
  const { app, tasks } = createBenchApp({ ttlMs: TTL, clock: { now: () => clock } });
  const store = tasks.store as MemoryTaskStore;
  await fillTasks(app, expired, undefined, kind === "finished" ? requests.createTask() : requests.hangTask());
  clock = TTL / 2;
  await fillTasks(app, live);
  gc();
  clock = TTL + 1;
  let t = performance.now();
  const dropped = store.sweep();
  const sweepUs = (performance.now() - t) * 1000;
  // Looking when nothing expired is O(1); the fastest of a few tries keeps a GC pause out of it.
  let idleSweepUs = Infinity;
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    store.sweep();
    idleSweepUs = Math.min(idleSweepUs, (performance.now() - t) * 1000);
  }
  if (dropped !== expired) throw new Error(`sweep dropped ${dropped}, expected ${expired}`);
  if (store.size !== live) throw new Error(`store holds ${store.size}, expected ${live} live tasks`);
  return { sweepUs, idleSweepUs };
}

/** The reference walk: nothing of h3-mcp, just a Map, its iteration order and deletes. */
function plainMapDeletes(expired: number, live: number): number {
  const map = new Map<string, { id: string; expiresAt: number; pad: number[] }>();
  for (let i = 0; i < expired + live; i++) {
    const id = crypto.randomUUID();
    map.set(id, { id, expiresAt: i < expired ? 0 : 2, pad: new Array(64).fill(i) });
  }
  gc();
  const t = performance.now();
  let dropped = 0;
  for (const entry of map.values()) {
    if (entry.expiresAt > 1) break;
    map.delete(entry.id);
    dropped++;
  }
  return ((performance.now() - t) * 1e6) / dropped;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const [i, [expired, live, kind]] of [...WARMUP, ...cases].entries()) {
  // Small cases are repeated (median of 5): one sweep of a few hundred µs is at the mercy of a GC or a deopt.
  const repeats = expired + live <= 20_000 ? 5 : 1;
  const runs: { sweepUs: number; idleSweepUs: number }[] = [];
  for (let r = 0; r < repeats; r++) runs.push(await measure(expired, live, kind));
  const sweepUs = median(runs.map((r) => r.sweepUs));
  const idleSweepUs = median(runs.map((r) => r.idleSweepUs));
  const refNsPerExpired = median(Array.from({ length: repeats }, () => plainMapDeletes(expired, live)));
  if (i >= WARMUP.length) {
    results.push({ kind, expired, live, dropped: expired, sweepUs, nsPerExpired: (sweepUs * 1000) / expired, idleSweepUs, refNsPerExpired });
  }
}

if (values.json) console.log(JSON.stringify({ cases: results }));
else {
  console.log("| expired | of which | live | sweep | per expired | plain Map delete | idle sweep |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const r of results) {
    console.log(`| ${r.expired} | ${r.kind} | ${r.live} | ${(r.sweepUs / 1000).toFixed(2)} ms | ${r.nsPerExpired.toFixed(0)} ns | ${r.refNsPerExpired.toFixed(0)} ns | ${r.idleSweepUs.toFixed(1)} µs |`);
  }
}
process.exit(0);
