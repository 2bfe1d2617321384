// The targets h3-mcp is held to, each met, not met or not measured in this run. Nothing is
// asserted: this reports.
import { median, percentile, type RunResult } from "./load.ts";
import type { ChildReports } from "./children.ts";
import { durabilityVerdicts } from "./durability-report.ts";
import { fmtCount, verdictRow } from "./format.ts";
import { memoryVerdicts } from "./memory-report.ts";
import type { BenchConfig } from "./options.ts";
import { redisCostsVerdicts } from "./redis-costs-report.ts";
import type { Results } from "./results.ts";
import { sweepVerdicts } from "./sweep-report.ts";
import type { TargetKind } from "./target-kinds.ts";

/** The verdict table. */
export function verdictTable(results: Results, reports: ChildReports, config: BenchConfig): string[] {
  const rows = [...loadVerdicts(results), ...memoryVerdicts(reports.memory), storeSizeVerdict(results, config), ...sweepVerdicts(reports.sweep), ...redisCostsVerdicts(reports.redisCosts), ...durabilityVerdicts(reports.durability)];
  return ["", "| target | status | measured |", "| --- | --- | --- |", ...rows];
}

function loadVerdicts(results: Results): string[] {
  const verdicts: string[] = [];
  const verdict = (name: string, met: boolean | undefined, detail: string) => verdicts.push(verdictRow(name, met, detail));
  const ratio = (id: string, kind: TargetKind, base: TargetKind) => results.ratio(id, kind, base);
  const withCpu = (r: number, id: string, kind: TargetKind, base: TargetKind) => {
    const c = results.cpuRatio(id, kind, base);
    return `${r.toFixed(2)}×${c === undefined ? "" : ` (by CPU per request ${c.toFixed(2)}×)`}`;
  };
  const getIds = results.rows.filter((r) => r.kind === "h3-mcp" && r.scenario.id.startsWith("task-get")).map((r) => r.scenario.id);
  const getRatios = [...new Set(getIds)].map((id) => [id, ratio(id, "h3-mcp", "bare")!] as const);
  const worstGet = getRatios.length ? Math.min(...getRatios.map(([, r]) => r)) : undefined;
  verdict(
    "tasks/get ≥ 0.8× bare h3 req/s",
    worstGet === undefined ? undefined : worstGet >= 0.8,
    getRatios.map(([id, r]) => `${id.replace("task-get", "get")}: ${withCpu(r, id, "h3-mcp", "bare")}`).join(", "),
  );
  const echoRatio = ratio("echo", "h3-mcp", "bare");
  verdict("synchronous tools/call ≥ 0.85× bare h3", echoRatio === undefined ? undefined : echoRatio >= 0.85, echoRatio ? withCpu(echoRatio, "echo", "h3-mcp", "bare") : "");
  // Row (f), bare h3 plus one task actor's whole life, is what creation can reach while each task is an actor.
  const createRatio = ratio("task-create", "h3-mcp", "actor");
  const createBare = ratio("task-create", "h3-mcp", "bare");
  verdict(
    "task creation (in-memory) ≥ 0.85× row (f)",
    createRatio === undefined ? undefined : createRatio >= 0.85,
    createRatio ? `${withCpu(createRatio, "task-create", "h3-mcp", "actor")}; ${createBare ? withCpu(createBare, "task-create", "h3-mcp", "bare") : "–"} of bare h3` : "",
  );
  for (const [kind, floor, goal] of [
    ["traced", "floor", 0.8],
    ["unsampled", "floor-unsampled", 0.95],
  ] as const) {
    const r = ratio("otel", kind, "h3-mcp");
    const f = ratio("otel", floor, "h3-mcp");
    const ofFloor = ratio("otel", kind, floor);
    verdict(
      `tools/call with OpenTelemetry, ${kind === "traced" ? "every span recorded" : "no span sampled"}, ≥ ${goal}× untraced`,
      r === undefined ? undefined : r >= goal,
      r === undefined
        ? ""
        : `${withCpu(r, "otel", kind, "h3-mcp")}${f === undefined || ofFloor === undefined ? "" : `; the floor tracer ${withCpu(f, "otel", floor, "h3-mcp")}, h3-mcp ${withCpu(ofFloor, "otel", kind, floor)} of it`}`,
    );
  }
  // Authorization: at most 15% over the same call without auth for a client reusing its token, and bad
  // tokens no dearer than good ones (a repeated bad token against a reused good one, a new one against a new one).
  const reused = ratio("auth-reused", "jwt", "h3-mcp");
  verdict(
    "tools/call with a reused JWT ≥ 0.87× without auth (≤ 15% over)",
    reused === undefined ? undefined : reused >= 1 / 1.15,
    reused === undefined ? "" : withCpu(reused, "auth-reused", "jwt", "h3-mcp"),
  );
  for (const [id, bad, good] of [
    ["auth-reused", "jwt-bad", "jwt"],
    ["auth-first", "jwt-bad-first", "jwt-first"],
  ] as const) {
    const r = ratio(id, bad, good);
    verdict(
      `bad tokens ≥ 1× the rate of good ones (${id === "auth-reused" ? "repeated" : "each first seen"})`,
      r === undefined ? undefined : r >= 1,
      r === undefined ? "" : withCpu(r, id, bad, good),
    );
  }
  const sdkRatio = ratio("echo", "h3-mcp", "sdk");
  verdict("tools/call ≥ 10× official SDK", sdkRatio === undefined ? undefined : sdkRatio >= 10, sdkRatio ? withCpu(sdkRatio, "echo", "h3-mcp", "sdk") : "");
  for (const [id, goal] of [
    ["redis-task-get", 0.8],
    ["redis-task-create", 0.5],
    ["redis-task-update", 0.5],
    ["redis-task-cancel", 0.5],
  ] as const) {
    const r = ratio(id, "h3-mcp", "bare-redis");
    const mem = ratio(id, "h3-mcp", "memory");
    verdict(
      `${id} ≥ ${goal}× bare-redis`,
      r === undefined ? undefined : r >= goal,
      r === undefined ? "" : `${withCpu(r, id, "h3-mcp", "bare-redis")}; ${mem?.toFixed(2) ?? "–"}× the in-memory store's rate (CPU ${results.cpuRatio(id, "h3-mcp", "memory")?.toFixed(2) ?? "–"}×)`,
    );
  }
  return verdicts;
}

