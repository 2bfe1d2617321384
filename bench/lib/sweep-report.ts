// What bench/sweep.ts reports (the cost of the lazy expiry sweep), its table and its verdict.
import { fmtCount, verdictRow } from "./format.ts";

export interface SweepReport {
  cases: { kind: string; expired: number; live: number; sweepUs: number; nsPerExpired: number; idleSweepUs: number; refNsPerExpired: number }[];
}

export function sweepTable(sweep: SweepReport): string[] {
  return [
    "",
    "Expiry sweep (one sweep after E tasks expired, in front of L live ones; the reference is a plain Map of as many similar objects deleting E from its front):",
    "",
    "| expired E | E were | live L | sweep | per expired | plain Map, per delete | sweep with nothing expired |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ...sweep.cases.map(
      (c) =>
        `| ${fmtCount(c.expired)} | ${c.kind} | ${fmtCount(c.live)} | ${(c.sweepUs / 1000).toFixed(2)} ms | ${c.nsPerExpired.toFixed(0)} ns | ${c.refNsPerExpired.toFixed(0)} ns | ${c.idleSweepUs.toFixed(1)} µs |`,
    ),
  ];
}

export function sweepVerdicts(sweep: SweepReport | undefined): string[] {
  if (!sweep) return [];
  const finished = sweep.cases.filter((c) => c.kind === "finished");
  // O(expired): the sweep may touch the expired entries and must not touch the live ones. An
  // O(store size) sweep would grow about 100× when L grows 100× at the same E; touching only the
  // expired entries still grows somewhat, because E scattered entries stop fitting in cache as the
  // store grows. The reference (a plain Map of E + L objects deleting E from its front) carries
  // that cache effect, so the verdict is: the sweep grows with L no more than max(2×, 1.5× the
  // reference's growth). The growth with E is printed for the record.
  const minL = Math.min(...finished.map((c) => c.live));
  const byE = finished.filter((c) => c.live === minL).sort((a, b) => a.expired - b.expired);
  const firstE = byE[0];
  const lastE = byE.at(-1);
  const growsWithE = firstE && lastE && firstE !== lastE;
  const sameE = firstE ? finished.filter((c) => c.expired === firstE.expired).sort((a, b) => a.live - b.live) : [];
  const fewLive = sameE[0];
  const manyLive = sameE.at(-1);
  const growsWithL = fewLive && manyLive && fewLive !== manyLive;
  const lGrowth = growsWithL ? manyLive!.sweepUs / fewLive!.sweepUs : undefined;
  const refLGrowth = growsWithL ? manyLive!.refNsPerExpired / fewLive!.refNsPerExpired : undefined;
  const working = sweep.cases.find((c) => c.kind === "working");
  return [
    verdictRow(
      "lazy sweep costs O(expired)",
      lGrowth === undefined ? undefined : lGrowth <= Math.max(2, 1.5 * refLGrowth!),
      [
        growsWithL
          ? `L ${fmtCount(fewLive!.live)} → ${fmtCount(manyLive!.live)} at E = ${fmtCount(fewLive!.expired)}: sweep ${(fewLive!.sweepUs / 1000).toFixed(2)} → ${(manyLive!.sweepUs / 1000).toFixed(2)} ms (×${lGrowth!.toFixed(1)}; plain Map ×${refLGrowth!.toFixed(1)})`
          : "",
        growsWithE
          ? `E ${fmtCount(firstE!.expired)} → ${fmtCount(lastE!.expired)}: ${firstE!.nsPerExpired.toFixed(0)} → ${lastE!.nsPerExpired.toFixed(0)} ns per expired task (plain Map: ${firstE!.refNsPerExpired.toFixed(0)} → ${lastE!.refNsPerExpired.toFixed(0)} ns)`
          : "",
        working ? `an expiring working task costs ${(working.nsPerExpired / 1000).toFixed(1)} µs (its actor fails and stops)` : "",
      ]
        .filter(Boolean)
        .join("; "),
    ),
  ];
}
