// Task creation over HTTP, paired round by round with row (f), with each lane's garbage collection: what a
// retention (ttlMs, max) or another checkout does to a creation's rate, CPU and GC time. Each lane is its own
// target process with BENCH_GC=1 (its /bench/stats reads perf_hooks' gc entries); each round runs every lane
// once for `--duration` s (the order rotates), and takes from each process its CPU and its collections' time.
//   node --import tsx bench/create-retention.ts [--rounds 8] [--duration 2] [--lanes keep,ttl1s,keep@/other/checkout]
// A lane `name@/path` is served by the checkout at /path, built (its dist/) with this bench/'s targets copied in.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { GcTotals } from "./lib/gc-stats.ts";
import { median, runLoad } from "./lib/load.ts";
import { buildDist, startTarget, type Target } from "./lib/proc.ts";
import { requests } from "./lib/wire.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "8" },
    duration: { type: "string", default: "2" },
    connections: { type: "string", default: "20" },
    lanes: { type: "string", default: "keep,ttl1s,ttl10s" },
    build: { type: "boolean", default: false },
  },
});
process.env.BENCH_LIB = "dist";
if (args.build) await buildDist();

/** Row (f), and h3-mcp keeping every task (the bench app's own ttlMs null, max 2M) or each for a ttl. */
const LANES: Record<string, { file: string; env?: Record<string, string> }> = {
  f: { file: "bare-actor.ts" },
  keep: { file: "h3-mcp.ts" },
  ttl1s: { file: "h3-mcp.ts", env: { BENCH_TTL_MS: "1000" } },
  ttl10s: { file: "h3-mcp.ts", env: { BENCH_TTL_MS: "10000" } },
};
const names = ["f", ...args.lanes!.split(",").filter((n) => n !== "f")];
const rounds = Number(args.rounds);
const durationSec = Number(args.duration);
const connections = Number(args.connections);
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const targets = new Map<string, Target>();
interface Fig {
  rps: number;
  cpuUs: number;
  gcUs: number;
  majorUs: number;
  size?: number;
}
const figs: Record<string, Fig[]> = Object.fromEntries(names.map((n) => [n, []]));
const stats = async (t: Target) => (await (await fetch(`${t.origin}/bench/stats`)).json()) as { gc: GcTotals; size?: number };
const reqs = [requests.createTask()];

try {
  for (const name of names) {
    const [laneName, root] = name.split("@") as [string, string | undefined];
    const lane = LANES[laneName];
    if (!lane) throw new Error(`unknown lane ${laneName}: ${Object.keys(LANES).join(", ")}`);
    targets.set(name, await startTarget(name, lane.file, { env: { BENCH_GC: "1", ...lane.env }, root }));
  }
  console.log(`load average ${loadavg()}`);
  for (const name of names) await runLoad(targets.get(name)!, reqs, { durationSec: 1, connections });
  for (let round = 0; round < rounds; round++) {
    for (const name of names.map((_, i) => names[(i + round) % names.length]!)) {
      const t = targets.get(name)!;
      const before = await stats(t);
      const run = await runLoad(t, reqs, { durationSec, connections });
      const after = await stats(t);
      if (run.non2xx || run.errors || run.timeouts) throw new Error(`${name}: ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts`);
      const major = after.gc.major.ms - before.gc.major.ms;
      figs[name]!.push({
        rps: run.rps,
        cpuUs: run.serverCpuUsPerReq ?? NaN,
        gcUs: ((after.gc.minor.ms - before.gc.minor.ms + major) * 1000) / run.ok,
        majorUs: (major * 1000) / run.ok,
        size: after.size,
      });
    }
    const line = names.map((n) => {
      const f = figs[n]!.at(-1)!;
      return `${n} ${Math.round(f.rps)}/s, CPU ${f.cpuUs.toFixed(0)}, GC ${f.gcUs.toFixed(1)} µs/req${f.size === undefined ? "" : `, ${f.size} tasks`}`;
    });
    console.log(`round ${round + 1} (load ${loadavg()}): ${line.join(" | ")}`);
  }
  console.log(`\nmedians of ${rounds} rounds (load ${loadavg()}):`);
  for (const n of names) {
    const fs = figs[n]!;
    const ratios = fs.map((f, i) => f.rps / figs.f![i]!.rps);
    console.log(
      `${n}: ${Math.round(median(fs.map((f) => f.rps)))} req/s, ÷ (f) ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}), ` +
        `CPU (f) ÷ it ${median(fs.map((f, i) => figs.f![i]!.cpuUs / f.cpuUs)).toFixed(3)}, GC ${median(fs.map((f) => f.gcUs)).toFixed(1)} µs/req (major ${median(fs.map((f) => f.majorUs)).toFixed(1)})`,
    );
  }
} finally {
  for (const t of targets.values()) await t.stop();
}
