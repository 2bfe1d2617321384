// `npm run bench [-- --quick]`: load runs against (a) bare h3, (b) h3-mcp, (c) the official SDK,
// each in its own process on 127.0.0.1, driven by autocannon in this process, targets alternated
// A B C A B C over the rounds; then the heap per task (bench/memory.ts) and the expiry sweep
// (bench/sweep.ts), each in a child with --expose-gc. Prints markdown; `--json <file>` saves the data.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { median, percentile, runLoad, type RunResult } from "./lib/load.ts";
import { buildDist, libEnv, ROOT, startTarget, type Target } from "./lib/proc.ts";
import { requests, toWebRequest, type RawRequest } from "./lib/wire.ts";
import { findRedisServer, redisRequired } from "../test/helpers/redis-gate.ts";
import { startRedis, type RedisServer } from "../test/helpers/redis-server.ts";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    rounds: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    only: { type: "string" },
    json: { type: "string" },
    "no-memory": { type: "boolean", default: false },
    lib: { type: "string", default: "dist" },
    "no-build": { type: "boolean", default: false },
  },
});
if (args.lib !== "dist" && args.lib !== "src") throw new Error("--lib is dist or src");
process.env.BENCH_LIB = args.lib;

const quick = args.quick;
const config = {
  rounds: Number(args.rounds ?? (quick ? 1 : 10)),
  durationSec: Number(args.duration ?? (quick ? 1 : 2)),
  warmupSec: Number(args.warmup ?? (quick ? 0.5 : 1)),
  connections: Number(args.connections ?? 20),
  fills: quick ? [100, 1_000, 5_000] : [1_000, 100_000, 1_000_000],
  memoryN: quick ? 5_000 : 100_000,
};

// --- Targets ---

/**
 * What serves a row. `bare` (h3) and `node` (plain node:http) are the ceilings of the stateless and
 * in-memory scenarios, `bare-redis` (bare h3 plus one Redis round trip) of the Redis ones; in a
 * `redis-` scenario `h3-mcp` is h3-mcp on the Redis store and `memory` the same app on the
 * in-memory store; in the two-instance scenarios `h3-mcp` is one instance behind the proxy and
 * `two` two instances sharing one Redis behind it.
 */
type TargetKind = "bare" | "node" | "h3-mcp" | "sdk" | "bare-redis" | "memory" | "two";
/**
 * h3-mcp runs as several processes so that the store one scenario grows never weighs on another;
 * each retained-store size has its own process, all alive together, so their rounds can alternate.
 */
type ProcessKey =
  | "bare"
  | "node"
  | "sdk"
  | "mcp"
  | "mcp-create"
  | "mcp-tasks"
  | `mcp-store-${number}`
  | "bare-redis"
  | "mcp-redis"
  | "mcp-memory"
  | "proxy-one"
  | "proxy-two";

let redis: RedisServer | undefined;
async function redisUrl(): Promise<string> {
  redis ??= await startRedis();
  return redis.url;
}

async function processSpec(key: ProcessKey): Promise<{ file: string; nodeFlags?: string[]; env?: Record<string, string> }> {
  switch (key) {
    case "bare":
      return { file: "bare-h3.ts" };
    case "node":
      return { file: "node-http.ts" };
    case "sdk":
      return { file: "sdk.ts" };
    case "bare-redis":
      return { file: "bare-redis.ts", env: { REDIS_URL: await redisUrl() } };
    case "mcp-redis":
      return { file: "h3-mcp.ts", env: { BENCH_STORE: "redis", REDIS_URL: await redisUrl(), BENCH_REDIS_PREFIX: "bench-one", BENCH_ASK: "1" } };
    case "mcp-memory":
    case "mcp-tasks":
      return { file: "h3-mcp.ts", env: { BENCH_ASK: "1" } };
    case "proxy-one":
    case "proxy-two":
      throw new Error("proxies are started by instances()");
    default:
      // Up to 1M retained tasks: give the heap room.
      if (key.startsWith("mcp-store-")) return { file: "h3-mcp.ts", nodeFlags: ["--max-old-space-size=8192"] };
      return { file: "h3-mcp.ts" };
  }
}

