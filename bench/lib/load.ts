// One load run: autocannon (in-process API) against a target for a fixed time, with every 2xx
// response's latency kept at full resolution (autocannon's own histogram rounds to whole ms).
import autocannon from "autocannon";
import { cpuTimeOf, machineBusyUs, rssOf, type Target } from "./proc.ts";
import type { RawRequest } from "./wire.ts";

export interface LoadOptions {
  durationSec: number;
  connections: number;
}

export interface RunResult {
  /** 2xx responses per second of wall time. */
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Latencies of 2xx responses, ms. */
  latencies: Float64Array;
  /** Peak RSS of the target during the run, bytes. */
  peakRss?: number;
  /** Target CPU time (user + system) per 2xx response, µs. */
  serverCpuUsPerReq?: number;
  /** Load generator CPU as a share of one core during the run. */
  clientCpu: number;
  /** CPU used by everything else on the machine during the run, in cores (Linux only). */
  otherCpu?: number;
}

class Samples {
  private buf = new Float64Array(1 << 16);
  length = 0;
  push(v: number) {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }
  values(): Float64Array {
    return this.buf.slice(0, this.length);
  }
}

export async function runLoad(target: Target, requests: RawRequest[], opts: LoadOptions): Promise<RunResult> {
  const latencies = new Samples();
  let non2xx = 0;
  let peakRss = rssOf(target.pid);
  const rssTimer = setInterval(() => {
    const rss = rssOf(target.pid);
    if (rss !== undefined && (peakRss === undefined || rss > peakRss)) peakRss = rss;
  }, 250);
  const cpu0 = cpuTimeOf(target.pid);
  const machine0 = machineBusyUs();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.origin,
        connections: opts.connections,
        duration: opts.durationSec,
        pipelining: 1,
        timeout: 10,
        requests: requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body })),
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx++;
    });
  });
  const wallSec = (performance.now() - t0) / 1000;
  clearInterval(rssTimer);
  const cpu1 = cpuTimeOf(target.pid);
  const machine1 = machineBusyUs();
  const client = process.cpuUsage(client0);
  const ok = latencies.length;
  const end = rssOf(target.pid);
  if (end !== undefined && (peakRss === undefined || end > peakRss)) peakRss = end;
  return {
    // autocannon's own duration is the measured window; wall time includes connection setup.
    rps: ok / (result.duration || wallSec),
    ok,
    non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencies: latencies.values(),
    peakRss,
    serverCpuUsPerReq: cpu0 !== undefined && cpu1 !== undefined && ok > 0 ? (cpu1 - cpu0) / ok : undefined,
    clientCpu: (client.user + client.system) / 1e6 / wallSec,
    otherCpu:
      machine0 !== undefined && machine1 !== undefined && cpu0 !== undefined && cpu1 !== undefined
        ? Math.max(0, (machine1 - machine0 - (cpu1 - cpu0) - (client.user + client.system)) / 1e6 / wallSec)
        : undefined,
  };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
