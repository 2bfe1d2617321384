// The Postgres store against the in-memory store and against its ceiling, paired request by request in one
// process through app.fetch (lib/paired.ts), on a throwaway cluster (test/helpers/postgres-server.ts):
//   get        `tasks/get` of a finished task, against bare h3 plus one Postgres round trip (a route that
//              reads the same row by primary key on a pool of its own): the ceiling, as bare-redis is Redis's
//   create     a closure task that completes at once (its creation and its final write), against memory
//   update     tasks/update answering a parked task (task_ask), against memory
//   cancel     tasks/cancel of a working task (task_hang), against memory
// and a floor lane for each of the last three: the in-memory store's request plus the two Postgres round
// trips the operation cannot do without on a shared store (creation: the insert and the final write; an
// answer or a cancel: the read and the compare-and-set), as `SELECT 1` on a pool of their own.
//   node --import tsx bench/postgres-store.ts [--rounds 7] [--n 200]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { H3 } from "h3";
import { memoryTaskStore, type TaskStore } from "h3-mcp/tasks";
import { postgresTaskStore } from "h3-mcp/tasks/postgres";
import pg from "pg";
import { startPostgres } from "../test/helpers/postgres-server.ts";
import { fillTasks, waitForStatus } from "./lib/fill.ts";
import { createBenchApp } from "./lib/mcp-app.ts";
import { median, pairedRounds, spread, type Lane } from "./lib/paired.ts";
import { requests, toWebRequest, type RawRequest } from "./lib/wire.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "7" }, n: { type: "string", default: "200" } } });
const rounds = Number(values.rounds);
const n = Number(values.n);
const warmup = n;
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

const server = await startPostgres();
const store = postgresTaskStore({ connectionString: server.url, secret: "bench-secret", schema: "bench" });
const pool = new pg.Pool({ connectionString: server.url });
pool.on("error", () => {});
const appOn = (s: TaskStore) => createBenchApp({ store: s }, { withAsk: true }).app;
const apps = { memory: appOn(memoryTaskStore()), postgres: appOn(store), floor: appOn(memoryTaskStore()) };
const twoTrips = async () => {
  await pool.query("SELECT 1");
  await pool.query("SELECT 1");
};
// The ceiling: bare h3 and one Postgres round trip, reading what tasks/get reads.
const bare = new H3().post("/mcp", async (event) => {
  const { params } = (await event.req.json()) as { params: { taskId: string } };
  const { rows } = await pool.query("SELECT json FROM bench.mcp_tasks WHERE id = $1", [params.taskId]);
  return new Response(`{"jsonrpc":"2.0","id":1,"result":${rows[0].json}}`, { headers: { "content-type": "application/json" } });
});

const send = async (app: H3, raw: RawRequest, expect: string) => {
  if (app === apps.floor) await twoTrips();
  const res = await app.fetch(toWebRequest(raw));
  const text = await res.text();
  if (res.status !== 200 || !text.includes(expect)) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
};
const ids = async (app: H3, request: RawRequest, count: number, status: string) => {
  const made: string[] = [];
  await fillTasks(app, count, (id) => made.push(id), request, 16);
  await waitForStatus(app, made, status, 60_000);
  return made;
};
/** One request per task of `made`, each task used once. */
const each = (app: H3, made: string[], request: (id: string) => RawRequest, expect: string) => {
  let next = 0;
  return () => send(app, request(made[next++]!), expect);
};

try {
  const before = load();
  const total = rounds * n + warmup;
  const finished = { memory: await ids(apps.memory, requests.createTask(), 1000, "completed"), postgres: await ids(apps.postgres, requests.createTask(), 1000, "completed") };
  const gets = (app: H3, made: string[]) => {
    let next = 0;
    return () => send(app, requests.getTask(made[next++ % made.length]!), '"completed"');
  };
  const lanes: Lane[] = [
    { name: "get_ceiling", serve: gets(bare, finished.postgres) },
    { name: "get_postgres", serve: gets(apps.postgres, finished.postgres) },
    { name: "create_memory", serve: () => send(apps.memory, requests.createTask(), '"resultType":"task"') },
    { name: "create_postgres", serve: () => send(apps.postgres, requests.createTask(), '"resultType":"task"') },
    { name: "create_floor", serve: () => send(apps.floor, requests.createTask(), '"resultType":"task"') },
  ];
  for (const [name, app] of Object.entries(apps)) {
    lanes.push({ name: `update_${name}`, serve: each(app, await ids(app, requests.askTask(), total, "input_required"), requests.answerTask, '"result"') });
    lanes.push({ name: `cancel_${name}`, serve: each(app, await ids(app, requests.hangTask(), total, "working"), requests.cancelTask, '"result"') });
  }
  console.log(`load average before filling: ${before}; before the rounds: ${load()}`);
  const perRound = await pairedRounds(lanes, rounds, n, warmup);
  const ratio = (base: string, lane: string) => perRound[base]!.map((b, i) => b / perRound[lane]![i]!);
  const us = (lane: string) => median(perRound[lane]!).toFixed(1);
  const line = (label: string, base: string, lane: string) => console.log(`${label}: median ${median(ratio(base, lane)).toFixed(3)}× (rounds ${spread(ratio(base, lane))}); µs ${us(lane)} against ${us(base)}`);
  line("tasks/get, Postgres rate ÷ bare h3 + one Postgres round trip (goal ≥ 0.8)", "get_ceiling", "get_postgres");
  line("creation, Postgres rate ÷ memory rate (goal ≥ 0.6)", "create_memory", "create_postgres");
  line("tasks/update, Postgres rate ÷ memory rate (goal ≥ 0.6)", "update_memory", "update_postgres");
  line("tasks/cancel, Postgres rate ÷ memory rate (goal ≥ 0.6)", "cancel_memory", "cancel_postgres");
  for (const op of ["create", "update", "cancel"]) line(`${op}, floor (memory + two round trips) rate ÷ memory rate`, `${op}_memory`, `${op}_floor`);
  for (const op of ["create", "update", "cancel"]) line(`${op}, Postgres rate ÷ its floor`, `${op}_floor`, `${op}_postgres`);
  console.log(`${rounds} rounds × ${n} requests per lane; load average after: ${load()}`);
} finally {
  await store.close();
  await pool.end();
  await server.destroy();
  process.exit(0);
}