function storeSizeVerdict(results: Results, config: BenchConfig): string {
  const fillIds = config.fills.map((n) => `task-get-${fmtCount(n)}`).filter((id) => results.get(id, "h3-mcp"));
  if (fillIds.length < 2) return verdictRow("tasks/get p50 within ±10% across store sizes", undefined, "");
  // The rounds of all store sizes alternate, so every size's responses come from the same minutes
  // of the machine: the verdict compares p50 over all rounds' responses. The median of per-round
  // p50 changes is printed beside it; with rounds this short it swings more than the pooled figure.
  const runsOf = (id: string) => results.row(id, "h3-mcp")!.runs;
  const p50Of = (run: RunResult) => percentile(Float64Array.from(run.latencies).sort(), 50);
  const baseRuns = runsOf(fillIds[0]!);
  const baseP50 = results.get(fillIds[0]!, "h3-mcp")!.p50;
  const devs = fillIds.map((id) => {
    const paired = median(runsOf(id).map((run, i) => p50Of(run) / p50Of(baseRuns[i]!) - 1));
    return [id, results.get(id, "h3-mcp")!.p50 / baseP50 - 1, paired] as const;
  });
  const worst = Math.max(...devs.map(([, d]) => Math.abs(d)));
  const pct = (d: number) => `${d >= 0 ? "+" : ""}${(d * 100).toFixed(1)}%`;
  return verdictRow(
    `tasks/get p50 within ±10% from ${fmtCount(config.fills[0]!)} to ${fmtCount(config.fills.at(-1)!)} retained`,
    worst <= 0.1,
    devs
      .map(([id, d, paired]) => `${id.replace("task-get-", "")}: ${results.get(id, "h3-mcp")!.p50.toFixed(2)} ms (${pct(d)}; per-round median ${pct(paired)})`)
      .join(", "),
  );
}