const running = new Map<ProcessKey, Target>();
async function target(key: ProcessKey): Promise<Target> {
  let t = running.get(key);
  if (!t) {
    t = key === "proxy-one" || key === "proxy-two" ? await instances(key === "proxy-one" ? 1 : 2) : await startOne(key);
    running.set(key, t);
  }
  return t;
}
async function startOne(key: ProcessKey): Promise<Target> {
  const spec = await processSpec(key);
  return startTarget(key, spec.file, { nodeFlags: spec.nodeFlags, env: spec.env });
}
/** `count` h3-mcp instances on one Redis key prefix behind a round-robin proxy, as one target whose CPU is all of theirs. */
async function instances(count: number): Promise<Target> {
  const env = { BENCH_STORE: "redis", REDIS_URL: await redisUrl(), BENCH_REDIS_PREFIX: `bench-${count}x` };
  const upstreams = await Promise.all(Array.from({ length: count }, (_, i) => startTarget(`mcp-redis-${count}x-${i}`, "h3-mcp.ts", { env })));
  const proxy = await startTarget(`proxy-${count}x`, "proxy.ts", { env: { UPSTREAMS: upstreams.map((u) => u.origin).join(",") } });
  return {
    ...proxy,
    pids: [proxy.pid, ...upstreams.map((u) => u.pid)],
    // The fill route of the first instance: every instance sees every task in the shared store.
    fillOrigin: upstreams[0]!.origin,
    async stop() {
      await proxy.stop();
      await Promise.all(upstreams.map((u) => u.stop()));
    },
  } as Target;
}
async function stop(key: ProcessKey): Promise<void> {
  const t = running.get(key);
  running.delete(key);
  await t?.stop();
}
/** Where the bench-only routes of a target's (first) h3-mcp process are. */
const benchOrigin = (t: Target) => (t as Target & { fillOrigin?: string }).fillOrigin ?? t.origin;

// --- Scenarios ---

interface Scenario {
  id: string;
  title: string;
  /** Which process serves each target kind in this scenario. */
  processes: Partial<Record<TargetKind, ProcessKey>>;
  /** The ceiling its ratios are taken against (default bare h3). */
  base?: TargetKind;
  /** Prepares a target's process and returns the requests to cycle through (ceilings get `fixed`). */
  prepare: (t: Target, kind: TargetKind) => Promise<RawRequest[]>;
  /**
   * For operations that consume their task (answering, cancelling): the requests of one run, each
   * sent once, made before the run (untimed) for `n` fresh tasks. Ceilings run for the duration.
   */
  perRun?: (t: Target, n: number) => Promise<RawRequest[]>;
  /** What a correct h3-mcp / SDK answer looks like (ceilings always answer their fixed result). */
  check: (result: Record<string, unknown>) => boolean;
  /** Stop these processes after the scenario (after its group, when it has one). */
  release?: ProcessKey[];
  /** Consecutive scenarios of one group are prepared together and their rounds interleaved. */
  group?: string;
}

const CEILINGS = new Set<TargetKind>(["bare", "node", "bare-redis"]);
const isText = (r: Record<string, unknown>) => JSON.stringify(r.content) === JSON.stringify([{ type: "text", text: "hello" }]);
const isAck = (r: Record<string, unknown>) => r.resultType === "complete" && r.status === undefined;
const fixed = (request: RawRequest) => async () => [request];
const ALL = { bare: "bare", "h3-mcp": "mcp", sdk: "sdk" } as const;

async function fillStore(t: Target, to: number): Promise<RawRequest[]> {
  const res = await fetch(`${benchOrigin(t)}/bench/fill`, { method: "POST", body: JSON.stringify({ to }) });
  if (res.status !== 200) throw new Error(`fill: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { size: number; created: number; ms: number; sample: string[] };
  if (body.size !== to) throw new Error(`fill: store holds ${body.size}, expected ${to}`);
  if (body.created) log(`  filled ${t.name} to ${fmtCount(to)} tasks (+${body.created} in ${(body.ms / 1000).toFixed(1)} s)`);
  return body.sample.map((id) => requests.getTask(id));
}
/** n tasks parked in input_required (task_ask) or working (task_hang), made through the target's own API. */
async function freshTasks(t: Target, kind: "parked" | "working", n: number): Promise<string[]> {
  const res = await fetch(`${benchOrigin(t)}/bench/tasks`, { method: "POST", body: JSON.stringify({ kind, n }) });
  if (res.status !== 200) throw new Error(`${kind} tasks: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { ids: string[] }).ids;
}
const answering = async (t: Target, n: number) => (await freshTasks(t, "parked", n)).map(requests.answerTask);
const cancelling = async (t: Target, n: number) => (await freshTasks(t, "working", n)).map(requests.cancelTask);
const storeKey = (n: number): ProcessKey => `mcp-store-${n}`;
const storeSizes = [1, ...config.fills];
const REDIS_FILL = quick ? 100 : 1_000;
const REDIS = { "bare-redis": "bare-redis", "h3-mcp": "mcp-redis", memory: "mcp-memory" } as const;

