// Cost of the lazy expiry sweep: E expired tasks in front of L live ones, then one sweep, timed.
// O(expired) means the time follows E and does not follow L.
//   node --expose-gc --import tsx bench/sweep.ts [--quick] [--json]
// Tasks are created through tools/call (in-process app.fetch). Expiry needs time to pass, so the
// store is given a controllable clock through mcpTasks' `~now` hook (internal, meant for tests):
// E tasks (finished, or still working, which expiry then fails) are created at t = 0, L at t = 30 s, and the sweep runs at t = 60 s with ttlMs = 60 s.
import { parseArgs } from "node:util";
import { createBenchApp } from "./lib/mcp-app.ts";
import { fillTasks } from "./lib/fill.ts";
import { requests } from "./lib/wire.ts";

const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, json: { type: "boolean", default: false } } });

const TTL = 60_000;
// [expired, live, state of the expired tasks when they expire]
type Case = [expired: number, live: number, kind: "finished" | "working"];
const cases: Case[] = values.quick
  ? [
      [100, 100, "finished"],
      [1000, 100, "finished"],
      [100, 2000, "finished"],
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
}

const results: SweepCase[] = [];
for (const [expired, live, kind] of cases) {
  let clock = 0;
  const { app, tasks } = createBenchApp({ ttlMs: TTL, "~now": () => clock });
  await fillTasks(app, expired, undefined, kind === "finished" ? requests.createTask() : requests.hangTask());
  clock = TTL / 2;
  await fillTasks(app, live);
  gc();
  clock = TTL + 1;
  let t = performance.now();
  const dropped = tasks.store.sweep();
  const sweepUs = (performance.now() - t) * 1000;
  t = performance.now();
  tasks.store.sweep();
  const idleSweepUs = (performance.now() - t) * 1000;
  if (dropped !== expired) throw new Error(`sweep dropped ${dropped}, expected ${expired}`);
  results.push({ kind, expired, live, dropped, sweepUs, nsPerExpired: (sweepUs * 1000) / expired, idleSweepUs });
}

if (values.json) console.log(JSON.stringify({ cases: results }));
else {
  console.log("| expired | of which | live | sweep | per expired | idle sweep |\n| ---: | --- | ---: | ---: | ---: | ---: |");
  for (const r of results) {
    console.log(`| ${r.expired} | ${r.kind} | ${r.live} | ${(r.sweepUs / 1000).toFixed(2)} ms | ${r.nsPerExpired.toFixed(0)} ns | ${r.idleSweepUs.toFixed(1)} µs |`);
  }
}
process.exit(0);
