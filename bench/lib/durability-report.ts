// What bench/durability.ts reports (how soon a run found by name goes on elsewhere), the table the bench
// prints for it and its verdicts: the one place the driver knows its fields.
import { verdictRow } from "./format.ts";

/** Milliseconds, one value a round. */
export interface DurabilityReport {
  leaseMs: number;
  killToNextAttemptMs: number[];
  drainToNextAttemptMs: number[];
  idleDrainMs: number[];
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[xs.length >> 1]!;
// By nearest rank: with few rounds, the largest.
const p95 = (xs: number[]) => sorted(xs)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

/** The goals: after a SIGKILL within a lease and a second, after a drain's hand-off within a second. */
const killGoal = (report: DurabilityReport) => report.leaseMs + 1000;
const HAND_OFF_GOAL = 1000;

export function durabilityLines(report: DurabilityReport): string[] {
  const row = (what: string, xs: number[], goal: string) => `| ${what} | ${median(xs).toFixed(1)} | ${p95(xs).toFixed(1)} | ${goal} |`;
  return [
    "",
    `Durability, ${report.killToNextAttemptMs.length} rounds of real demo processes, lease ${report.leaseMs} ms (ms)`,
    "",
    "| from | median | p95 | goal |",
    "| --- | --- | --- | --- |",
    row("SIGKILL → next attempt starts elsewhere", report.killToNextAttemptMs, `≤ lease + 1 s (${killGoal(report)})`),
    row("SIGTERM (MCP_DRAIN_MS=0) → next attempt starts elsewhere", report.drainToNextAttemptMs, `≤ ${HAND_OFF_GOAL}`),
    row("drain with nothing running", report.idleDrainMs, "at once"),
  ];
}

export function durabilityVerdicts(report: DurabilityReport | undefined): string[] {
  if (!report) return [];
  const kill = p95(report.killToNextAttemptMs);
  const handOff = p95(report.drainToNextAttemptMs);
  return [
    verdictRow(`After a SIGKILL the next attempt starts within the lease + 1 s`, kill <= killGoal(report), `p95 ${kill.toFixed(0)} ms (lease ${report.leaseMs} ms)`),
    verdictRow(`After a drain's hand-off the next attempt starts within 1 s`, handOff <= HAND_OFF_GOAL, `p95 ${handOff.toFixed(0)} ms`),
  ];
}
