// The Durable Object task store against the same Worker answering from memory, under workerd locally
// (`wrangler dev`, the runtimes `npm run test:runtimes` installs): task creation (tools/call of a task tool)
// and tasks/get, in paired rounds (bench/lib/paired.ts: each round serves every lane in a fresh random
// order; a round's figure is the mean of its fastest 90%), over HTTP from this process, one request at a
// time, beside a bare h3 route of the same Worker (the floor). Then creations per second with many in flight, on each store.
// Then, paired too, how long a task takes from its tools/call until tasks/get reads it completed: a closure on
// the Durable Object store (run in the request's isolate) against a run found by name executed inside the object
// (durableObjectExecutor: handed over, started by the object's alarm, claimed, run there).
//   node --import tsx bench/durable-object.ts [--rounds 6] [--n 200] [--inflight 32] [--json]
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
// @ts-expect-error: a plain .mjs script without types
import { ensureRuntimes } from "../scripts/runtimes/install.mjs";
import { log } from "./lib/format.ts";
import { median, pairedRounds, spread } from "./lib/paired.ts";
import { freePort, ROOT } from "./lib/proc.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    "n-complete": { type: "string", default: "30" },
    n: { type: "string", default: "200" },
    inflight: { type: "string", default: "32" },
    json: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const N = Number(values.n);
const INFLIGHT = Number(values.inflight);

const runtimes = ensureRuntimes({ log }) as { wrangler: string; node22: string };
const work = path.join(ROOT, ".scratch/do-bench");
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
writeFileSync(
  path.join(work, "wrangler.jsonc"),
  JSON.stringify({
    name: "h3-mcp-do-bench",
    main: path.join(ROOT, "bench/targets/durable-object-worker.ts"),
    compatibility_date: "2026-11-01",
    compatibility_flags: ["nodejs_compat"],
    durable_objects: { bindings: [{ name: "BENCH_TASKS", class_name: "McpTasksObject" }] },
    migrations: [{ tag: "v1", new_sqlite_classes: ["McpTasksObject"] }],
  }),
);
const port = await freePort();
const child = spawn(
  runtimes.node22,
  [runtimes.wrangler, "dev", "--config", "wrangler.jsonc", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(await freePort()), "--persist-to", path.join(work, "state"), "--show-interactive-dev-session=false"],
  { cwd: work, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true", NO_COLOR: "1" }, stdio: ["ignore", "ignore", "inherit"], detached: true },
);
const stop = () => {
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    // already gone
  }
};
process.on("exit", stop);

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
let id = 0;
/** One JSON-RPC request to `/<store>/mcp`, its JSON answer. */
async function rpc(store: "memory" | "do" | "run", method: string, params: Record<string, unknown>, name?: string): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/${store}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": V, "mcp-method": method, ...(name && { "mcp-name": name }) },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } } } }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${store} ${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}
const create = async (store: "memory" | "do" | "run") => (await rpc(store, "tools/call", { name: "quick", arguments: {} }, "quick")).taskId as string;

for (let i = 0; ; i++) {
  try {
    await create("memory");
    break;
  } catch {
    if (i > 240) throw new Error("wrangler dev did not answer within a minute");
    await new Promise((r) => setTimeout(r, 250));
  }
}
log(`wrangler dev (workerd) ready on ${port}`);

const tasks = { memory: await create("memory"), do: await create("do") };
const perRound = await pairedRounds(
  [
    { name: "floor (no MCP)", serve: async () => void (await (await fetch(`http://127.0.0.1:${port}/ping`, { method: "POST" })).text()) },
    { name: "create, memory", serve: async () => void (await create("memory")) },
    { name: "create, Durable Object", serve: async () => void (await create("do")) },
    { name: "tasks/get, memory", serve: async () => void (await rpc("memory", "tasks/get", { taskId: tasks.memory }, tasks.memory)) },
    { name: "tasks/get, Durable Object", serve: async () => void (await rpc("do", "tasks/get", { taskId: tasks.do }, tasks.do)) },
  ],
  ROUNDS,
  N,
  200,
);

/** A task created on `store`, read every 2 ms until it completed. */
async function completed(store: "do" | "run"): Promise<void> {
  const taskId = await create(store);
  for (;;) {
    if ((await rpc(store, "tasks/get", { taskId }, taskId)).status === "completed") return;
    await new Promise((r) => setTimeout(r, 2));
  }
}
await completed("run");
const toCompleted = await pairedRounds(
  [
    { name: "completed, closure on the Durable Object store", serve: () => completed("do") },
    { name: "completed, run found by name in the object", serve: () => completed("run") },
  ],
  ROUNDS,
  Number(values["n-complete"]),
  5,
);

/** Creations per second with `INFLIGHT` requests in flight, for `ms`. */
async function rate(store: "memory" | "do", ms = 5000): Promise<number> {
  let done = 0;
  const end = Date.now() + ms;
  const start = Date.now();
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      while (Date.now() < end) {
        await create(store);
        done++;
      }
    }),
  );
  return done / ((Date.now() - start) / 1000);
}
const rates: Record<string, number[]> = { memory: [], do: [] };
for (let r = 0; r < 3; r++) for (const store of r % 2 ? (["do", "memory"] as const) : (["memory", "do"] as const)) rates[store]!.push(await rate(store));
stop();

const ratio = (a: string, b: string) => median(perRound[a]!.map((x, i) => x / perRound[b]![i]!));
const report = { rounds: ROUNDS, n: N, inflight: INFLIGHT, perRoundUs: perRound, createsPerSecond: rates, toCompletedUs: toCompleted };
if (values.json) console.log(JSON.stringify(report));
else {
  console.log(`| one request at a time (µs, median of ${ROUNDS} rounds × ${N}; spread) | memory | Durable Object | Durable Object ÷ memory (median of the rounds' ratios) |`);
  console.log(`| --- | ---: | ---: | ---: |`);
  for (const op of ["create", "tasks/get"]) {
    const m = `${op}, memory`;
    const d = `${op}, Durable Object`;
    console.log(`| ${op} | ${median(perRound[m]!).toFixed(0)} (${spread(perRound[m]!, 0)}) | ${median(perRound[d]!).toFixed(0)} (${spread(perRound[d]!, 0)}) | ${ratio(d, m).toFixed(2)} |`);
  }
  const floor = perRound["floor (no MCP)"]!;
  console.log(`| the same process answering a bare h3 route (the floor) | ${median(floor).toFixed(0)} (${spread(floor, 0)}) | | |`);
  console.log(`\n| creations per second, ${INFLIGHT} in flight (3 runs of 5 s, alternated) | median | runs |`);
  console.log(`| --- | ---: | --- |`);
  for (const store of ["memory", "do"] as const) console.log(`| ${store === "do" ? "Durable Object" : "memory"} | ${median(rates[store]!).toFixed(0)} | ${rates[store]!.map((x) => x.toFixed(0)).join(", ")} |`);
  const [closure, named] = Object.keys(toCompleted);
  const inObject = median(toCompleted[named!]!.map((x, i) => x / toCompleted[closure!]![i]!));
  console.log(`\n| tools/call to tasks/get reading completed (µs, median of ${ROUNDS} rounds × ${values["n-complete"]}; spread) | median | run in the object ÷ closure |`);
  console.log(`| --- | ---: | ---: |`);
  for (const lane of [closure!, named!]) console.log(`| ${lane.slice("completed, ".length)} | ${median(toCompleted[lane]!).toFixed(0)} (${spread(toCompleted[lane]!, 0)}) | ${lane === named ? inObject.toFixed(2) : ""} |`);
}
