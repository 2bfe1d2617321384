// CPU profile of the h3-mcp target under load: `node --cpu-prof` on the target process, autocannon
// from here, and a summary of the samples taken during the load window only (startup, tsx
// compilation, store filling and warm-up excluded), with µs per request.
// `--target bare` profiles the bare h3 endpoint under the same requests, to compare line by line;
// `--target actor` the bare h3 endpoint plus one task actor's life (row f of the task-create scenario).
//   tsx bench/profile.ts [--scenario echo|task-create|task-get|discover|tools-list] [--target h3-mcp|bare|actor] [--seconds 10]
//                        [--fill 1000] [--connections 20] [--interval 100] [--dir <profiles dir>]
//                        [--lib dist|src] [--no-build]
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatProfile, summarizeProfile } from "./lib/cpuprofile.ts";
import { runLoad } from "./lib/load.ts";
import { buildDist, ROOT, startTarget } from "./lib/proc.ts";
import { requests, type RawRequest } from "./lib/wire.ts";

const { values: args } = parseArgs({
  options: {
    scenario: { type: "string", default: "echo" },
    target: { type: "string", default: "h3-mcp" },
    seconds: { type: "string", default: "10" },
    fill: { type: "string", default: "1000" },
    connections: { type: "string", default: "20" },
    interval: { type: "string", default: "100" },
    top: { type: "string", default: "30" },
    dir: { type: "string", default: join(tmpdir(), "h3-mcp-profiles") },
    lib: { type: "string", default: "dist" },
    "no-build": { type: "boolean", default: false },
  },
});
process.env.BENCH_LIB = args.lib;
if (args.lib === "dist" && !args["no-build"]) await buildDist();

const dir = args.dir;
mkdirSync(dir, { recursive: true });
const REFERENCES: Record<string, string> = { bare: "bare-h3.ts", actor: "bare-actor.ts" };
if (args.target !== "h3-mcp" && !REFERENCES[args.target]) throw new Error("--target is h3-mcp, bare or actor");
const profFlags = ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", args.interval, "--max-old-space-size=8192"];
// The store is filled in an h3-mcp process even when the bare endpoint is profiled: the ids make the same requests.
const target = await startTarget("h3-mcp", "h3-mcp.ts", { nodeFlags: args.target === "h3-mcp" ? profFlags : [] });

let reqs: RawRequest[];
switch (args.scenario) {
  case "echo":
    reqs = [requests.echo()];
    break;
  case "task-create":
    reqs = [requests.createTask()];
    break;
  case "discover":
    reqs = [requests.discover()];
    break;
  case "tools-list":
    reqs = [requests.toolsList()];
    break;
  case "task-get": {
    const res = await fetch(`${target.origin}/bench/fill`, { method: "POST", body: JSON.stringify({ to: Number(args.fill) }) });
    const { sample } = (await res.json()) as { sample: string[] };
    reqs = sample.map((id) => requests.getTask(id));
    break;
  }
  default:
    throw new Error(`Unknown scenario ${args.scenario}`);
}

const reference = REFERENCES[args.target];
const profiled = reference ? await startTarget(args.target, reference, { nodeFlags: profFlags }) : target;
if (profiled !== target) await target.stop();
const load = { connections: Number(args.connections), durationSec: Number(args.seconds) };
await runLoad(profiled, reqs, { ...load, durationSec: 3 });
const from = Number(process.hrtime.bigint() / 1000n);
const run = await runLoad(profiled, reqs, load);
const to = Number(process.hrtime.bigint() / 1000n);
await profiled.stop();

// --cpu-prof names files CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one.
const file = readdirSync(dir)
  .filter((f) => f.includes(`.${profiled.pid}.0.`) && f.endsWith(".cpuprofile"))
  .map((f) => join(dir, f))
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!file) throw new Error(`No profile for pid ${profiled.pid} in ${dir}`);

const summary = summarizeProfile(file, { root: ROOT, window: [from, to] });
console.log(`${args.scenario} on ${args.target}: ${Math.round(run.rps)} req/s, ${run.ok} requests in the window, server CPU ${run.serverCpuUsPerReq?.toFixed(1) ?? "?"} µs/req`);
console.log(`h3-mcp: ${target.lib}\nprofile: ${file}\n`);
console.log(formatProfile(summary, { top: Number(args.top), focus: /\((src|machines|dist)\//, perRequestOf: run.ok }));
