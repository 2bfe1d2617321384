// One load run: autocannon (in-process API) against a target for a fixed time, with every 2xx
// response's latency kept at full resolution (autocannon's own histogram rounds to whole ms).
import autocannon, { type Request as AutocannonRequest } from "autocannon";
import { cpuTimeOf, machineBusyUs, rssOf, type Target } from "./proc.ts";
import type { RawRequest } from "./wire.ts";

export interface LoadOptions {
  durationSec: number;
  connections: number;
  /**
   * Send each request exactly once, spread over all connections, and end when all were answered
   * (for operations that consume what they act on: answering a parked task, cancelling one).
   * `durationSec` is then ignored.
   */
  once?: boolean;
  /** The status every answer should have, when it is not a 2xx (a refusal being measured). */
  okStatus?: number;
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
  const pids = target.pids ?? [target.pid];
  const rssAll = () => sumOf(pids.map(rssOf));
  let peakRss = rssAll();
  const rssTimer = setInterval(() => {
    const rss = rssAll();
    if (rss !== undefined && (peakRss === undefined || rss > peakRss)) peakRss = rss;
  }, 250);
  const cpu0 = sumOf(pids.map(cpuTimeOf));
  const machine0 = machineBusyUs();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  let lastResponseAt = t0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.origin,
        connections: opts.connections,
        ...(opts.once ? { amount: requests.length } : { duration: opts.durationSec }),
        pipelining: 1,
        timeout: 10,
        requests: opts.once ? [onceEach(requests)] : requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body })),
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      lastResponseAt = performance.now();
      if (opts.okStatus ? statusCode === opts.okStatus : statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx++;
    });
  });
  const wallSec = (performance.now() - t0) / 1000;
  clearInterval(rssTimer);
  const cpu1 = sumOf(pids.map(cpuTimeOf));
  const machine1 = machineBusyUs();
  const client = process.cpuUsage(client0);
  const ok = latencies.length;
  const end = rssAll();
  if (end !== undefined && (peakRss === undefined || end > peakRss)) peakRss = end;
  return {
    // autocannon's own duration is the measured window; wall time includes connection setup. With
    // a fixed amount, autocannon ends on its next one-second tick: the window ends at the last answer.
    rps: ok / (opts.once ? (lastResponseAt - t0) / 1000 : result.duration || wallSec),
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

/** The sum, or undefined when any part is unknown. */
function sumOf(values: (number | undefined)[]): number | undefined {
  let total = 0;
  for (const v of values) {
    if (v === undefined) return undefined;
    total += v;
  }
  return total;
}

/** One autocannon request template that hands out the next of `requests` to whichever connection asks. */
function onceEach(requests: RawRequest[]): AutocannonRequest {
  let next = 0;
  const first = requests[0]!;
  return {
    method: first.method,
    path: first.path,
    headers: first.headers,
    setupRequest: (req) => {
      const r = requests[next++ % requests.length]!;
      return { ...req, method: r.method, path: r.path, headers: r.headers, body: r.body };
    },
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
