// What bench/redis-costs.ts reports (Redis memory per finished task, compare-and-set retries),
// the lines the bench prints for it and its verdict: the one place the driver knows its fields.
import { fmtCount, verdictRow } from "./format.ts";

export interface RedisCostsReport {
  redis?: string;
  memory: { n: number; sampled: number; hashBytes: number; countShareBytes: number; jsonBytes: number };
  contention: Contention;
  /** The same race with the answers sent to another instance on the same store. */
  contentionAcross?: Contention;
}

interface Contention {
  rounds: number;
  workerUpdates: number;
  answers: number;
  retries: number;
  perThousand: number;
}

export function redisCostsLines(redisCosts: RedisCostsReport): string[] {
  const m = redisCosts.memory;
  const c = redisCosts.contention;
  return [
    "",
    `Redis ${redisCosts.redis ?? "?"} (MEMORY USAGE, ${m.sampled} of ${fmtCount(m.n)} finished tasks sampled): a finished task holds ${m.hashBytes.toFixed(0)} B in its key plus ${m.countShareBytes.toFixed(0)} B of the sorted set the cap counts, ${(m.hashBytes + m.countShareBytes).toFixed(0)} B for a ${m.jsonBytes.toFixed(0)} B tasks/get result (${((m.hashBytes + m.countShareBytes) / m.jsonBytes).toFixed(2)}×).`,
    "",
    `Contention on one task (the worker reporting status about once a millisecond while tasks/update answers ${c.rounds} questions, one at a time): answers through the worker's instance, ${c.retries} compare-and-set retries over ${c.workerUpdates + c.answers} changes, ${c.perThousand.toFixed(1)} per 1,000${
      redisCosts.contentionAcross
        ? `; through another instance on the same store, ${redisCosts.contentionAcross.retries} over ${redisCosts.contentionAcross.workerUpdates + redisCosts.contentionAcross.answers}, ${redisCosts.contentionAcross.perThousand.toFixed(1)} per 1,000`
        : ""
    }.`,
  ];
}

export function redisCostsVerdicts(redisCosts: RedisCostsReport | undefined): string[] {
  if (!redisCosts) return [];
  const m = redisCosts.memory;
  const times = (m.hashBytes + m.countShareBytes) / m.jsonBytes;
  return [verdictRow("Redis memory per finished task ≤ 2× its tasks/get JSON", times <= 2, `${times.toFixed(2)}× (${(m.hashBytes + m.countShareBytes).toFixed(0)} B for ${m.jsonBytes.toFixed(0)} B)`)];
}
