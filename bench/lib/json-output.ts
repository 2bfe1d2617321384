// The `--json <file>` output: the run's machine and configuration, every row's figures, every
// round's rate (so any ratio can be recomputed), and the children's reports.
import { writeFileSync } from "node:fs";
import os from "node:os";
import type { ChildReports } from "./children.ts";
import { cpuModel } from "./load-report.ts";
import type { BenchConfig } from "./options.ts";
import type { Results } from "./results.ts";

export function writeJson(file: string, results: Results, reports: ChildReports, config: BenchConfig): void {
  const data = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { os: `${os.type()} ${os.release()} ${os.arch()}`, cpus: os.cpus().length, cpuModel: cpuModel(), memGiB: os.totalmem() / 2 ** 30 },
    config,
    results: Object.fromEntries(results.statsOf),
    rounds: results.rows.map((r) => ({ scenario: r.scenario.id, target: r.kind, rps: r.runs.map((x) => x.rps) })),
    memory: reports.memory,
    sweep: reports.sweep,
    redisCosts: reports.redisCosts,
    durability: reports.durability,
  };
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}
