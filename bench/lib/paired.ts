// Paired rounds in one process, shared by the in-process benches (bench/ab.ts, bench/otel-floor.ts): each
// round serves every lane in a fresh random order, again and again, and keeps each request's time; a round's
// figure is the mean of its fastest 90% (a preempted or collected request on a shared machine is dropped,
// the rest compared). Ratios are taken round by round, so what the machine's load does to a round lands on
// every lane of it alike.

/** One thing served, once per call (a request through `app.fetch`, its answer read). */
export interface Lane {
  name: string;
  serve: () => Promise<void>;
}

/** Mean of the fastest 90%, in µs. */
export function trimmed(ns: number[]): number {
  const sorted = [...ns].sort((x, y) => x - y);
  const kept = sorted.slice(0, Math.ceil(sorted.length * 0.9));
  return kept.reduce((s, x) => s + x, 0) / kept.length / 1000;
}

export const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;

/** `min–max` of a lane's per-round figures. */
export const spread = (xs: number[], digits = 3) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/**
 * Warms every lane up (`warmup` requests each), then runs `rounds` rounds of `n` requests per lane and
 * returns each lane's per-round trimmed mean in µs, logging each round as it ends. With `clock: "cpu"`
 * each request is timed by this process's CPU time (user + system, `process.cpuUsage`, every thread: GC
 * and compiler threads count) rather than the wall clock: on a loaded machine the time other processes
 * take is then left out.
 */
export async function pairedRounds(lanes: Lane[], rounds: number, n: number, warmup = 2000, clock: "wall" | "cpu" = "wall"): Promise<Record<string, number[]>> {
  for (const lane of lanes) for (let i = 0; i < warmup; i++) await lane.serve();
  const order = lanes.map((_, j) => j);
  let seed = 1;
  /** A seeded shuffle (xorshift), so runs are repeatable. */
  const shuffled = (xs: number[]): number[] => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const k = (seed >>> 0) % (i + 1);
      [out[i], out[k]] = [out[k]!, out[i]!];
    }
    return out;
  };
  const perRound: Record<string, number[]> = Object.fromEntries(lanes.map((l) => [l.name, []]));
  for (let round = 1; round <= rounds; round++) {
    const ns: number[][] = lanes.map(() => []);
    for (let i = 0; i < n; i++) {
      // A fresh random order each time: what one request leaves behind (garbage, settling promises) lands on
      // whichever comes next, so no lane may always follow the same other one.
      for (const j of shuffled(order)) {
        if (clock === "cpu") {
          const t = process.cpuUsage();
          await lanes[j]!.serve();
          const spent = process.cpuUsage(t);
          ns[j]!.push((spent.user + spent.system) * 1000);
        } else {
          const t = process.hrtime.bigint();
          await lanes[j]!.serve();
          ns[j]!.push(Number(process.hrtime.bigint() - t));
        }
      }
    }
    lanes.forEach((l, j) => perRound[l.name]!.push(trimmed(ns[j]!)));
    console.log(`round ${round}: ${lanes.map((l) => `${l.name} ${perRound[l.name]!.at(-1)!.toFixed(1)}`).join(", ")} µs`);
  }
  return perRound;
}