const scenarios: Scenario[] = [
  {
    id: "echo",
    title: "tools/call echo (synchronous)",
    processes: { ...ALL, node: "node" },
    prepare: fixed(requests.echo()),
    check: isText,
  },
  {
    id: "task-create",
    title: "tools/call creating a task",
    processes: { bare: "bare", "h3-mcp": "mcp-create" },
    prepare: fixed(requests.createTask()),
    check: (r) => r.resultType === "task" && r.status === "working",
    release: ["mcp-create"],
  },
  // One process per store size, filled first, then all sizes' rounds alternate: a drift of the
  // machine over the minutes this takes lands on every size alike.
  {
    id: "task-get",
    title: "tasks/get, completed task (1 retained)",
    processes: { bare: "bare", "h3-mcp": storeKey(1) },
    prepare: (t, kind) => (kind === "h3-mcp" ? fillStore(t, 1) : fixed(requests.echo())()),
    check: (r) => r.status === "completed" && isText(r.result as Record<string, unknown>),
    group: "task-get",
  },
  ...config.fills.map(
    (n, i): Scenario => ({
      id: `task-get-${fmtCount(n)}`,
      title: `tasks/get, ${fmtCount(n)} retained`,
      processes: { bare: "bare", "h3-mcp": storeKey(n) },
      prepare: (t, kind) => (kind === "h3-mcp" ? fillStore(t, n) : fixed(requests.echo())()),
      check: (r) => r.status === "completed",
      group: "task-get",
      release: i === config.fills.length - 1 ? storeSizes.map(storeKey) : undefined,
    }),
  ),
  {
    id: "task-update",
    title: "tasks/update answering a parked task",
    processes: { bare: "bare", "h3-mcp": "mcp-tasks" },
    prepare: fixed(requests.echo()),
    perRun: answering,
    check: isAck,
  },
  {
    id: "task-cancel",
    title: "tasks/cancel of a working task",
    processes: { bare: "bare", "h3-mcp": "mcp-tasks" },
    prepare: fixed(requests.echo()),
    perRun: cancelling,
    check: isAck,
    release: ["mcp-tasks"],
  },
  {
    id: "discover",
    title: "server/discover",
    processes: ALL,
    prepare: fixed(requests.discover()),
    check: (r) => Array.isArray(r.supportedVersions),
  },
  {
    id: "tools-list",
    title: "tools/list",
    processes: ALL,
    prepare: fixed(requests.toolsList()),
    check: (r) => Array.isArray(r.tools) && (r.tools as unknown[]).length === 3,
  },
  // The Redis store against bare h3 plus one Redis round trip, and the same app on the in-memory store.
  {
    id: "redis-task-get",
    title: `tasks/get, completed task (Redis store, ${fmtCount(REDIS_FILL)} retained)`,
    processes: REDIS,
    base: "bare-redis",
    prepare: (t, kind) => (kind === "bare-redis" ? fixed(requests.echo())() : fillStore(t, REDIS_FILL)),
    check: (r) => r.status === "completed" && isText(r.result as Record<string, unknown>),
  },
  {
    id: "redis-task-create",
    title: "tools/call creating a task (Redis store)",
    processes: REDIS,
    base: "bare-redis",
    prepare: fixed(requests.createTask()),
    check: (r) => r.resultType === "task" && r.status === "working",
  },
  {
    id: "redis-task-update",
    title: "tasks/update answering a parked task (Redis store)",
    processes: REDIS,
    base: "bare-redis",
    prepare: fixed(requests.echo()),
    perRun: answering,
    check: isAck,
  },
  {
    id: "redis-task-cancel",
    title: "tasks/cancel of a working task (Redis store)",
    processes: REDIS,
    base: "bare-redis",
    prepare: fixed(requests.echo()),
    perRun: cancelling,
    check: isAck,
    release: ["mcp-redis", "mcp-memory"],
  },
  // Two instances on one Redis behind a round-robin proxy, against one instance behind the same proxy.
  {
    id: "two-task-get",
    title: `tasks/get through the proxy (Redis store, ${fmtCount(REDIS_FILL)} retained)`,
    processes: { "h3-mcp": "proxy-one", two: "proxy-two" },
    base: "h3-mcp",
    prepare: (t) => fillStore(t, REDIS_FILL),
    check: (r) => r.status === "completed",
    group: "two",
  },
  {
    id: "two-task-create",
    title: "tools/call creating a task through the proxy (Redis store)",
    processes: { "h3-mcp": "proxy-one", two: "proxy-two" },
    base: "h3-mcp",
    prepare: fixed(requests.createTask()),
    check: (r) => r.resultType === "task" && r.status === "working",
    group: "two",
    release: ["proxy-one", "proxy-two"],
  },
];

