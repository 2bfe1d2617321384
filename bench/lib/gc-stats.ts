// Collections seen by this process since observeGc() was called, from perf_hooks' gc entries.
import { constants, PerformanceObserver } from "node:perf_hooks";

export interface GcTotals {
  /** Scavenges (young generation). */
  minor: { count: number; ms: number };
  /** Mark-sweep-compact and incremental marking (old generation). */
  major: { count: number; ms: number };
}

export function observeGc(): () => GcTotals {
  const totals: GcTotals = { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 } };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      const t = kind === constants.NODE_PERFORMANCE_GC_MINOR ? totals.minor : totals.major;
      t.count++;
      t.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => structuredClone(totals);
}
