// The SQLite store against the in-memory store, paired request by request in one process through
// app.fetch (lib/paired.ts): creating a closure task that completes at once (its creation and its final
// write) and `tasks/get` of a finished task, on each store, and on SQLite also of a finished task the
// instance does not keep in memory (read from the file). A third creation lane is the floor a file can
// reach: the in-memory store's creation plus two bare commits on a file of the same settings (WAL, the
// same `synchronous`), the two transactions a closure task's life takes (its creation, its final write).
// `--lanes create_sqlite,get_sqlite` serves only those (to profile one: `node --cpu-prof --import tsx ...`).
// A fourth, `create_inmem`, is this store on an in-memory database: every statement, no file to commit
// to or watch. `--clock cpu` times each request by this process's CPU time instead of the wall clock.
// `--base <tree>` adds a lane `create_base`: the SQLite store of another checkout (e.g. `git archive main`
// unpacked, with node_modules linked), on its own file, so two builds of the store are paired in one run.
//   node --import tsx bench/sqlite-store.ts [--rounds 9] [--n 500] [--synchronous normal|full] [--lanes a,b] [--base dir] [--clock wall|cpu]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { H3 } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { mcpTask, mcpTasks, memoryTaskStore, type TaskStore } from "h3-mcp/tasks";
import { sqliteTaskStore } from "h3-mcp/tasks/sqlite";
import { FINISHED_KEPT } from "../src/tasks/sqlite/read-caches.ts";
import { median, pairedRounds, spread } from "./lib/paired.ts";
import { mcpRequest, toWebRequest } from "./lib/wire.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "9" }, n: { type: "string", default: "500" }, synchronous: { type: "string", default: "normal" }, lanes: { type: "string" }, base: { type: "string" }, clock: { type: "string", default: "wall" } } });
const synchronous = values.synchronous as "normal" | "full";
const dir = mkdtempSync(path.join(tmpdir(), "h3-mcp-bench-sqlite-"));
const sqlite = sqliteTaskStore({ database: new Database(path.join(dir, "tasks.db")), secret: "bench-secret", synchronous });
// A second instance on the file, reading more finished tasks than it keeps in memory: every read goes to the file.
const uncached = sqliteTaskStore({ database: new Database(path.join(dir, "tasks.db")), secret: "bench-secret", synchronous });
// The floor's file: one small row per commit, under the store's own pragmas.
const floorDb = new Database(path.join(dir, "floor.db"));
floorDb.pragma("journal_mode = WAL");
floorDb.pragma(`synchronous = ${synchronous.toUpperCase()}`);
floorDb.exec("CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)");
const floorInsert = floorDb.prepare("INSERT INTO t (id, body) VALUES (?, ?)");
const floorUpdate = floorDb.prepare("UPDATE t SET body = ? WHERE id = ?");
const commits = () => {
  const id = crypto.randomUUID();
  floorDb.exec("BEGIN IMMEDIATE");
  floorInsert.run(id, "{}");
  floorDb.exec("COMMIT");
  floorDb.exec("BEGIN IMMEDIATE");
  floorUpdate.run('{"status":"completed"}', id);
  floorDb.exec("COMMIT");
};

const appOn = (store: TaskStore, extra?: () => void) => {
  const tool = defineTool({
    name: "quick",
    execution: { taskSupport: "required" },
    handler: (event) => (extra?.(), mcpTask(event, { run: () => ({ content: [{ type: "text" as const, text: "done" }] }) })),
  });
  return new H3().all("/mcp", defineMcpHandler({ name: "bench", version: "0", tools: [tool] }, { extensionPlugins: [mcpTasks({ store, max: 1_000_000 })] }));
};
const base = values.base
  ? ((await import(path.resolve(values.base, "src/tasks/sqlite/index.ts"))) as typeof import("h3-mcp/tasks/sqlite")).sqliteTaskStore({ database: new Database(path.join(dir, "base.db")), secret: "bench-secret", synchronous })
  : undefined;
