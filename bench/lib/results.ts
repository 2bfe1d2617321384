// The figures of each row (median rate, latency percentiles over all rounds, CPU and memory) and
// the ratios the report and the verdicts take between rows.
import { median, percentile, type RunResult } from "./load.ts";
import type { Row } from "./rounds.ts";
import type { TargetKind } from "./target-kinds.ts";

export interface Stats {
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p50: number;
  p99: number;
  cpuUs?: number;
  rssMb?: number;
  clientCpu: number;
  otherCpu?: number;
}

export class Results {
  readonly rows: Row[];
  /** By `${scenario id}/${target kind}`, as the JSON file has them. */
  readonly statsOf = new Map<string, Stats>();

  constructor(rows: Row[]) {
    this.rows = rows;
    for (const row of rows) this.statsOf.set(`${row.scenario.id}/${row.kind}`, stats(row.runs));
  }

  get(id: string, kind: TargetKind): Stats | undefined {
    return this.statsOf.get(`${id}/${kind}`);
  }

  row(id: string, kind: TargetKind): Row | undefined {
    return this.rows.find((r) => r.scenario.id === id && r.kind === kind);
  }

  /** The ceiling a scenario's ratios are taken against. */
  baseOf(id: string): TargetKind {
    return this.rows.find((r) => r.scenario.id === id)?.scenario.base ?? "bare";
  }

  /** Median over rounds of the paired ratio (this round's target ÷ this round's base): slow drifts of the machine cancel out. */
  ratio(id: string, kind: TargetKind, base: TargetKind = this.baseOf(id)): number | undefined {
    const a = this.row(id, kind);
    const b = this.row(id, base);
    if (!a || !b || a.runs.length !== b.runs.length || a.runs.length === 0) return undefined;
    return median(a.runs.map((run, i) => run.rps / b.runs[i]!.rps));
  }

  /** base's CPU per request ÷ kind's: the throughput ratio a CPU-bound server would reach. */
  cpuRatio(id: string, kind: TargetKind, base: TargetKind): number | undefined {
    const a = this.get(id, kind)?.cpuUs;
    const b = this.get(id, base)?.cpuUs;
    return a && b ? b / a : undefined;
  }
}

function stats(runs: RunResult[]): Stats {
  const all = new Float64Array(runs.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.latencies.length;
  }
  all.sort();
  const cpu = runs.map((r) => r.serverCpuUsPerReq).filter((v): v is number => v !== undefined);
  const rss = runs.map((r) => r.peakRss).filter((v): v is number => v !== undefined);
  return {
    rps: median(runs.map((r) => r.rps)),
    rpsMin: Math.min(...runs.map((r) => r.rps)),
    rpsMax: Math.max(...runs.map((r) => r.rps)),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    cpuUs: cpu.length ? median(cpu) : undefined,
    rssMb: rss.length ? Math.max(...rss) / 2 ** 20 : undefined,
    clientCpu: Math.max(...runs.map((r) => r.clientCpu)),
    otherCpu: runs.some((r) => r.otherCpu !== undefined) ? Math.max(...runs.map((r) => r.otherCpu ?? 0)) : undefined,
  };
}
