// The in-memory store's task table (src/tasks/task-table.ts: records in typed arrays, ids and JSON in
// Buffer chunks, outside the JS heap) against the plain code it replaces (a Map of one object per task,
// with its id and JSON as strings), at the store's own calls: a creation whose run completes at once
// (find, add, find, finish) and a `tasks/get` (find, then the record's fields and JSON). Each variant
// fills its own child process (a heap of a million tasks must not weigh on the other's figures);
// children alternate packed, map, packed, map… and report fill µs per task, heap + off-heap bytes per
// task, µs per read at that size (with the garbage a request makes), and GC time.
//   node --import tsx bench/task-table.ts [--rounds 3] [--n 1000000] [--reads 400000]
import { execFileSync } from "node:child_process";
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { TaskTable } from "../src/tasks/task-table.ts";
import { newTaskId } from "../src/utils/task-id.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, n: { type: "string", default: "1000000" }, reads: { type: "string", default: "400000" }, child: { type: "string" } },
});
const N = Number(values.n);

type Status = "completed" | "failed" | "cancelled";
interface Live { version: number }
/** The calls of the store, whichever table serves them. */
interface Table {
  create(id: string, owner: string, expiresAt: number): void;
  finish(id: string, status: Status, json: string): void;
  read(id: string, owner: string): string | undefined;
}

function packed(): Table {
  const t = new TaskTable<Live>();
  return {
    create(id, owner, expiresAt) {
      if (t.find(id) !== -1) throw new Error("duplicate");
      t.add(id, owner, expiresAt, { version: 1 });
    },
    finish(id, status, json) {
      const p = t.find(id);
      if (!t.live(p)) throw new Error("not live");
      t.finish(p, status, json, "");
    },
    read(id, owner) {
      const p = t.find(id);
      if (p === -1 || t.owner(p) !== owner || t.expiresAt(p) <= 0) return undefined;
      if (t.live(p)) return undefined;
      t.status(p);
      t.origin(p);
      return t.json(p);
    },
  };
}

/** The plain code: one object per task in a Map, which keeps creation order for the sweep. */
function map(): Table {
  interface Entry { owner: string; expiresAt: number; live: Live | undefined; status: Status | undefined; json: string; origin: string }
  const tasks = new Map<string, Entry>();
  const owners = new Map<string, number>();
  return {
    create(id, owner, expiresAt) {
      if (tasks.has(id)) throw new Error("duplicate");
      tasks.set(id, { owner, expiresAt, live: { version: 1 }, status: undefined, json: "", origin: "" });
      owners.set(owner, (owners.get(owner) ?? 0) + 1);
    },
    finish(id, status, json) {
      const e = tasks.get(id);
      if (!e?.live) throw new Error("not live");
      e.live = undefined;
      e.status = status;
      e.json = json;
    },
    read(id, owner) {
      const e = tasks.get(id);
      if (!e || e.owner !== owner || e.expiresAt <= 0 || e.live) return undefined;
      return e.json;
    },
  };
}

async function child(kind: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  }).observe({ entryTypes: ["gc"] });
  const table = kind === "packed" ? packed() : map();
  // `external` already counts ArrayBuffers and Buffers.
  const ext = () => process.memoryUsage().external;
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const ext0 = ext();
  const sample: string[] = [];
  const every = Math.max(1, Math.floor(N / 4096));
  const at = new Date().toISOString();
  const result = { resultType: "complete", content: [{ type: "text", text: "hello" }] };
  let t = performance.now();
  gcMs = 0;
  for (let i = 0; i < N; i++) {
    const id = newTaskId();
    table.create(id, "", Infinity);
    // The kept tasks/get JSON, as the runtime makes it for the bench's task_echo.
    const json = JSON.stringify({ resultType: "complete", taskId: id, status: "completed", createdAt: at, lastUpdatedAt: at, ttlMs: null, pollIntervalMs: 1000, result });
    table.finish(id, "completed", json);
    if (i % every === 0) sample.push(id);
    // Let the GC observer hear of collections, as a server's event loop would.
    if (i % 20_000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  const fillUs = ((performance.now() - t) * 1000) / N;
  const fillGc = gcMs;
  gc();
  gc();
  const heapPer = (process.memoryUsage().heapUsed - heap0) / N;
  const extPer = (ext() - ext0) / N;
  const reads = Number(values.reads);
  let bytes = 0;
  gcMs = 0;
  t = performance.now();
  for (let i = 0; i < reads; i++) {
    // A request's own garbage: its id parsed from JSON, and the answer built around the kept JSON.
    const json = table.read(JSON.parse(`"${sample[i % sample.length]}"`) as string, "");
    bytes += `{"jsonrpc":"2.0","id":${i},"result":${json}}`.length;
    if (i % 20_000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const readUs = ((performance.now() - t) * 1000) / reads;
  await new Promise((resolve) => setImmediate(resolve));
  if (bytes === 0) throw new Error("nothing read");
  console.log(JSON.stringify({ kind, fillUs, fillGcMs: fillGc, heapPer, extPer, readUs, readGcMs: gcMs }));
}

if (values.child) await child(values.child);
else {
  const rows: Record<string, { fillUs: number; heapPer: number; extPer: number; readUs: number; fillGcMs: number; readGcMs: number }[]> = { packed: [], map: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const kind of round % 2 ? ["map", "packed"] : ["packed", "map"]) {
      const out = execFileSync(process.execPath, ["--expose-gc", "--max-old-space-size=8192", "--import", "tsx", import.meta.filename, "--child", kind, "--n", String(N), "--reads", values.reads!], { encoding: "utf8" });
      const r = JSON.parse(out.trim().split("\n").pop()!);
      rows[kind]!.push(r);
      console.log(`round ${round + 1} ${kind}: fill ${r.fillUs.toFixed(2)} µs/task (GC ${r.fillGcMs.toFixed(0)} ms), ${(r.heapPer + r.extPer).toFixed(0)} B/task (heap ${r.heapPer.toFixed(0)}, off-heap ${r.extPer.toFixed(0)}), read ${r.readUs.toFixed(3)} µs (GC ${r.readGcMs.toFixed(0)} ms)`);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  for (const k of ["packed", "map"]) {
    const r = rows[k]!;
    console.log(`median ${k}: fill ${med(r.map((x) => x.fillUs)).toFixed(2)} µs/task, ${med(r.map((x) => x.heapPer + x.extPer)).toFixed(0)} B/task, read ${med(r.map((x) => x.readUs)).toFixed(3)} µs`);
  }
}
