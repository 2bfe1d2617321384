// How soon a run found by name goes on elsewhere, with real demo processes (examples/demo/server.ts) on a
// throwaway redis-server (`--store postgres`: a throwaway Postgres cluster, DATABASE_URL): each round starts three fresh instances beside two that stay, gives one a
// durable_steps task and SIGKILLs it (kill → the next attempt's start, printed by another instance), gives
// another one and sends it SIGTERM with MCP_DRAIN_MS=0 (SIGTERM → the next attempt's start), and sends the
// third, idle, SIGTERM first (the drain's own time, as it prints it). Times are taken in this process from the
// instances' output, read every 2 ms.
//   node --import tsx bench/durability.ts [--rounds 7] [--lease-ms 1000] [--store redis|postgres] [--json]
import { parseArgs } from "node:util";
import { createTestClient } from "h3-mcp/tasks/testing";
import { overHttp, startDemo, type DemoProcess } from "../test/helpers/demo-process.ts";
import { startPostgres } from "../test/helpers/postgres-server.ts";
import { startRedis } from "../test/helpers/redis-server.ts";
import { durabilityLines, type DurabilityReport } from "./lib/durability-report.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "7" }, "lease-ms": { type: "string", default: "1000" }, json: { type: "boolean", default: false }, store: { type: "string", default: "redis" } } });
const rounds = Number(values.rounds);
const leaseMs = Number(values["lease-ms"]);
const say = (line: string) => (values.json ? console.error(line) : console.log(line));

const backend =
  values.store === "postgres"
    ? await startPostgres().then((pg) => ({ env: { DATABASE_URL: pg.url }, stop: () => pg.destroy() }))
    : await startRedis().then((redis) => ({ env: { REDIS_URL: redis.url }, stop: () => redis.stop() }));
const live: DemoProcess[] = [];
const start = async (env: Record<string, string> = {}) => {
  const demo = await startDemo({
    ...backend.env,
    MCP_TASKS_SECRET: "bench-secret",
    MCP_REQUEST_STATE_SECRET: "bench-state",
    MCP_TASKS_LEASE_MS: String(leaseMs),
    ...env,
  });
  live.push(demo);
  return demo;
};
const clientOf = (demo: DemoProcess) => createTestClient(overHttp(demo.url), { timeoutMs: 30_000, pollMs: 20 });

/** Resolves with performance.now() once an instance other than `except` printed `line`. */
async function printed(line: string, except: DemoProcess, timeoutMs = 30_000): Promise<number> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    if (live.some((demo) => demo !== except && demo.output().includes(line))) return performance.now();
    if (performance.now() > end) throw new Error(`no instance printed ${JSON.stringify(line)} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Starts a long durable_steps task on `demo` and waits until its attempt 1 saved a step. */
async function running(demo: DemoProcess): Promise<string> {
  const client = clientOf(demo);
  const handle = await client.callTool("durable_steps", { steps: 10_000, stepMs: 20 });
  if (handle.resultType !== "task") throw new Error(`durable_steps answered ${JSON.stringify(handle)}`);
  for (;;) {
    if (/^Step \d+/.test((await client.getTask(handle.taskId)).statusMessage ?? "")) return handle.taskId;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const report: DurabilityReport = { leaseMs, killToNextAttemptMs: [], drainToNextAttemptMs: [], idleDrainMs: [] };
try {
  const [stays] = await Promise.all([start(), start()]);
  for (let round = 1; round <= rounds; round++) {
    const [killed, drained, idle] = await Promise.all([start(), start({ MCP_DRAIN_MS: "0" }), start()]);
    // First, while nothing was handed to it: an instance serving the runs may claim another's task.
    process.kill(idle.pid, "SIGTERM");
    await idle.exited;
    const ms = /drained: 0 finished, 0 handed off, 0 failed, 0 fenced in ([\d.]+) ms/.exec(idle.output())?.[1];
    if (ms === undefined) throw new Error(`the idle instance did not report its drain:\n${idle.output()}`);
    report.idleDrainMs.push(Number(ms));

    const [lostId, handedId] = await Promise.all([running(killed), running(drained)]);

    // A crash: the next attempt waits for the lease to lapse, then for a look at the waiting list.
    let t0 = performance.now();
    process.kill(killed.pid, "SIGKILL");
    report.killToNextAttemptMs.push((await printed(`durable_steps ${lostId}: attempt 2 `, killed)) - t0);

    // A drain with a zero deadline: handed off at once, and claimed at once on the message.
    t0 = performance.now();
    process.kill(drained.pid, "SIGTERM");
    report.drainToNextAttemptMs.push((await printed(`durable_steps ${handedId}: attempt 2 `, drained)) - t0);


    await Promise.all([lostId, handedId].map((id) => clientOf(stays!).cancelTask(id)));
    await Promise.all([killed.exited, drained.exited]);
    say(`round ${round}: kill → attempt 2 ${report.killToNextAttemptMs.at(-1)!.toFixed(0)} ms, SIGTERM → attempt 2 ${report.drainToNextAttemptMs.at(-1)!.toFixed(0)} ms, idle drain ${ms} ms`);
  }
} finally {
  await Promise.all(live.map((demo) => demo.stop("SIGKILL")));
  await backend.stop();
}

for (const line of durabilityLines(report)) say(line);
if (values.json) console.log(JSON.stringify(report));