const inmem = sqliteTaskStore({ database: new Database(":memory:"), secret: "bench-secret", synchronous });
const apps = { base: base && appOn(base), inmem: appOn(inmem), memory: appOn(memoryTaskStore()), sqlite: appOn(sqlite), uncached: appOn(uncached), floor: appOn(memoryTaskStore(), commits) };
const create = mcpRequest("tools/call", { name: "quick", arguments: {} }, { tasks: true });
const send = async (app: H3, raw: ReturnType<typeof mcpRequest>, expect: string) => {
  const res = await app.fetch(toWebRequest(raw));
  const text = await res.text();
  if (res.status !== 200 || !text.includes(expect)) throw new Error(`HTTP ${res.status}: ${text}`);
  return text;
};
// 1,000 finished tasks on each store (or `count`, created through `app`, read through `reader`), read round-robin.
const gets = async (app: H3, count = 1000, reader = app) => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(JSON.parse(await send(app, create, '"resultType":"task"')).result.taskId);
  const requests = ids.map((taskId) => mcpRequest("tasks/get", { taskId }, { tasks: true }));
  await new Promise((r) => setTimeout(r, 50));
  let next = 0;
  return () => send(reader, requests[next++ % requests.length]!, '"completed"').then(() => {});
};

try {
  const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
  const before = load();
  const wanted = (name: string) => !values.lanes || values.lanes.split(",").includes(name);
  const none = async () => {};
  const all = [
    { name: "create_memory", serve: () => send(apps.memory, create, '"resultType":"task"').then(() => {}) },
    { name: "create_sqlite", serve: () => send(apps.sqlite, create, '"resultType":"task"').then(() => {}) },
    { name: "create_inmem", serve: () => send(apps.inmem, create, '"resultType":"task"').then(() => {}) },
    ...(apps.base ? [{ name: "create_base", serve: () => send(apps.base!, create, '"resultType":"task"').then(() => {}) }] : []),
    { name: "create_floor", serve: () => send(apps.floor, create, '"resultType":"task"').then(() => {}) },
    // Filled only when served: a profile of one creation lane sees no other creations.
    { name: "get_memory", serve: wanted("get_memory") ? await gets(apps.memory) : none },
    { name: "get_sqlite", serve: wanted("get_sqlite") ? await gets(apps.sqlite) : none },
    { name: "get_uncached", serve: wanted("get_uncached") ? await gets(apps.sqlite, FINISHED_KEPT + 1000, apps.uncached) : none },
  ];
  const lanes = all.filter((lane) => wanted(lane.name));
  const perRound = await pairedRounds(lanes, Number(values.rounds), Number(values.n), 1000, values.clock === "cpu" ? "cpu" : "wall");
  const ratio = (base: string, lane: string) => perRound[base]!.map((b, i) => b / perRound[lane]![i]!);
  const has = (...names: string[]) => names.every((name) => perRound[name]);
  const us = (lane: string) => (perRound[lane] ? median(perRound[lane]!).toFixed(1) : "-");
  const line = (label: string, base: string, lane: string) => has(base, lane) && console.log(`${label}: median ${median(ratio(base, lane)).toFixed(3)}× (rounds ${spread(ratio(base, lane))})`);
  console.log(`synchronous=${synchronous}, clock ${values.clock}; µs per request (median of ${values.rounds} rounds × ${values.n}): create memory ${us("create_memory")}, sqlite ${us("create_sqlite")}, floor ${us("create_floor")}, in memory ${us("create_inmem")}, base ${us("create_base")}; tasks/get memory ${us("get_memory")}, sqlite ${us("get_sqlite")}, sqlite from the file ${us("get_uncached")}`);
  line("tasks/get, SQLite rate ÷ memory rate (goal ≥ 0.8)", "get_memory", "get_sqlite");
  line("tasks/get of a task not kept in memory (from the file) ÷ memory", "get_memory", "get_uncached");
  line("creation, SQLite rate ÷ memory rate (goal ≥ 0.6)", "create_memory", "create_sqlite");
  line("creation, the store on an in-memory database (no file) ÷ memory", "create_memory", "create_inmem");
  line("creation, --base's SQLite store ÷ memory", "create_memory", "create_base");
  line("creation, this SQLite store's rate ÷ --base's", "create_base", "create_sqlite");
  line("creation, floor (memory + two commits) rate ÷ memory rate", "create_memory", "create_floor");
  console.log(`load average before: ${before}; after: ${load()}`);
} finally {
  sqlite.close();
  uncached.close();
  inmem.close();
  base?.close();
  rmSync(dir, { recursive: true, force: true });
}
