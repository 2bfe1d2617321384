// The Postgres store's change feed between two instances in one process, each its own store (its own pool and
// its own LISTEN connection) on one schema of a throwaway cluster: how long a change made through instance A
// takes to reach a listen stream open on instance B (a working task cancelled on A, the `cancelled`
// notification read on B's stream), timed from the request's start; beside it, when A's own answer came
// (Postgres sends the notification at commit, as it answers A: B may hear it first). Paired, change by change
// in a random order, with its ceiling: a bare `pg_notify` on a pool heard on a LISTEN connection of its own.
//   node --import tsx bench/postgres-feed.ts [--n 300] [--warmup 30]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { postgresTaskStore } from "h3-mcp/tasks/postgres";
import { createTestClient } from "h3-mcp/tasks/testing";
import pg from "pg";
import { startPostgres } from "../test/helpers/postgres-server.ts";
import { createBenchApp } from "./lib/mcp-app.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "300" }, warmup: { type: "string", default: "30" } } });
const n = Number(values.n);
const warmup = Number(values.warmup);
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
const quantile = (xs: number[], q: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

const server = await startPostgres();
const stores = [0, 1].map(() => postgresTaskStore({ connectionString: server.url, secret: "bench-secret", schema: "bench_feed" }));
const [onA, onB] = stores.map((store) => createTestClient(createBenchApp({ store }).app, { timeoutMs: 10_000 }));
const pool = new pg.Pool({ connectionString: server.url });
pool.on("error", () => {});
const listening = new pg.Client({ connectionString: server.url });
await listening.connect();
await listening.query("LISTEN bench_raw");
let notified: ((payload: string) => void) | undefined;
listening.on("notification", (note) => notified?.(note.payload ?? ""));

/** A change through A: when A's client had its answer and when B's listen stream heard it, ms from its start. */
const push = async () => {
  const created = await onA!.callTool("task_hang", {});
  if (created.resultType !== "task") throw new Error(`task_hang answered ${JSON.stringify(created)}`);
  const listener = await onB!.listen([created.taskId]);
  const start = performance.now();
  let answered = 0;
  const cancelled = onA!.cancelTask(created.taskId).then(() => (answered = performance.now() - start));
  await listener.until("cancelled");
  const heard = performance.now() - start;
  await cancelled;
  await listener.close();
  return { heard, answered };
};
/** A bare notification of a like size: when its statement was answered and when it arrived, ms from its start. */
const bare = async () => {
  const payload = `${Math.random()}`.padEnd(400, "x");
  const start = performance.now();
  let heard = 0;
  const arrived = new Promise<void>((resolve) => (notified = (p) => p === payload && ((heard = performance.now() - start), resolve())));
  await pool.query("SELECT pg_notify('bench_raw', $1)", [payload]);
  const answered = performance.now() - start;
  await arrived;
  return { heard, answered };
};

try {
  console.log(`load average before: ${load()}`);
  for (let i = 0; i < warmup; i++) {
    await push();
    await bare();
  }
  const lanes = { push: [] as { heard: number; answered: number }[], bare: [] as { heard: number; answered: number }[] };
  for (let i = 0; i < n; i++) {
    if (Math.random() < 0.5) {
      lanes.push.push(await push());
      lanes.bare.push(await bare());
    } else {
      lanes.bare.push(await bare());
      lanes.push.push(await push());
    }
  }
  const figures = (xs: number[]) => `median ${quantile(xs, 0.5).toFixed(2)} ms, p99 ${quantile(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;
  const report = (label: string, xs: { heard: number; answered: number }[]) => {
    console.log(`${label}, heard: ${figures(xs.map((x) => x.heard))}`);
    console.log(`  its own answer: ${figures(xs.map((x) => x.answered))}; heard minus answer: ${figures(xs.map((x) => x.heard - x.answered))}`);
  };
  report(`tasks/cancel on A → B's listen stream, from the request's start, over ${n} changes`, lanes.push);
  report("bare pg_notify on a pool → LISTEN on its own connection, from the statement's start (the ceiling)", lanes.bare);
  console.log(`load average after: ${load()}`);
} finally {
  await Promise.all(stores.map((store) => store.close()));
  await listening.end();
  await pool.end();
  await server.destroy();
  process.exit(0);
}
