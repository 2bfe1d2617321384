// `npm run bench [-- --quick]`: load runs against (a) bare h3, (b) h3-mcp, (c) the official SDK
// and the other references, each in its own process on 127.0.0.1, driven by autocannon in this
// process, targets alternated A B C A B C over the rounds (bench/lib/rounds.ts; the scenarios are
// bench/scenarios.ts); then the heap per task (bench/memory.ts), the expiry sweep (bench/sweep.ts),
// the Redis costs (bench/redis-costs.ts) and the durability figures (bench/durability.ts), each in a
// child with --expose-gc. Prints markdown; `--json <file>` saves the data.
import { findRedisServer, redisRequired } from "../test/helpers/redis-gate.ts";
import { runChildren, type ChildReports } from "./lib/children.ts";
import { log } from "./lib/format.ts";
import { writeJson } from "./lib/json-output.ts";
import { durabilityLines } from "./lib/durability-report.ts";
import { comparisons, loadTable } from "./lib/load-report.ts";
import { memoryTable } from "./lib/memory-report.ts";
import { readOptions } from "./lib/options.ts";
import { buildDist } from "./lib/proc.ts";
import { Processes } from "./lib/processes.ts";
import { redisCostsLines } from "./lib/redis-costs-report.ts";
import { Results } from "./lib/results.ts";
import { runRounds } from "./lib/rounds.ts";
import { sweepTable } from "./lib/sweep-report.ts";
import { verdictTable } from "./lib/verdicts.ts";
import { benchScenarios, needsRedis } from "./scenarios.ts";

const options = readOptions();
const { config, quick } = options;
process.env.BENCH_LIB = options.lib;

if (options.lib === "dist" && options.build) {
  log("building dist/ (npm run build)");
  await buildDist();
}

const scenarios = benchScenarios(config, quick);
const wanted = options.only ? scenarios.filter((s) => options.only!.some((o) => s.id.startsWith(o))) : scenarios.filter((s) => !s.optIn);
// The Redis rows need a redis-server: without one they are left out, loudly (under CI, or with
// H3_MCP_REQUIRE_REDIS set, its absence fails the bench instead).
const haveRedis = findRedisServer() !== undefined;
if (!haveRedis && wanted.some(needsRedis)) {
  if (redisRequired()) throw new Error("redis-server is not on PATH, and the Redis rows need it: install redis-server (Debian/Ubuntu: apt-get install redis-server)");
  log("\n!!! redis-server is not on PATH: the Redis rows (redis-*, two-*) are left out. To bench them, install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).\n");
}
const selected = haveRedis ? wanted : wanted.filter((s) => !needsRedis(s));
const started = Date.now();
log(`h3-mcp bench (${options.lib}): ${config.rounds} round(s) × ${config.durationSec} s, ${config.connections} connections${quick ? " (quick)" : ""}`);
const results = new Results(await runRounds(selected, new Processes(), config, quick));

const reports: ChildReports = options.memory ? await runChildren(config, quick, haveRedis && (!options.only || selected.some(needsRedis))) : {};

const out = [
  ...loadTable(results, options),
  ...(reports.memory ? memoryTable(reports.memory) : []),
  ...(reports.sweep ? sweepTable(reports.sweep) : []),
  ...(reports.redisCosts ? redisCostsLines(reports.redisCosts) : []),
  ...(reports.durability ? durabilityLines(reports.durability) : []),
  ...comparisons(results),
  ...verdictTable(results, reports, config),
  "",
  `Total bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`,
];
console.log(out.join("\n"));
if (options.json) writeJson(options.json, results, reports, config);
