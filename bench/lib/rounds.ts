// Running the rounds: each scenario's targets are started, prepared and checked once, warmed up,
// then run in turn (A B C A B C …) for every round, so slow drifts of the machine land on all alike.
import { runLoad, type RunResult } from "./load.ts";
import type { BenchConfig } from "./options.ts";
import type { Target } from "./proc.ts";
import type { Processes } from "./processes.ts";
import { isText, type Scenario } from "./scenario.ts";
import { CEILINGS, isReference, type TargetKind } from "./target-kinds.ts";
import { toWebRequest, type RawRequest } from "./wire.ts";
import { log } from "./format.ts";

/** One target of one scenario, and its runs (one per round). */
export interface Row {
  scenario: Scenario;
  kind: TargetKind;
  runs: RunResult[];
}

interface Prepared {
  scenario: Scenario;
  reqs: Map<TargetKind, RawRequest[]>;
  targets: Map<TargetKind, Target>;
  rows: Row[];
}

/** Runs the scenarios (in the order given) and returns their rows; every process is stopped at the end. */
export async function runRounds(scenarios: Scenario[], processes: Processes, config: BenchConfig, quick: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  let libSeen = false;
  /** Each row's last rate, so a consuming run gets enough fresh tasks for about its duration. */
  const lastRate = new Map<Row, number>();
  const poolFor = (row: Row, seconds: number) => Math.max(quick ? 200 : 1000, Math.ceil((lastRate.get(row) ?? (quick ? 500 : 3000)) * seconds));
  const consumes = (scenario: Scenario, kind: TargetKind) => scenario.perRun !== undefined && !isReference(kind);

  async function runRow(p: Prepared, row: Row, durationSec: number): Promise<RunResult> {
    const kind = row.kind;
    const t = p.targets.get(kind)!;
    const consuming = consumes(p.scenario, kind);
    const reqs = consuming ? await p.scenario.perRun!(t, poolFor(row, durationSec), kind) : p.reqs.get(kind)!;
    const run = await runLoad(t, reqs, { durationSec, connections: config.connections, once: consuming, okStatus: p.scenario.refusedWith?.[kind] });
    if (run.non2xx || run.errors || run.timeouts) {
      throw new Error(`${kind} on ${p.scenario.title}: ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts`);
    }
    lastRate.set(row, run.rps);
    return run;
  }

  async function prepare(scenario: Scenario): Promise<Prepared> {
    log(`- ${scenario.title}`);
    const kinds = (Object.keys(scenario.processes) as TargetKind[]).filter((k) => scenario.processes[k]);
    const targets = new Map<TargetKind, Target>();
    const reqs = new Map<TargetKind, RawRequest[]>();
    // References last: one may take the requests another target was prepared with.
    for (const kind of [...kinds.filter((k) => !isReference(k)), ...kinds.filter(isReference)]) {
      const t = await processes.target(scenario.processes[kind]!);
      if (t.lib && !libSeen) {
        libSeen = true;
        log(`  h3-mcp resolves to ${t.lib}`);
      }
      targets.set(kind, t);
      reqs.set(kind, await scenario.prepare(t, kind, reqs));
      const first = consumes(scenario, kind) ? (await scenario.perRun!(t, 1, kind))[0]! : reqs.get(kind)![0]!;
      await validate(t, kind, scenario, first);
    }
    return { scenario, reqs, targets, rows: kinds.map((kind) => ({ scenario, kind, runs: [] as RunResult[] })) };
  }

  try {
    for (const batch of batches(scenarios)) {
      const prepared: Prepared[] = [];
      for (const scenario of batch) prepared.push(await prepare(scenario));
      for (const p of prepared) {
        for (const row of p.rows) {
          if (config.warmupSec > 0) await runRow(p, row, config.warmupSec);
        }
      }
      for (let round = 0; round < config.rounds; round++) {
        for (const p of prepared) {
          for (const row of p.rows) {
            const run = await runRow(p, row, config.durationSec);
            row.runs.push(run);
            const label = batch.length > 1 ? `${p.scenario.id.padEnd(16)} ` : "";
            const cpu = run.serverCpuUsPerReq === undefined ? "" : `, server CPU ${run.serverCpuUsPerReq.toFixed(1)} µs/req`;
            log(`  round ${round + 1} ${label}${row.kind.padEnd(10)} ${Math.round(run.rps).toString().padStart(6)} req/s${cpu}`);
          }
        }
      }
      for (const p of prepared) rows.push(...p.rows);
      for (const p of prepared) for (const key of p.scenario.release ?? []) await processes.stop(key);
    }
  } finally {
    await processes.stopAll();
  }
  return rows;
}

/** Consecutive scenarios sharing a group run as one batch. */
function batches(scenarios: Scenario[]): Scenario[][] {
  const out: Scenario[][] = [];
  for (const scenario of scenarios) {
    const last = out.at(-1);
    if (scenario.group !== undefined && last?.[0]?.group === scenario.group) last.push(scenario);
    else out.push([scenario]);
  }
  return out;
}

/** A target that answers a scenario wrongly would make its figures meaningless: one request is checked first. */
async function validate(t: Target, kind: TargetKind, scenario: Scenario, request: RawRequest): Promise<void> {
  const res = await fetch(toWebRequest(request, t.origin));
  const text = await res.text();
  const refused = scenario.refusedWith?.[kind];
  if (refused !== undefined) {
    if (res.status !== refused || !text.includes('"code":-32600')) throw new Error(`${kind} answered ${scenario.title} wrongly: HTTP ${res.status} ${text.slice(0, 300)}`);
    return;
  }
  let result: Record<string, unknown> | undefined;
  try {
    result = (JSON.parse(text) as { result?: Record<string, unknown> }).result;
  } catch {}
  const ok = res.status === 200 && result !== undefined && (CEILINGS.has(kind) ? isText(result) : scenario.check(result));
  if (!ok) throw new Error(`${kind} answered ${scenario.title} wrongly: HTTP ${res.status} ${text.slice(0, 300)}`);
}
