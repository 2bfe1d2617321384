// What bench/memory.ts reports (heap and off-heap bytes per retained task), its table and its verdicts.
import { fmtCount, verdictRow } from "./format.ts";

export interface MemoryReport {
  n: number;
  payloadBytes: number;
  finished: { bytesPerTask: number; heapPerTask: number; offHeapPerTask: number; beyondPayload: number; bytesPerTaskAfterGet?: number; status: string; createUs: number };
  working: { bytesPerTask: number; heapPerTask: number; offHeapPerTask: number; status: string; createUs: number };
}

export function memoryTable(memory: MemoryReport): string[] {
  const kb = (b: number) => `${(b / 1024).toFixed(2)} KB`;
  return [
    "",
    `Memory per retained task (N = ${fmtCount(memory.n)}): JS heap (heapUsed delta after full GC ÷ N) plus what the store holds outside the heap (its typed arrays and Buffer chunks ÷ N):`,
    "",
    "| task | heap | off-heap | total | total beyond result payload | in-process create |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    `| finished (${memory.finished.status}) | ${kb(memory.finished.heapPerTask)} | ${kb(memory.finished.offHeapPerTask)} | ${kb(memory.finished.bytesPerTask)} | ${kb(memory.finished.beyondPayload)} (payload ${memory.payloadBytes.toFixed(0)} B) | ${memory.finished.createUs.toFixed(0)} µs |`,
    ...(memory.finished.bytesPerTaskAfterGet === undefined
      ? []
      : [
          `| finished, after one tasks/get each | | | ${kb(memory.finished.bytesPerTaskAfterGet)} | ${kb(memory.finished.bytesPerTaskAfterGet - memory.payloadBytes)} | |`,
        ]),
    `| working (${memory.working.status}) | ${kb(memory.working.heapPerTask)} | ${kb(memory.working.offHeapPerTask)} | ${kb(memory.working.bytesPerTask)} | – | ${memory.working.createUs.toFixed(0)} µs |`,
  ];
}

export function memoryVerdicts(memory: MemoryReport | undefined): string[] {
  if (!memory) {
    return [verdictRow("≤ 1.5 KB heap per finished task beyond its payload", undefined, ""), verdictRow("≤ 8 KB heap per working task", undefined, "")];
  }
  const polled = memory.finished.bytesPerTaskAfterGet === undefined ? undefined : memory.finished.bytesPerTaskAfterGet - memory.payloadBytes;
  const worstFinished = Math.max(memory.finished.beyondPayload, polled ?? 0);
  return [
    verdictRow(
      "≤ 1.5 KB heap per finished task beyond its payload",
      worstFinished <= 1536,
      `${(memory.finished.beyondPayload / 1024).toFixed(2)} KB heap + off-heap at N = ${fmtCount(memory.n)} (heap alone ${(memory.finished.heapPerTask / 1024).toFixed(2)} KB)${polled === undefined ? "" : `; ${(polled / 1024).toFixed(2)} KB once read by tasks/get`}`,
    ),
    verdictRow("≤ 8 KB heap per working task", memory.working.bytesPerTask <= 8192, `${(memory.working.bytesPerTask / 1024).toFixed(2)} KB heap + off-heap at N = ${fmtCount(memory.n)}`),
  ];
}