// --- Run ---

interface Row {
  scenario: Scenario;
  kind: TargetKind;
  runs: RunResult[];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function validate(t: Target, kind: TargetKind, scenario: Scenario, request: RawRequest): Promise<void> {
  const res = await fetch(toWebRequest(request, t.origin));
  const text = await res.text();
  let result: Record<string, unknown> | undefined;
  try {
    result = (JSON.parse(text) as { result?: Record<string, unknown> }).result;
  } catch {}
  const ok = res.status === 200 && result !== undefined && (CEILINGS.has(kind) ? isText(result) : scenario.check(result));
  if (!ok) throw new Error(`${kind} answered ${scenario.title} wrongly: HTTP ${res.status} ${text.slice(0, 300)}`);
}

if (args.lib === "dist" && !args["no-build"]) {
  log("building dist/ (npm run build)");
  await buildDist();
}

const wanted = args.only ? scenarios.filter((s) => args.only!.split(",").some((o) => s.id.startsWith(o))) : scenarios;
// The Redis rows need a redis-server: without one they are left out, loudly (under CI, or with
// H3_MCP_REQUIRE_REDIS set, its absence fails the bench instead).
const needsRedis = (s: Scenario) => s.id.startsWith("redis-") || s.id.startsWith("two-");
const haveRedis = findRedisServer() !== undefined;
if (!haveRedis && wanted.some(needsRedis)) {
  if (redisRequired()) throw new Error("redis-server is not on PATH, and the Redis rows need it: install redis-server (Debian/Ubuntu: apt-get install redis-server)");
  log("\n!!! redis-server is not on PATH: the Redis rows (redis-*, two-*) are left out. To bench them, install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).\n");
}
const selected = haveRedis ? wanted : wanted.filter((s) => !needsRedis(s));
const rows: Row[] = [];
let libSeen = false;
const started = Date.now();
log(`h3-mcp bench (${args.lib}): ${config.rounds} round(s) × ${config.durationSec} s, ${config.connections} connections${quick ? " (quick)" : ""}`);
// Consecutive scenarios sharing a group run as one batch.
const batches: Scenario[][] = [];
for (const scenario of selected) {
  const last = batches.at(-1);
  if (scenario.group !== undefined && last?.[0]?.group === scenario.group) last.push(scenario);
  else batches.push([scenario]);
}
interface Prepared {
  scenario: Scenario;
  reqs: Map<TargetKind, RawRequest[]>;
  targets: Map<TargetKind, Target>;
  rows: Row[];
}
/** Each row's last rate, so a consuming run gets enough fresh tasks for about its duration. */
const lastRate = new Map<Row, number>();
const poolFor = (row: Row, seconds: number) => Math.max(quick ? 200 : 1000, Math.ceil((lastRate.get(row) ?? (quick ? 500 : 3000)) * seconds));
async function runRow(p: Prepared, row: Row, durationSec: number): Promise<RunResult> {
  const kind = row.kind;
  const t = p.targets.get(kind)!;
  const consuming = p.scenario.perRun && !CEILINGS.has(kind);
  const reqs = consuming ? await p.scenario.perRun!(t, poolFor(row, durationSec)) : p.reqs.get(kind)!;
  const run = await runLoad(t, reqs, { durationSec, connections: config.connections, once: consuming });
  if (run.non2xx || run.errors || run.timeouts) {
    throw new Error(`${kind} on ${p.scenario.title}: ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts`);
  }
  lastRate.set(row, run.rps);
  return run;
}
try {
  for (const batch of batches) {
    const prepared: Prepared[] = [];
    for (const scenario of batch) {
      log(`- ${scenario.title}`);
      const kinds = (Object.keys(scenario.processes) as TargetKind[]).filter((k) => scenario.processes[k]);
      const targets = new Map<TargetKind, Target>();
      const reqs = new Map<TargetKind, RawRequest[]>();
      for (const kind of kinds) {
        const t = await target(scenario.processes[kind]!);
        if (t.lib && !libSeen) {
          libSeen = true;
          log(`  h3-mcp resolves to ${t.lib}`);
        }
        targets.set(kind, t);
        reqs.set(kind, await scenario.prepare(t, kind));
        const first = scenario.perRun && !CEILINGS.has(kind) ? (await scenario.perRun(t, 1))[0]! : reqs.get(kind)![0]!;
        await validate(t, kind, scenario, first);
      }
      prepared.push({ scenario, reqs, targets, rows: kinds.map((kind) => ({ scenario, kind, runs: [] as RunResult[] })) });
    }
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
          log(`  round ${round + 1} ${label}${row.kind.padEnd(10)} ${Math.round(run.rps).toString().padStart(6)} req/s`);
        }
      }
    }
    for (const p of prepared) rows.push(...p.rows);
    for (const p of prepared) for (const key of p.scenario.release ?? []) await stop(key);
  }
} finally {
  for (const key of [...running.keys()]) await stop(key);
  await redis?.stop();
}

