// The measurements that are not load runs: bench/memory.ts, bench/sweep.ts, bench/redis-costs.ts and
// bench/durability.ts, each in a child with --expose-gc, whose last stdout line is its JSON report.
import { spawn } from "node:child_process";
import { log, fmtCount } from "./format.ts";
import type { MemoryReport } from "./memory-report.ts";
import type { DurabilityReport } from "./durability-report.ts";
import type { BenchConfig } from "./options.ts";
import { libEnv, ROOT } from "./proc.ts";
import type { RedisCostsReport } from "./redis-costs-report.ts";
import type { SweepReport } from "./sweep-report.ts";

export interface ChildReports {
  memory?: MemoryReport;
  sweep?: SweepReport;
  redisCosts?: RedisCostsReport;
  durability?: DurabilityReport;
}

/** The memory and sweep reports, and the Redis costs and durability when `withRedis`. */
export async function runChildren(config: BenchConfig, quick: boolean, withRedis: boolean): Promise<ChildReports> {
  log(`- heap per task, N = ${fmtCount(config.memoryN)}`);
  const memory = await child<MemoryReport>("bench/memory.ts", ["--n", String(config.memoryN)]);
  log("- expiry sweep");
  const sweep = await child<SweepReport>("bench/sweep.ts", quick ? ["--quick"] : []);
  if (!withRedis) return { memory, sweep };
  log("- Redis memory per finished task, compare-and-set retries");
  const redisCosts = await child<RedisCostsReport>("bench/redis-costs.ts", quick ? ["--n", "300", "--rounds", "30"] : ["--n", "5000", "--rounds", "300"]);
  log("- durability: real demo processes killed and drained");
  const durability = await child<DurabilityReport>("bench/durability.ts", ["--rounds", quick ? "3" : "9"]);
  return { memory, sweep, redisCosts, durability };
}

async function child<T>(script: string, extra: string[]): Promise<T> {
  const proc = spawn(process.execPath, ["--expose-gc", "--max-old-space-size=4096", "--import", "tsx", script, "--json", ...extra], {
    cwd: ROOT,
    env: { ...process.env, ...libEnv() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  proc.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out.trim().split("\n").pop()!) as T;
}