// --- Memory and sweep (children with --expose-gc) ---

interface MemoryReport {
  n: number;
  payloadBytes: number;
  finished: { bytesPerTask: number; heapPerTask: number; offHeapPerTask: number; beyondPayload: number; bytesPerTaskAfterGet?: number; status: string; createUs: number };
  working: { bytesPerTask: number; heapPerTask: number; offHeapPerTask: number; status: string; createUs: number };
}
interface SweepReport {
  cases: { kind: string; expired: number; live: number; sweepUs: number; nsPerExpired: number; idleSweepUs: number; refNsPerExpired: number }[];
}

async function child<T>(script: string, extra: string[]): Promise<T> {
  const proc = spawn(process.execPath, ["--expose-gc", "--max-old-space-size=4096", "--import", "tsx", script, "--json", ...extra], {
    cwd: ROOT,
    env: { ...process.env, ...libEnv() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  proc.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out.trim().split("\n").pop()!) as T;
}

interface RedisCostsReport {
  redis?: string;
  memory: { n: number; sampled: number; hashBytes: number; countShareBytes: number; jsonBytes: number };
  contention: { rounds: number; workerUpdates: number; answers: number; retries: number; perThousand: number };
}

let memory: MemoryReport | undefined;
let sweep: SweepReport | undefined;
let redisCosts: RedisCostsReport | undefined;
if (!args["no-memory"]) {
  log(`- heap per task, N = ${fmtCount(config.memoryN)}`);
  memory = await child<MemoryReport>("bench/memory.ts", ["--n", String(config.memoryN)]);
  log("- expiry sweep");
  sweep = await child<SweepReport>("bench/sweep.ts", quick ? ["--quick"] : []);
  if (haveRedis && (!args.only || selected.some(needsRedis))) {
    log("- Redis memory per finished task, compare-and-set retries");
    redisCosts = await child<RedisCostsReport>("bench/redis-costs.ts", quick ? ["--n", "300", "--rounds", "30"] : ["--n", "5000", "--rounds", "300"]);
  }
}

// --- Report ---

interface Stats {
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p50: number;
  p99: number;
  cpuUs?: number;
  rssMb?: number;
  clientCpu: number;
  otherCpu?: number;
}

function stats(runs: RunResult[]): Stats {
  const all = new Float64Array(runs.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.latencies.length;
  }
  all.sort();
  const cpu = runs.map((r) => r.serverCpuUsPerReq).filter((v): v is number => v !== undefined);
  const rss = runs.map((r) => r.peakRss).filter((v): v is number => v !== undefined);
  return {
    rps: median(runs.map((r) => r.rps)),
    rpsMin: Math.min(...runs.map((r) => r.rps)),
    rpsMax: Math.max(...runs.map((r) => r.rps)),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    cpuUs: cpu.length ? median(cpu) : undefined,
    rssMb: rss.length ? Math.max(...rss) / 2 ** 20 : undefined,
    clientCpu: Math.max(...runs.map((r) => r.clientCpu)),
    otherCpu: runs.some((r) => r.otherCpu !== undefined) ? Math.max(...runs.map((r) => r.otherCpu ?? 0)) : undefined,
  };
}

/** Median over rounds of the paired ratio (this round's target ÷ this round's base): slow drifts of the machine cancel out. */
function pairedRatio(id: string, kind: TargetKind, base: TargetKind = baseOf(id)): number | undefined {
  const a = rows.find((r) => r.scenario.id === id && r.kind === kind);
  const b = rows.find((r) => r.scenario.id === id && r.kind === base);
  if (!a || !b || a.runs.length !== b.runs.length || a.runs.length === 0) return undefined;
  return median(a.runs.map((run, i) => run.rps / b.runs[i]!.rps));
}

const baseOf = (id: string): TargetKind => scenarios.find((s) => s.id === id)?.base ?? "bare";
const statsOf = new Map<string, Stats>();
for (const row of rows) statsOf.set(`${row.scenario.id}/${row.kind}`, stats(row.runs));
const get = (id: string, kind: TargetKind) => statsOf.get(`${id}/${kind}`);

const NAMES: Record<TargetKind, string> = {
  bare: "(a) bare h3",
  node: "(a') plain node:http",
  "h3-mcp": "(b) h3-mcp",
  sdk: "(c) official SDK",
  "bare-redis": "(r) bare h3 + 1 Redis round trip",
  memory: "(m) h3-mcp, in-memory store",
  two: "(2) two h3-mcp instances",
};
const nameOf = (row: Row) =>
  row.scenario.id.startsWith("redis-") && row.kind === "h3-mcp"
    ? "(b) h3-mcp, Redis store"
    : row.scenario.id.startsWith("two-") && row.kind === "h3-mcp"
      ? "(1) one h3-mcp instance"
      : NAMES[row.kind];
const out: string[] = [];
const cpuModel = os.cpus()[0]?.model ?? "unknown CPU";
out.push(
  `Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}, ${os.cpus().length} × ${cpuModel}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; ${new Date().toISOString().slice(0, 10)}`,
  `${config.rounds} round(s) × ${config.durationSec} s per target and scenario (after ${config.warmupSec} s warm-up), ${config.connections} connections, targets alternated each round; req/s is the median round, p50/p99 over all rounds' responses.`,
  "",
  `req/s ÷ ceiling is the median of the per-round ratios (each round's run against the same round's run of the scenario's ceiling: (a) bare h3; (r) for the Redis rows; (1) one instance for the two-instance rows). Server CPU is the target process's user + system time (all its threads, GC included) per answered request; (a) ÷ it is the throughput ratio a CPU-bound server would reach, and is less sensitive than req/s to other load on the machine. h3-mcp is ${args.lib === "dist" ? "the built package (dist/)" : "the TypeScript sources through tsx"}.`,
  "",
  "| scenario | target | req/s (min–max) | p50 ms | p99 ms | req/s ÷ ceiling | p50 ÷ ceiling | server CPU µs/req | CPU ceiling ÷ CPU | peak RSS MB |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
);
for (const row of rows) {
  const s = get(row.scenario.id, row.kind)!;
  const baseKind = baseOf(row.scenario.id);
  const base = get(row.scenario.id, baseKind);
  const vsBase = base !== undefined && row.kind !== baseKind;
  const firstOfScenario = rows.find((r) => r.scenario === row.scenario) === row;
  const spread = config.rounds > 1 ? ` (${fmtInt(s.rpsMin)}–${fmtInt(s.rpsMax)})` : "";
  const rpsRatio = vsBase ? pairedRatio(row.scenario.id, row.kind) : undefined;
  const cpuRatio = vsBase && base.cpuUs && s.cpuUs ? base.cpuUs / s.cpuUs : undefined;
  out.push(
    `| ${firstOfScenario ? row.scenario.title : ""} | ${nameOf(row)} | ${fmtInt(s.rps)}${spread} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${
      rpsRatio !== undefined ? `${rpsRatio.toFixed(2)}×` : ""
    } | ${vsBase ? `${(s.p50 / base.p50).toFixed(2)}×` : ""} | ${s.cpuUs?.toFixed(1) ?? "–"} | ${cpuRatio !== undefined ? `${cpuRatio.toFixed(2)}×` : ""} | ${s.rssMb?.toFixed(0) ?? "–"} |`,
  );
}
const others = [...statsOf.values()].map((s) => s.otherCpu).filter((v): v is number => v !== undefined);
if (others.length) {
  const worst = Math.max(...others);
  out.push(
    "",
    `CPU used by other processes during the runs: up to ${worst.toFixed(2)} cores${worst > 0.25 ? " (the machine was not quiet: req/s figures are disturbed, CPU per request much less so)" : ""}.`,
  );
}
const clientBound = [...statsOf.entries()].filter(([, s]) => s.clientCpu > 0.9).map(([k]) => k);
if (clientBound.length) out.push("", `Load generator above 90% of a core during: ${clientBound.join(", ")} (figures there are a floor).`);

if (memory) {
  const kb = (b: number) => `${(b / 1024).toFixed(2)} KB`;
  out.push(
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
  );
}
if (sweep) {
  out.push(
    "",
    "Expiry sweep (one sweep after E tasks expired, in front of L live ones; the reference is a plain Map of as many similar objects deleting E from its front):",
    "",
    "| expired E | E were | live L | sweep | per expired | plain Map, per delete | sweep with nothing expired |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const c of sweep.cases) {
    out.push(
      `| ${fmtCount(c.expired)} | ${c.kind} | ${fmtCount(c.live)} | ${(c.sweepUs / 1000).toFixed(2)} ms | ${c.nsPerExpired.toFixed(0)} ns | ${c.refNsPerExpired.toFixed(0)} ns | ${c.idleSweepUs.toFixed(1)} µs |`,
    );
  }
}

if (redisCosts) {
  const m = redisCosts.memory;
  const c = redisCosts.contention;
  out.push(
    "",
    `Redis ${redisCosts.redis ?? "?"} (MEMORY USAGE, ${m.sampled} of ${fmtCount(m.n)} finished tasks sampled): a finished task holds ${m.hashBytes.toFixed(0)} B in its hash plus ${m.countShareBytes.toFixed(0)} B of the sorted set the cap counts, ${(m.hashBytes + m.countShareBytes).toFixed(0)} B for a ${m.jsonBytes.toFixed(0)} B tasks/get result (${((m.hashBytes + m.countShareBytes) / m.jsonBytes).toFixed(2)}×).`,
    "",
    `Contention on one task (the worker reporting status about once a millisecond while tasks/update answers ${c.rounds} questions, one at a time): ${c.retries} compare-and-set retries over ${c.workerUpdates + c.answers} changes, ${c.perThousand.toFixed(1)} per 1,000.`,
  );
}

// Targets from the issue. Nothing is asserted: this reports.
const verdicts: string[] = [];
const verdict = (name: string, met: boolean | undefined, detail: string) =>
  verdicts.push(`| ${name} | ${met === undefined ? "not measured" : met ? "met" : "**not met**"} | ${detail} |`);
const ratio = pairedRatio;
const cpuRatio = (id: string, kind: TargetKind, base: TargetKind) => {
  const a = get(id, kind)?.cpuUs;
  const b = get(id, base)?.cpuUs;
  return a && b ? b / a : undefined;
};
const withCpu = (r: number, id: string, kind: TargetKind, base: TargetKind) => {
  const c = cpuRatio(id, kind, base);
  return `${r.toFixed(2)}×${c === undefined ? "" : ` (by CPU per request ${c.toFixed(2)}×)`}`;
};
const getIds = rows.filter((r) => r.kind === "h3-mcp" && r.scenario.id.startsWith("task-get")).map((r) => r.scenario.id);
const getRatios = [...new Set(getIds)].map((id) => [id, ratio(id, "h3-mcp", "bare")!] as const);
const worstGet = getRatios.length ? Math.min(...getRatios.map(([, r]) => r)) : undefined;
verdict(
  "tasks/get ≥ 0.8× bare h3 req/s",
  worstGet === undefined ? undefined : worstGet >= 0.8,
  getRatios.map(([id, r]) => `${id.replace("task-get", "get")}: ${withCpu(r, id, "h3-mcp", "bare")}`).join(", "),
);
const echoRatio = ratio("echo", "h3-mcp", "bare");
verdict("synchronous tools/call ≥ 0.85× bare h3", echoRatio === undefined ? undefined : echoRatio >= 0.85, echoRatio ? withCpu(echoRatio, "echo", "h3-mcp", "bare") : "");
const createRatio = ratio("task-create", "h3-mcp", "bare");
verdict(
  "task creation (in-memory) ≥ 0.6× bare h3",
  createRatio === undefined ? undefined : createRatio >= 0.6,
  createRatio ? withCpu(createRatio, "task-create", "h3-mcp", "bare") : "",
);
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
    r === undefined ? "" : `${withCpu(r, id, "h3-mcp", "bare-redis")}; ${mem?.toFixed(2) ?? "–"}× the in-memory store's rate (CPU ${cpuRatio(id, "h3-mcp", "memory")?.toFixed(2) ?? "–"}×)`,
  );
}
if (memory) {
  const polled = memory.finished.bytesPerTaskAfterGet === undefined ? undefined : memory.finished.bytesPerTaskAfterGet - memory.payloadBytes;
  const worstFinished = Math.max(memory.finished.beyondPayload, polled ?? 0);
  verdict(
    "≤ 1.5 KB heap per finished task beyond its payload",
    worstFinished <= 1536,
    `${(memory.finished.beyondPayload / 1024).toFixed(2)} KB heap + off-heap at N = ${fmtCount(memory.n)} (heap alone ${(memory.finished.heapPerTask / 1024).toFixed(2)} KB)${polled === undefined ? "" : `; ${(polled / 1024).toFixed(2)} KB once read by tasks/get`}`,
  );
  verdict(
    "≤ 8 KB heap per working task",
    memory.working.bytesPerTask <= 8192,
    `${(memory.working.bytesPerTask / 1024).toFixed(2)} KB heap + off-heap at N = ${fmtCount(memory.n)}`,
  );
} else {
  verdict("≤ 1.5 KB heap per finished task beyond its payload", undefined, "");
  verdict("≤ 8 KB heap per working task", undefined, "");
}
const fillIds = config.fills.map((n) => `task-get-${fmtCount(n)}`).filter((id) => get(id, "h3-mcp"));
if (fillIds.length >= 2) {
  // The rounds of all store sizes alternate, so every size's responses come from the same minutes
  // of the machine: the verdict compares p50 over all rounds' responses. The median of per-round
  // p50 changes is printed beside it; with rounds this short it swings more than the pooled figure.
  const runsOf = (id: string) => rows.find((r) => r.scenario.id === id && r.kind === "h3-mcp")!.runs;
  const p50Of = (run: RunResult) => percentile(Float64Array.from(run.latencies).sort(), 50);
  const baseRuns = runsOf(fillIds[0]!);
  const baseP50 = get(fillIds[0]!, "h3-mcp")!.p50;
  const devs = fillIds.map((id) => {
    const paired = median(runsOf(id).map((run, i) => p50Of(run) / p50Of(baseRuns[i]!) - 1));
    return [id, get(id, "h3-mcp")!.p50 / baseP50 - 1, paired] as const;
  });
  const worst = Math.max(...devs.map(([, d]) => Math.abs(d)));
  const pct = (d: number) => `${d >= 0 ? "+" : ""}${(d * 100).toFixed(1)}%`;
  verdict(
    `tasks/get p50 within ±10% from ${fmtCount(config.fills[0]!)} to ${fmtCount(config.fills.at(-1)!)} retained`,
    worst <= 0.1,
    devs
      .map(([id, d, paired]) => `${id.replace("task-get-", "")}: ${get(id, "h3-mcp")!.p50.toFixed(2)} ms (${pct(d)}; per-round median ${pct(paired)})`)
      .join(", "),
  );
} else verdict("tasks/get p50 within ±10% across store sizes", undefined, "");
if (sweep) {
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
  verdict(
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
  );
}
if (redisCosts) {
  const m = redisCosts.memory;
  const times = (m.hashBytes + m.countShareBytes) / m.jsonBytes;
  verdict("Redis memory per finished task ≤ 2× its tasks/get JSON", times <= 2, `${times.toFixed(2)}× (${(m.hashBytes + m.countShareBytes).toFixed(0)} B for ${m.jsonBytes.toFixed(0)} B)`);
}
const nodeRatio = ratio("echo", "node", "bare");
if (nodeRatio !== undefined) {
  out.push("", `Plain node:http answers the echo request at ${nodeRatio.toFixed(2)}× bare h3's rate (CPU ${cpuRatio("echo", "node", "bare")?.toFixed(2)}×): h3-mcp's synchronous tools/call is ${ratio("echo", "h3-mcp", "node")?.toFixed(2)}× of that.`);
}
const twoIds = [...new Set(rows.filter((r) => r.kind === "two").map((r) => r.scenario.id))];
if (twoIds.length) {
  out.push(
    "",
    "Two instances sharing one Redis behind a round-robin proxy, against one instance behind the same proxy. On two cores the load generator, the proxy, Redis and the instances share the machine, so read this as the cost of going through a shared store and a balancer, not as a speedup:",
    "",
    "| scenario | instances | req/s | p50 ms | p99 ms | req/s ÷ one | server CPU µs/req (instances + proxy) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const id of twoIds) {
    for (const kind of ["h3-mcp", "two"] as const) {
      const st = get(id, kind);
      if (!st) continue;
      const r = kind === "two" ? ratio(id, "two", "h3-mcp") : undefined;
      out.push(
        `| ${kind === "h3-mcp" ? scenarios.find((x) => x.id === id)!.title : ""} | ${kind === "two" ? 2 : 1} | ${fmtInt(st.rps)} | ${st.p50.toFixed(2)} | ${st.p99.toFixed(2)} | ${r === undefined ? "" : `${r.toFixed(2)}×`} | ${st.cpuUs?.toFixed(1) ?? "–"} |`,
      );
    }
  }
}
out.push("", "| target | status | measured |", "| --- | --- | --- |", ...verdicts);
out.push("", `Total bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`);

console.log(out.join("\n"));
if (args.json) {
  const data = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { os: `${os.type()} ${os.release()} ${os.arch()}`, cpus: os.cpus().length, cpuModel, memGiB: os.totalmem() / 2 ** 30 },
    config,
    results: Object.fromEntries(statsOf),
    rounds: rows.map((r) => ({ scenario: r.scenario.id, target: r.kind, rps: r.runs.map((x) => x.rps) })),
    memory,
    sweep,
    redisCosts,
  };
  writeFileSync(args.json, `${JSON.stringify(data, null, 2)}\n`);
}

function fmtCount(n: number): string {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}
function fmtInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
